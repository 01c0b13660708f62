package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/kern"
)

// dataFlags are the flags every command that reads data shares.
type dataFlags struct {
	format, labelCol, taskCol string
	maxMem                    *memLimit
}

func (f *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.format, "format", "auto", "data format: auto, csv or libsvm")
	fs.StringVar(&f.labelCol, "label-col", "last",
		"CSV target column: first, last or a 1-based number")
	fs.StringVar(&f.taskCol, "task-col", "none",
		"CSV task column for multi-task data: none, first, last or a 1-based number\n(libsvm rows name "+
			"their task with a task:NAME token)")
	f.maxMem = registerMaxMem(fs)
}

func (f *dataFlags) options() (dataset.ReadOptions, error) {
	var opt dataset.ReadOptions
	var err error
	if opt.Format, err = dataset.ParseFormat(f.format); err != nil {
		return opt, err
	}
	if opt.LabelCol, err = dataset.ParseLabelCol(f.labelCol); err != nil {
		return opt, err
	}
	if opt.TaskCol, err = dataset.ParseTaskCol(f.taskCol); err != nil {
		return opt, err
	}
	f.maxMem.limitOptions(&opt)
	return opt, nil
}

// cmdTrain is ivm train. It is long because it defines and checks every flag of the
// single-task IVM (one statement each) before it trains; the other families parse their
// own flags (familyOfMethod), and the shared steps are trainingRun's.
func cmdTrain(args []string, stdout, stderr io.Writer) error {
	method := methodArg(args)
	if f := familyOfMethod(method); f != nil {
		return f.Train(method, args, stdout, stderr)
	}
	fs := newFlags("train", "ivm train [flags] TRAIN MODEL", stderr)
	methodFlag := fs.String("method", "ivm", "model family: "+methodNames()+
		"\n(ivm: the IVM; mtivm: the multi-task IVM, as -tasks; the others: \"ivm train -method NAME "+
		"-h\" for their flags)")
	var df dataFlags
	df.register(fs)
	noiseName := fs.String("noise", "auto",
		"noise model: auto, probit, gaussian, ordinal or ncnm (auto: probit for two labels\n(up to 700 "+
			"rows, or the labels ±1 regressed with Gaussian noise and a logistic map where that "+
			"predicts\nleft-out rows better, or the mean of both where they predict them about as well), "+
			"probit per class\nor pair of classes for 3 to 50 integer labels, gaussian otherwise;\nwith "+
			"ncnm, label 0 (libsvm) or ? (CSV) marks an unlabelled row)")
	d := fs.Int("d", 0,
		"active set size (0: N when that is cheap, else min(N, max(200, 8·sqrt(N)), 1250); see "+
			"ivm.DefaultActiveSize)")
	scale := fs.String("scale", "auto",
		"input scaling, stored in the model: std (zero mean, unit variance), minmax ([-1, 1]), "+
			"none;\nauto: chosen by the search between std and minmax (and relevance, learnt, for "+
			"regression), std with -learn alg2, none with -tasks")
	learn := fs.String("learn", "auto",
		"how the kernel is chosen: search (rbf+bias+white, its width, variance, the input scaling "+
			"and\nthe selection criterion by held-out log loss; one kernel for all classes), alg2 (the "+
			"papers' Algorithm 2 per class),\nor auto: search for binary, multi-class and regression "+
			"tasks without -kernel or -iters, alg2 otherwise")
	iters := fs.Int("iters", -1,
		"outer iterations of parameter learning (Algorithm 2); 0 keeps the kernel fixed;\n-1: the "+
			"task's default, 8 (the papers'), 15 for -noise ncnm (the extensions paper's)")
	kiters := fs.Int("kiters", 100, "optimiser iterations on the kernel per outer iteration")
	niters := fs.Int("niters", 0,
		"optimiser iterations on the noise parameters per outer iteration (0: none)")
	objective := fs.String("objective", "full",
		"kernel objective: full (EP evidence of the active labels plus the predictive likelihood of "+
			"the others), ep (the first term alone) or fixed (the reference's eq. 32)")
	transform := fs.String("transform", "softplus",
		"transform of positive kernel parameters: softplus (the papers) or exp (the reference toolbox)")
	lastIterate := fs.Bool("last-iterate", false,
		"accept every outer iteration (the reference's behaviour) instead of guarding by held-out "+
			"likelihood")
	criterion := fs.String("criterion", "auto",
		"selection score: expected (entropy reduction averaged over the labels' predictive "+
			"probabilities; robust to label noise), entropy (the papers' and the reference's), or auto: "+
			"expected for classification, entropy otherwise")
	bias := fs.String("bias", "fraction",
		"start of the probit or ncnm bias: fraction (Φ⁻¹ of the labelled positive fraction, the "+
			"reference toolbox's)\nor zero (the papers' likelihoods have none); it moves only with -niters")
	gamma := fs.String("gamma", "shared",
		"ncnm: the probabilities that a point of class -1 or +1 is unlabelled, shared (one γ, the "+
			"papers')\nor split (γ- and γ+); both start at the unlabelled fraction and move only with "+
			"-niters")
	refine := fs.Bool("refine", false, "refine the final active set by swaps and EP sweeps")
	heldOut := fs.Int("heldout", 500, "inactive points in the learning objective's predictive term")
	optimizer := fs.String("optimizer", "scg",
		"optimiser for learning: scg (scaled conjugate gradients, the papers') or lbfgs")
	spec := fs.String("kernel", "",
		"kernel: components joined by +, each with optional natural-scale parameters,\ne.g. "+
			"rbf(gamma=1,variance=1)+bias(variance=0.135)+white(variance=0.135);\ndefault "+
			ivm.DefaultKernel(1)+" for up to 32 inputs, "+ivm.DefaultKernel(33)+" above")
	seed := fs.Uint64("seed", 0, "seed of the held-out subsets drawn during learning")
	workers := fs.Int("workers", 0,
		"goroutines (0: all cores); multi-class problems train side by side")
	quiet := fs.Bool("quiet", false, "print nothing on success")
	multiclass := fs.String("multiclass", "auto",
		"multi-class decomposition: ovr (one model per class against the rest), ovo (one binary model "+
			"per pair\nof classes, its own kernel searched, the pairs' probabilities coupled as libsvm's "+
			"-b 1), projected (every\nclass's code regressed through -d shared centres, default 5 000: "+
			"one fit for all classes), or auto: ovo with\nthe default search on up to 5 000 rows, "+
			"projected above (ovr with -part; ivm.AutoDecomposition); above\n5 000 rows binary and "+
			"regression tasks are projected models too (not with -noise probit)")
	part := fs.String("part", "",
		"train only slice i/K (0 ≤ i < K) of a multi-class task's binary problems (one-vs-rest "+
			"classes "+
			"or\none-vs-one pairs) and write a part file for ivm merge")
	tasks := fs.Bool("tasks", false,
		"multi-task IVM: one shared kernel, selection across the tasks of -task-col or task:NAME "+
			"tokens\n(the model file is ivm-mtmodel/1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	switch *methodFlag {
	case "ivm":
	case "mtivm":
		*tasks = true
	default:
		return fmt.Errorf("-method %q: want one of %s", *methodFlag, methodNames())
	}
	if *iters < -1 || *kiters < 0 || *niters < 0 {
		return errors.New(
			"-iters must be -1 (the task's default) or more, -kiters and -niters not negative")
	}
	if err := errors.Join(checkIters("-iters", *iters), checkIters("-kiters", *kiters),
		checkIters("-niters", *niters)); err != nil {
		return err
	}
	if *d < 0 {
		return fmt.Errorf("-d %d: the active set needs at least one point", *d)
	}
	learning, err := ivm.ParseLearning(*learn)
	if err != nil {
		return fmt.Errorf("-learn %q: want auto, search or alg2", *learn)
	}
	// The enum flags take exactly the spellings they document and give the errors they
	// always gave; the enums' own parsers are more lenient (upper case, "auto").
	obj, ok := exactEnum(*objective, ivm.ParseObjective, "")
	if !ok || obj == ivm.ObjectiveAuto && *objective != "" { // "": the default, as before
		return fmt.Errorf("ivm: unknown objective %q (want full, ep or fixed)", *objective)
	}
	optim, ok := exactEnum(*optimizer, ivm.ParseOptimizer)
	if !ok {
		return fmt.Errorf("-optimizer %q: want scg or lbfgs", *optimizer)
	}
	crit, ok := exactEnum(*criterion, ivm.ParseCriterionChoice, "")
	if !ok {
		return fmt.Errorf("ivm: unknown selection criterion %q (want entropy or expected)", *criterion)
	}
	posTransform, ok := exactEnum(*transform, ivm.ParseTransform)
	if !ok || posTransform == ivm.TransformAuto {
		return fmt.Errorf("-transform %q: want softplus or exp", *transform)
	}
	if *bias != "fraction" && *bias != "zero" {
		return fmt.Errorf("-bias %q: want fraction or zero", *bias)
	}
	if *gamma != "shared" && *gamma != "split" {
		return fmt.Errorf("-gamma %q: want shared or split", *gamma)
	}
	slice, err := parsePartFlag(*part, *tasks)
	if err != nil {
		return err
	}
	scaling, err := ivm.ParseScaling(*scale)
	if err != nil {
		return err
	}
	decomposition, ok := exactEnum(*multiclass, ivm.ParseDecomposition)
	if !ok {
		return fmt.Errorf("-multiclass %q: want auto, ovr, ovo or projected", *multiclass)
	}
	task, err := taskFor(*noiseName)
	if err != nil {
		return err
	}
	trainPath, modelPath := fs.Arg(0), fs.Arg(1)
	opt, err := df.options()
	if err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	if *workers > 0 {
		// The numerical kernels (rowdot's products) spread over GOMAXPROCS: -workers bounds
		// the cores the whole training uses, not only the goroutines it starts itself.
		runtime.GOMAXPROCS(*workers)
	}
	if *tasks {
		if err := refuseTaskFlags(fs); err != nil {
			return err
		}
	}
	run, err := startTraining([]string{trainPath}, modelPath, args, stdout, stderr)
	if err != nil {
		return err
	}
	defer run.discard()
	ignored := "they are ignored without -tasks"
	if *tasks {
		ignored = ""
	}
	data, err := readTraining(trainPath, opt, ignored, stderr)
	if err != nil {
		return err
	}
	if *tasks {
		return trainTasks(data, run, taskTrainOptions{Noise: *noiseName, ActiveSize: *d,
			Iters: taskIters(*iters), KernelIters: *kiters, NoiseIters: *niters,
			Objective: obj, Kernel: *spec, Transform: posTransform, Criterion: crit, Scale: *scale,
			LastIterate: *lastIterate,
			Optimizer:   optim, Workers: *workers, Quiet: *quiet, MaxMem: *df.maxMem},
			stderr)
	}
	n, dim := data.X.Dims()
	if *d > n {
		fmt.Fprintf(stderr, "ivm train: warning: -d %d exceeds the %d training points; using d = %d\n",
			*d, n, n)
		*d = n
	}
	y := data.Y
	if task == ivm.SemiSupervised {
		y = unlabelledZeros(y)
	}
	if task == ivm.Binary {
		// -noise probit on 3 to 50 integer labels: one-vs-rest probit. A numeric target
		// (non-integers, or more values) is refused rather than read as classes.
		if k, integer := distinctLabels(y); k > 2 && k <= 50 && integer {
			task = ivm.MultiClass
		} else if k > 2 {
			return fmt.Errorf(
				"%s: probit needs two distinct labels (or 3 to 50 integer class labels); found %d distinct "+
					"targets", trainPath, k)
		}
	}
	if *spec != "" {
		if _, err := kern.Parse(*spec, dim); err != nil {
			return err
		}
	}
	df.maxMem.softLimit()
	cfg := ivm.Config{Task: task, Kernel: *spec, ActiveSize: *d, Scale: scaling,
		FixedKernel: *iters == 0, Learning: learning,
		Transform: posTransform, Criterion: crit, Workers: *workers, ZeroBias: *bias == "zero",
		SplitGamma: *gamma == "split",
		Learn: ivm.LearnOptions{Iters: max(*iters, 0), KernelIters: *kiters, NoiseIters: *niters,
			Objective:   obj,
			LastIterate: *lastIterate, Refine: *refine, HeldOut: *heldOut, Optimizer: optim, Seed: *seed},
		Part:          slice,
		Decomposition: decomposition}
	if *kiters == 0 {
		cfg.Learn.KernelIters = -1
	}
	cfg.SearchTrace = searchTrace()
	plan, err := cfg.Plan(n, dim, y)
	if err != nil {
		return fmt.Errorf("%s: %w%s", trainPath, err, hugeTargetsHint(y))
	}
	if err := df.maxMem.check(plan.Bytes, fmt.Sprintf("training on %d rows of %d inputs", n,
		dim)); err != nil {
		return err
	}
	var prog *progress
	if !*quiet {
		noteSlowStart(stderr, n, dim, plan.Learning == ivm.Search)
		prog = newProgress(stderr, "ivm train")
		cfg.Progress = prog.report
	}
	x := data.X
	// Fit holds the inputs only until it has scaled them: on large files that frees their memory
	data = nil
	p, err := ivm.Fit(x, y, cfg)
	prog.finish()
	if err != nil {
		if big := largestTarget(y); big > 0 && big < tinyTargets {
			return tinyTargetsError(trainPath, big)
		}
		return fmt.Errorf("%s: %w%s", trainPath, err, hugeTargetsHint(y))
	}
	warnTrained(stderr, p)
	if err := run.save(p, &p.Training, n); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(run.summary, "%s: %s\n", modelPath, summary(p))
		run.printTrained(p.Training, dim)
	}
	return nil
}

