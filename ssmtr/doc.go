// Package ssmtr implements semi-supervised multi-task Gaussian-process regression after Zhang and
// Yeung, "Semi-supervised multi-task regression" (ECML PKDD 2009): SSTR (one independent GP per
// task, the paper's baseline), SMTR (§2), SSMTR (§3) and SSMTRPI (§4).
//
// # Models
//
// Every task i has its own GP, f^i ~ N(0, K_θi), and Gaussian noise y = f + N(0, σ²) with one σ
// shared by all tasks (eqs. 1–2). SMTR ties the tasks through a common prior on their kernel
// parameters, θ_i ~ N(m_θ, Σ_θ) (eq. 3), learnt by alternating gradient steps on all θ_i and
// σ given (m_θ, Σ_θ) with the closed-form update of (m_θ, Σ_θ) (§2.1). A new task is fitted
// under the learnt prior alone (§2.2, Model.AddTask): MAP kernel parameters, maximum-likelihood
// σ; the training tasks' data are not needed.
//
// SSMTR adds each task's unlabelled points through the prior term exp(−α_i/2 fᵀLf) of eq. 4, L
// the (normalised, by default) Laplacian of a K-nearest-neighbour graph with local scaling
// (Zelnik-Manor & Perona; SimilarityGraph), which gives the data-dependent kernel of eq. 6, k̃(x,
// z) = k(x, z) − k_xᵀ(α⁻¹I + LK)⁻¹L k_z. Its labelled block is the covariance of the
// Gaussian evidence (§3.1); α_i is learnt with the other parameters.
//
// SSMTRPI adds constraints y_u − y_v ≥ d (Pair) and y_u − y_v ≥ y_w − y_z (Quad, §4.2)
// with the probit likelihood Φ((aᵀf − d)/(‖a‖ε)), ε learnt and shared by all tasks, and
// integrates the latent values of all labelled and unlabelled points by the Laplace approximation
// (§4.1).
//
// # Parameter spaces and the prior
//
// Every hyperparameter is optimised as a logarithm (σ, ε, α_i and the kern natural parameters
// θ_i, all positive), as the paper does. The common prior lives in that space too: ln θ_i ~
// N(m_θ, Σ_θ). The paper writes the prior on θ_i itself while optimising ln θ_i; a Gaussian on
// θ puts mass on invalid negative values, and the tasks' parameters differ by factors (SARCOS
// torques, school sizes), which a Gaussian on the logs describes. The log space also makes the
// prior independent of how a kernel is parameterised: kern's RBF uses the inverse width γ where
// the paper uses the length scale θ₃ = γ^{-1/2}, and ln γ = −2 ln θ₃ is linear, so the
// model is the same. The graph weights α_i are free per task, each learnt by maximum likelihood,
// as the paper's gradient for α_i (§3.1, §4.1: no prior term) has them. Config.AlphaPrior puts
// ln α_i under the prior as well, which keeps a task with a handful of labels from driving α_i to
// 0 or ∞ alone, but on SARCOS it held α near one value for all seven torques and made SSMTR
// worse than SMTR, where free α_i make it better (bench/RESULTS.md records the runs). The
// normalised Laplacian is the default: its spectrum lies in [0, 2] in every task, so α_i means a
// comparable amount of smoothing everywhere.
//
// The paper's update Σ_θ = (1/m) Σ_i d_i d_iᵀ makes the joint objective unbounded (all ψ_i
// → m_θ, Σ_θ → 0) and is singular with fewer tasks than parameters. Fit adds an
// inverse-Wishart-like term, ½ tr(ν₀s²Σ⁻¹) + (ν₀/2) ln|Σ|, whose maximiser is Σ_θ =
// (Σ_i d_i d_iᵀ + ν₀s²I)/(m + ν₀) (Config.PriorPseudoTasks ν₀ = 1 and
// Config.PriorScale s² = 1 by default). The alternation is then coordinate descent on one bounded
// objective J, which decreases monotonically (Model.Trace). Its gradient phase profiles m_θ out
// (m_θ is the ψ_i's mean while the ψ_i move; Σ_θ is held): with many tasks Σ_θ shrinks to
// the ψ_i's small spread after a few updates, and with m_θ held as well the gradient phase could
// not move the tasks' common parameters — on the school data (139 tasks) they crept so slowly
// that after the protocol's five outer iterations SMTR was still well short of its optimal
// evidence and no better than predicting the labelled mean. Both schemes have the same fixed
// points.
//
// Targets are standardised before fitting (Config.Targets): per task for tasks measuring different
// quantities, pooled for tasks measuring the same one.
//
// # Numerics
//
// Nothing inverts K, which an RBF kernel makes numerically singular. With L = RRᵀ (R from the
// eigenvectors of L with positive eigenvalues), K̃ = (K⁻¹ + αL)⁻¹ = K − αK R M⁻¹
// RᵀK with M = I + αRᵀKR, whose eigenvalues are ≥ 1; the n×n work is the product RᵀKR and
// gonum's Cholesky of M (n = labelled + unlabelled points of a task; O(n³) per task and
// evaluation, as in the paper). With S = I − αR M⁻¹RᵀK, K̃ = KS and ∂K̃ = Sᵀ ∂K S,
// which carries every gradient back to the base kernel through kern's Grad; ∂K̃/∂α =
// −K̃LK̃.
//
// The Laplace mode is found by Newton's method in the form f = K̃a (Rasmussen & Williams,
// Algorithm 3.1, with the non-diagonal curvature W = VVᵀ of the constraints: V holds σ⁻¹e_i
// for labelled points and √c_j a_j per constraint), with backtracking on the convex objective of
// §4.1. The approximate evidence is ½ aᵀf̂ − ln p(y, ξ | f̂) + ½ ln|I + VᵀK̃V|. Its
// gradient (laplaceGrad) is exact: besides the paper's explicit terms it carries the implicit
// dependence of f̂ on every hyperparameter through W, without which it would not match finite
// differences. Without constraints the Laplace evidence equals the exact one.
//
// There is no jitter. A Cholesky failure or a Laplace mode not found during optimisation makes the
// objective NaN, which the optimisers treat as a failed step (counted in Model.Stats with its
// cause); at the final parameters it is an error. gonum's mat.Condition, its warning that a solve
// was ill-conditioned, is not a failure: the result is used, as the root package does, and checked
// for finiteness; at the final parameters the condition number is kept (TaskModel.Condition).
//
// # Data, prediction and model files
//
// Fit(x, y, task, cfg) takes the rows of all tasks together: row r is an input of task task[r],
// y[r] its target or NaN for an unlabelled row (SSMTR and SSMTRPI put those in the graph; SSTR and
// SMTR ignore them). Tasks are numbered in the order their names first occur. Inputs are scaled
// first (Config.Scaling, standardised by default; the scaler is kept in the model). Config.Pairs
// and Config.Quads refer to rows of x.
//
// Model.Predict gives the predictive mean and variance (latent variance plus σ², in the targets'
// units) at any rows, training rows or new ones: eq. 6 defines k̃ for every pair of inputs, so a
// new row outside the graph is predicted inductively under the graph of the task's training rows,
// held fixed (the paper's inductive error). Each task's posterior is folded into a weight vector w
// and a matrix A over its training rows, mean k(x, X)·w and latent variance k(x, x) − k(x, X) A
// k(X, x) with the base kernel k, which is all a model file (Save, Load; format "ivm-ssmtr/1")
// keeps besides the kernel parameters, the scalers and the common prior: the graph itself is not
// needed again. Model.AddTask fits a new task under the learnt prior (§2.2).
//
// Model.GraphWeights puts a fitted model's kernels under the graph at given weights without
// refitting: it shows whether the evidence wants the graph (on the school data the evidence is
// largest without the graph on every split, so SSMTR ties SMTR there; `ivm reproduce ssmtr-alpha`).
//
// The paper's experiments (§5) are in package internal/reproduce: `ivm reproduce ssmtr-sarcos`
// and `ivm reproduce ssmtr-school`.
package ssmtr
