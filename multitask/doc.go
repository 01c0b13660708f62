// Package multitask is the multi-task informative vector machine (MT-IVM): M tasks whose latent
// functions are independent Gaussian processes given one shared kernel, with the kernel parameters
// learnt from all tasks at once (Lawrence & Platt, "Learning to learn with the informative vector
// machine", ICML 2004, §4; Lawrence, Platt & Jordan, "Extensions of the informative vector
// machine", §5, Algorithm 3).
//
// # Use
//
// Fit(x, y, task, Config{}) trains on the rows of x with targets y (NaN: an unlabelled row, for the
// null category noise model) and each row's task name; the zero Config chooses the noise model from
// the labels (probit for two labels, which may be any two numbers; Gaussian for real targets), the
// default kernel, min(N, 200) active points and 8 outer iterations of kernel learning, and leaves
// the inputs unscaled (Config.Scaling scales them). Model.Predict(x, task) predicts rows of known
// tasks, with labels in the training data's coding; Model.Save writes a versioned JSON model file
// (ModelFormat, with the training provenance in Model.Training), which Load reads. `ivm train
// -method mtivm` (or -tasks) and `ivm predict` are these calls on files.
//
// Learn, Selector, Split and Pool are the machinery beneath, for protocols Fit does not cover
// (random sub-sampling, a pooled single task, new tasks from a few points).
//
// # Design
//
// Stacking the tasks' targets makes the multi-task GP one GP with a block-diagonal covariance, and
// ADF keeps the posterior block-diagonal: every task has its own posterior mean μ⁽ᵐ⁾,
// variances ς⁽ᵐ⁾, factor M⁽ᵐ⁾, noise model and active and inactive sets. So the MT-IVM
// is exactly one engine.Selector per task, all reading the same kernel. Selection runs across
// tasks: each task proposes its best candidate (engine.Selector.Best, already scored), the largest
// entropy reduction wins and only the winning task is updated. Ties go to the first task, and
// within it to the lowest index, as the reference toolbox does. d inclusions in total are shared
// among the tasks as the scores decide: a task whose inputs spread widely gives more information
// about the shared function and gets more points (the sine toy of Fig. 7). An inclusion costs O(d_m
// N_m) in its task alone, so d points cost O(Σ_m d_m² N_m) ≤ O(d² N) — the multi-task model
// is cheaper than a single IVM on the pooled data.
//
// The kernel objective of Algorithm 2 is the sum of the tasks' active-set objectives, −Σ_m ln
// p(y_{I_m}) − ln p(θ), with the prior on θ counted once (the reference adds it once per task).
// Two forms are available: FixedSites, the papers' eq. (IVM paper eq. 32 per task,
// engine.ActiveSetObjective) with the ADF sites of the last selection held fixed, and EPEvidence,
// the default, in which the sites of each task's active set are refitted by expectation propagation
// for every kernel the optimiser tries. For Gaussian noise the two are the same function (exact
// sites: the exact marginal likelihood of the active subsets). For classification the fixed-site
// objective rewards shrinking the kernel (the sites were fitted for the old kernel; see package
// engine's learn.go), which EP removes. The tasks' terms are computed in parallel; the kernel's
// parameters are set once per evaluation, before the tasks read them.
//
// Learn runs Algorithm 2 over tasks with the single-task IVM's loop (engine.RunLearn, this
// package's Selector supplying the per-task parts): T outer iterations of [select d points across
// tasks; minimise the objective by SCG]. An outer iteration is accepted only if the model its
// parameters select predicts the tasks' inactive training points about as well as the best so far
// (LearnOptions.LastIterate turns this off). LearnOptions.NoiseIters adds Algorithm 2's optional
// noise step with the noise parameters tied across tasks: the predictive log probability of the
// inactive points (IVM paper eq. 34 without the active points, whose marginals already contain
// their own labels), and for homoscedastic Gaussian tasks with the active sets' posteriors
// recomputed at every variance tried (engine.NoiseOptions.Exact), which removes an oscillation
// between the variance and the selection it was made with.
//
// A Model holds the shared kernel and one engine.Model per task. Prediction for a training task
// uses its own active set; a task with no active point predicts with the prior. A new task is
// fitted from a handful of its own points with the learnt kernel (NewTaskModel): the speaker
// experiment's protocol, where the kernel learnt from 14 speakers classifies a 15th from one
// example of each vowel.
//
// Baselines the papers compare with are the same machinery with another selection:
// LearnOptions.PerTask sub-samples a fixed number of points per task at random (exact GP learning
// for Gaussian noise, ADF sites refitted by EP for classification), and a single IVM that ignores
// the task labels is one task holding all the data (Pool).
//
// A new task's model (NewTaskModel, TaskGP) fits EP sites on all its points and predicts through B
// = I + S^½KS^½: a kernel learnt on separable classes can be almost noise-free and singular on a
// handful of points, where the K + S⁻¹ form of engine.Model fails to factorise.
//
// The experiments of the papers (sine toy, GP-sampled regression tasks, vowel speakers) are in
// package internal/reproduce (mtivm_*.go) and are run by `ivm reproduce mtivm-sine`,
// `mtivm-regression` and `mtivm-vowel`.
package multitask