// slowStartWork is the number of multiply-adds (rows² × inputs) past which the search's
// inner products, computed before its first progress report, take long enough to say so.
const slowStartWork = 5e9

// noteSlowStart says on stderr, before a long silence, that the first step works over
// every input of every pair of rows: a libsvm file with a few huge feature indices is held
// as a dense matrix that wide.
func noteSlowStart(stderr io.Writer, n, dim int, search bool) {
	if search && float64(n)*float64(n)*float64(dim) > slowStartWork {
		fmt.Fprintf(stderr, "ivm train: %d rows of %d inputs (held dense: %s): the kernel search first "+
			"computes the rows' inner products over every input, which takes a while\n",
			n, dim, formatBytes(8*int64(n)*int64(dim)))
	}
}

// warnTrained prints the warnings of a fitted predictor: Fit's own, and each model's
// jitter and ill-conditioning.
func warnTrained(stderr io.Writer, p *ivm.Predictor) {
	for _, w := range p.Warnings {
		fmt.Fprintf(stderr, "ivm train: warning: %s\n", w)
	}
	for _, sm := range p.Submodels() { // a part's own models only
		name := "the model"
		if sm.Name != "" {
			name = sm.Name + "'s model"
		}
		if m := sm.Model; m.Jitter != 0 {
			fmt.Fprintf(stderr,
				"ivm train: warning: jitter %g added to %s's active-set matrix to factorise it\n", m.Jitter,
				name)
		}
		if m := sm.Model; m.Condition != 0 {
			fmt.Fprintf(stderr,
				"ivm train: warning: %s's active-set matrix has condition number %.3g; predictions may be "+
					"inaccurate\n", name, m.Condition)
		}
	}
}

// taskFlagsRefused are the train flags the multi-task learner has no counterpart for, and
// why: given with -tasks they are refused rather than silently ignored.
var taskFlagsRefused = map[string]string{
	"bias":    "the starting bias of a single probit or ncnm model",
	"gamma":   "the null category model's split γ",
	"seed":    "it seeds the held-out subsets of the single-task learner",
	"heldout": "the multi-task learner's safeguard uses every inactive point",
	"refine":  "swap refinement is for single-task models",
	// The multi-task learner's problems are its tasks.
	"multiclass": "a multi-task model has one problem per task",
}

// refuseTaskFlags refuses a flag of taskFlagsRefused set on the command line with -tasks.
func refuseTaskFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if why, ok := taskFlagsRefused[f.Name]; ok && err == nil {
			err = fmt.Errorf("-%s is not available with -tasks (%s)", f.Name, why)
		}
		if f.Name == "objective" && f.Value.String() == "full" && err == nil {
			// The default (unset) means the multi-task learner's own, ep.
			err = errors.New(
				"-objective full is not available with -tasks (the multi-task learner has ep and fixed)")
		}
	})
	return err
}

// exactEnum parses a flag's value s into an enum and accepts it only when s is the
// value's own name or one of also: the enums' parsers also take upper case and surrounding
// space, which the flags never did.
func exactEnum[T fmt.Stringer](s string, parse func(string) (T, error), also ...string) (T, bool) {
	v, err := parse(s)
	return v, err == nil && (v.String() == s || slices.Contains(also, s))
}

// taskIters is -iters for the multi-task learner: -1 means the papers' 8.
func taskIters(iters int) int {
	if iters < 0 {
		return 8
	}
	return iters
}

// taskFor maps the -noise flag to a task.
func taskFor(name string) (ivm.Task, error) {
	switch name {
	case "auto":
		return ivm.TaskAuto, nil
	case "probit":
		return ivm.Binary, nil
	case "gaussian":
		return ivm.Regression, nil
	case "ordinal":
		return ivm.Ordinal, nil
	case "ncnm":
		return ivm.SemiSupervised, nil
	}
	return ivm.TaskAuto, fmt.Errorf("-noise %q: want auto, probit, gaussian, ordinal or ncnm", name)
}

// unlabelledZeros returns y with the libsvm convention for unlabelled rows, label 0, read
// as NaN (CSV's ? and empty labels are NaN already).
func unlabelledZeros(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v
		if v == 0 {
			out[i] = math.NaN()
		}
	}
	return out
}

// distinctLabels counts the distinct targets (NaN aside) and says whether all are integers.
func distinctLabels(y []float64) (int, bool) {
	seen := map[float64]bool{}
	integer := true
	for _, v := range y {
		if !math.IsNaN(v) {
			seen[v] = true
			integer = integer && v == math.Trunc(v)
		}
	}
	return len(seen), integer
}

// summary describes a predictor in one line.
func summary(p *ivm.Predictor) string {
	if p.Part.IsPart() {
		return partSummary(p)
	}
	if pairs := pairsOf(p); len(pairs) > 0 {
		blended := 0
		for _, pp := range pairs {
			if membersOf(pp) != nil {
				blended++
			}
		}
		sm := p.Submodels()[0]
		m, pp := sm.Model, sm.Pair
		s := fmt.Sprintf(
			"%v (%d one-vs-one pairs, probabilities coupled), %s noise; %s: kernel %s, %d active points",
			p.Task, len(pairs), m.Noise.Name(), sm.Name, m.Kernel, m.Size())
		if sc := calibrationOf(pp).scaler; sc != nil {
			s += fmt.Sprintf(", inputs scaled (%v)", sc.Kind)
		}
		if blended > 0 {
			s += fmt.Sprintf("; %d pairs blend the label regression with the probit model", blended)
		}
		return s
	}
	if members := membersOf(p); len(members) > 0 {
		var parts []string
		for _, sm := range p.Submodels() {
			parts = append(parts, fmt.Sprintf("%s: %s noise, kernel %s", sm.Name, sm.Model.Noise.Name(),
				sm.Model.Kernel))
		}
		first := p.Submodels()[0].Model
		s := fmt.Sprintf("%v, a blend of %d models (probabilities averaged; %s), %d active points each",
			p.Task, len(members), strings.Join(parts, "; "), first.Size())
		if sc := calibrationOf(members[0]).scaler; sc != nil {
			s += fmt.Sprintf(", inputs scaled (%v)", sc.Kind)
		}
		return s
	}
	if k, ok := p.Kind.(*ivm.ProjectedKind); ok {
		pr := k.Projected
		m, _ := pr.Centres.Dims()
		what := fmt.Sprintf("the %d classes' codes", len(p.Classes))
		if p.Task == ivm.Regression {
			what = "every row"
		}
		return fmt.Sprintf(
			"%v (projected: %s regressed through %d shared centres), kernel %s, λ %.3g, inputs scaled (%v)",
			p.Task, what, m, pr.Kernel, pr.Lambda, k.Scaler.Method())
	}
	models, _ := modelsOf(p)
	m := models[0]
	s := fmt.Sprintf("%v, %s noise, kernel %s, %d active points", p.Task, m.Noise.Name(), m.Kernel,
		m.Size())
	if len(models) > 1 {
		s = fmt.Sprintf(
			"%v (%d one-vs-rest models), %s noise, %d active points each; class %g's kernel %s",
			p.Task, len(models), m.Noise.Name(), m.Size(), p.Classes[0], m.Kernel)
	}
	if sc := calibrationOf(p).scaler; sc != nil {
		s += fmt.Sprintf(", inputs scaled (%v)", sc.Kind)
	}
	return s
}

// hugeTargets is where targets start to overflow learning, which works with their squares.
const hugeTargets = 1e150

// tinyTargets is where targets are too small to learn from: the kernel's variance, fitted
// to their squares, underflows to 0.
const tinyTargets = 1e-150

// largestTarget returns the largest magnitude of the labelled targets.
func largestTarget(y []float64) float64 {
	big := 0.0
	for _, v := range y {
		if !math.IsNaN(v) {
			big = math.Max(big, math.Abs(v))
		}
	}
	return big
}

// tinyTargetsError explains a training that failed on targets that are all tiny.
func tinyTargetsError(path string, big float64) error {
	return fmt.Errorf("%s: the targets are at most %.3g in magnitude and their squares underflow: "+
		"rescale the target column (multiply it by a power of ten)", path, big)
}

// checkTargetScale refuses, before a fit that would return infinite variances, targets so
// large that their squares overflow.
func checkTargetScale(path string, y []float64) error {
	if big := largestTarget(y); big >= hugeTargets {
		return fmt.Errorf(
			"%s: the targets reach %.3g and their squares overflow: rescale the target column "+
				"(divide it by a power of ten)", path, big)
	}
	return nil
}

// hugeTargetsHint is what to add to a training failure when the targets are so large that
// their squares overflow: the likely cause, and what to do.
func hugeTargetsHint(y []float64) string {
	big := 0.0
	for _, v := range y {
		if !math.IsNaN(v) {
			big = math.Max(big, math.Abs(v))
		}
	}
	if big < hugeTargets {
		return ""
	}
	return fmt.Sprintf(
		" (the targets reach %.3g and their squares overflow: rescale the target column, or keep the "+
			"kernel fixed with -iters 0)", big)
}

// fileSHA256 returns the hex SHA-256 of a file (model provenance).
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
