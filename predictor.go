package ivm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
	"github.com/ivmlab/ivm/search"
)

// Task is what a Predictor learns to predict.
type Task int

const (
	// TaskAuto picks the task from the targets (see Fit).
	TaskAuto Task = iota
	// Binary is two-class classification with the probit noise model.
	Binary
	// MultiClass is classification into three or more classes by one-vs-rest binary
	// IVMs combined by the largest p(y=+1), the papers' USPS protocol.
	MultiClass
	// Regression is real-valued targets with Gaussian noise.
	Regression
	// Ordinal is ordered categories with the ordered-categorical noise model.
	Ordinal
	// SemiSupervised is two-class classification from labelled and unlabelled (NaN)
	// targets with the null category noise model.
	SemiSupervised
)

var taskNames = []string{"auto", "binary", "multiclass", "regression", "ordinal", "semisupervised"}

// String returns the name ParseTask accepts.
func (t Task) String() string {
	if t >= 0 && int(t) < len(taskNames) {
		return taskNames[t]
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// ParseTask parses a task name (as String writes it).
func ParseTask(s string) (Task, error) {
	for i, n := range taskNames {
		if s == n {
			return Task(i), nil
		}
	}
	return TaskAuto, fmt.Errorf("ivm: unknown task %q (want one of %v)", s, taskNames)
}

// MarshalText writes the task's name.
func (t Task) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses a task name.
func (t *Task) UnmarshalText(b []byte) error {
	v, err := ParseTask(string(b))
	*t = v
	return err
}

// noiseName is the noise model of a task's (binary) problems.
func (t Task) noiseName() string {
	switch t {
	case Regression:
		return "gaussian"
	case Ordinal:
		return "ordinal"
	case SemiSupervised:
		return "ncnm"
	}
	return "probit"
}

// maxAutoClasses is the most distinct integer targets TaskAuto reads as classes; more are
// taken as a numeric (regression) target, such as a count or a score.
const maxAutoClasses = 50

// Config configures Fit. The zero value learns with the defaults described there.
type Config struct {
	// Task is what to learn (default TaskAuto: from the targets). Binary asks for the probit
	// model: with TaskAuto a small binary task may instead regress its labels (labels.go).
	Task Task
	// Kernel is a kernel spec (kern.Parse); "" means DefaultKernel for the input dimension.
	Kernel string
	// ActiveSize is d (0: DefaultActiveSize); for a projected model (Decomposition
	// Projected) the number of centres (0: projected.Centres). A d above the number of
	// training points is reduced to it with a warning (Predictor.Warnings).
	ActiveSize int
	// Scale is the input scaling (default ScaleAuto, standardisation).
	Scale dataset.Scaling
	// FixedKernel skips parameter learning: one selection with the kernel as given.
	FixedKernel bool
	// Learning is how the kernel parameters are chosen (default LearnAuto: Search for
	// binary, multi-class and regression tasks with the default kernel family, Algorithm 2
	// otherwise or when Learn.Iters is set).
	Learning Learning
	// Transform is the transform of positive kernel parameters the optimiser sees:
	// TransformAuto (the zero value) keeps the kernel spec's, which is softplus (the
	// papers') unless the spec says transform=exp; TransformSoftplus and TransformExp (the
	// reference toolbox's) override it. The same enum as multitask.Config.Transform.
	Transform engine.Transform
	// Criterion is the selection score. CriterionAuto (the zero value) is not a score of
	// its own but lets Fit choose one (engine.Criterion): with the Search learning, the
	// search picks entropy or expected by held-out loss on binary and multi-class tasks and
	// uses entropy for regression; otherwise it is expected (engine.ExpectedEntropy) on
	// binary and multi-class problems (robust to label noise, bench/RESULTS.md) and entropy
	// (engine.Entropy) otherwise (it recovers the ordinal toy's structure more often).
	// CriterionEntropy and CriterionExpected fix the score. The same enum as
	// multitask.Config.Criterion.
	Criterion engine.CriterionChoice
	// ZeroBias starts the bias of the probit model (Binary, each one-vs-rest problem of
	// MultiClass) or of the null category model (SemiSupervised) at 0, as in the papers'
	// likelihoods, instead of at Φ⁻¹ of the positive fraction among the labelled points
	// (the reference toolbox's start). Noise iterations (Learn.NoiseIters) still learn it.
	// Other tasks: an error.
	ZeroBias bool
	// SplitGamma makes the null category model's γ₋ and γ₊ (the probabilities that a point
	// of class −1, +1 is unlabelled) two parameters instead of one shared (SemiSupervised
	// only). Both start at the unlabelled fraction; noise iterations learn them.
	SplitGamma bool
	// Learn holds Algorithm 2's settings (Iters: default 8, 15 for SemiSupervised as in the
	// extensions paper; KernelIters, NoiseIters, Objective,
	// HeldOut, Seed, Priors, LastIterate, Refine, Optimizer); its ActiveSize, Workers,
	// Criterion, Progress and Step are set by Fit.
	Learn engine.LearnOptions
	// Workers bounds the goroutines (0: all cores). Multi-class problems are trained
	// side by side, each with its share.
	Workers int
	// Progress, when set, receives progress reports. Fit serialises the calls.
	Progress func(Progress)
	// SearchTrace, when set, receives a line for every kernel the default search scores and
	// for each of its choices, for diagnosing what it chose (search.Options.Trace; the
	// command-line tool sends it to stderr where IVM_SEARCH_TRACE=1). One-vs-one pairs
	// search side by side and write to it at once.
	SearchTrace io.Writer
	// Decomposition is how a multi-class task is split into binary problems, or fitted as
	// one projected model (default DecomposeAuto: AutoDecomposition with the default
	// search, OneVsRest otherwise).
	// Other tasks ignore it.
	Decomposition Decomposition
	// Part, when set, fits only that slice of a multi-class task's binary problems (its
	// one-vs-rest classes or one-vs-one pairs: a partitioned training; see Part and
	// MergeParts). Zero: every problem. The projected model is one solve and has no
	// slices: with DecomposeAuto a partitioned training is one-vs-rest where it would be
	// projected.
	Part Part
	// labelsAlways takes a binary task's label regression whatever the scores (tests).
	labelsAlways bool
	// pair marks a one-vs-one pair's Fit (fitPairs): its Task is Binary, yet it may blend
	// the label regression with the probit model (never take the label regression alone).
	pair bool
}

// Progress reports Fit's progress on one of its binary problems.
type Progress struct {
	// Search counts the kernels the Search learning has scored so far (0: not searching);
	// SearchKernel is the last one scored (spec and criterion) and SearchScore its mean
	// held-out −ln p(y) per row.
	Search       int
	SearchKernel string
	SearchScore  float64
	// SearchPrior is the constant predictor's held-out −ln p(y) per row on the same rows
	// (the class frequencies; for regression the targets' mean and variance), the score a
	// kernel must beat; 0 where not measured.
	SearchPrior float64
	// Problem is the problem's index and Problems their number (the classes of a
	// one-vs-rest multi-class task, the pairs of a one-vs-one one, else 1); Class is the
	// problem's positive class (multi-class). A one-vs-one pair (Pair set) tells Class from
	// Against; its search reports come too.
	Problem, Problems int
	Class             float64
	Against           float64
	Pair              bool
	// Selection counts the selections this problem has started (Algorithm 2 runs one per
	// outer iteration and a final one; more when a step is halved), Selections the planned
	// number; Included and ActiveSize are the current selection's progress.
	Selection, Selections int
	Included, ActiveSize  int
	// Iters is the number of outer iterations of Algorithm 2 (0: fixed kernel).
	Iters int
	// Trace is set when an outer iteration ends.
	Trace *engine.IterTrace
	// Rows and RowsDone report a projected model's final fit (Decomposition Projected):
	// the training rows its system has taken in so far, of Rows; ActiveSize is then its
	// number of centres.
	Rows, RowsDone int
	// Done marks the problem's end.
	Done bool
}

// Predictor is a trained model as users meet it: the task, the class labels as they were
// in the training data, and its models with their input scaling and calibration, of one
// Kind (one IVM model, one per class for a one-vs-rest multi-class task, a binary
// Predictor per pair of classes for a one-vs-one one, a blend of binary predictors, or a
// projected model). It is what model files hold (Save, Load).
type Predictor struct {
	Task Task
	// Classes are the labels as in the training data: binary and semi-supervised [negative,
	// positive], multi-class and ordinal in ascending order; nil for regression.
	Classes []float64
	// Kind holds the models and how they predict: *SingleKind, *OneVsRestKind,
	// *OneVsOneKind, *BlendKind or *ProjectedKind.
	Kind Kind
	// Baseline holds the model's held-out log loss beside the constant predictor's where
	// Fit measured both (the default search); nil otherwise. Fit warns when the model does
	// not beat it.
	Baseline *calib.Baseline
	// Training records where the predictor came from.
	Training dataset.Provenance
	// Warnings are the adjustments Fit made to the configuration (not saved).
	Warnings []string
	// Part is the slice of a partitioned training this predictor holds (Config.Part; zero:
	// the whole model). Models outside it are nil; Save writes a part file.
	Part Part
}

// DefaultKernel is the kernel Fit uses when Config.Kernel is empty and Algorithm 2 learns
// it (see engine.DefaultKernel).
func DefaultKernel(dim int) string { return engine.DefaultKernel(dim) }

// DefaultActiveSize is the d Fit uses when Config.ActiveSize is 0 for n training rows and
// the given number of binary problems (one-vs-rest classes; 1 otherwise): every row when
// that costs little (problems·n³ ≤ 10⁹ flops, well under a second: a sparse model gains
// nothing there, and on small sets it throws labels away), else min(n, max(200, 8√n),
// 1250). A fixed d caps the accuracy on larger sets (measured on Fashion-MNIST, USPS and
// spambase in bench/RESULTS.md), and d growing as √n keeps selection's O(d²n) time growing
// only as n²; past 1 250 (n = 24 000) a class's d×n matrix and time grow too large for a
// 2-core, 2 GB budget.
func DefaultActiveSize(n, problems int) int {
	if float64(max(problems, 1))*math.Pow(float64(n), 3) <= 1e9 {
		return n
	}
	return min(n, max(200, int(math.Round(8*math.Sqrt(float64(n))))), 1250)
}

// searchFinalFlops bounds problems·n·d² of the final model SearchActiveSize grows: about
// 1.5 s of selection on two cores.
const searchFinalFlops = 1e10

// SearchActiveSize is the d of the final model when the default search chose the kernel and
// Config.ActiveSize is 0 (unless the search's held-out loss leaves nothing to gain: see
// search.FlatLoss): DefaultActiveSize (which the search scores its kernels at), grown to
// min(n, 12√n, 1250) and to the largest d with problems·n·d² ≤ 10¹⁰ where either is
// more. The search's cost grows with the d it scores at, the final model's only once; and a
// larger d brings the sparse model closer to the full GP, in its accuracy and most of all in
// its probabilities (measured on USPS, Fashion-MNIST and spambase in bench/RESULTS.md).
//
// Past candidatesPerActive·d rows the same selection time, problems·d²·n, is spent on a larger
// d chosen from fewer candidates: d' = ∛(d²·n/candidatesPerActive) active points of
// SearchCandidates(n, d') rows.
func SearchActiveSize(n, problems int) int {
	d := DefaultActiveSize(n, problems)
	grown := int(math.Sqrt(searchFinalFlops / float64(max(problems, 1)) / float64(max(n, 1))))
	root := min(1250, int(math.Round(12*math.Sqrt(float64(n)))))
	d = min(n, max(d, grown, root))
	if n <= candidatesPerActive*d {
		return d
	}
	return int(math.Cbrt(float64(d) * float64(d) * float64(n) / candidatesPerActive))
}

// candidatesPerActive is how many candidate rows per active point the default final selection keeps
// on large sets (SearchCandidates). Selection costs d²·N per class, and past about ten candidates
// per active point that time buys more as active points than as candidates (measured on
// Fashion-MNIST in bench/RESULTS.md, search for 87.64). A large pool also offers the greedy
// selection more rare, atypical rows to spend active points on.
const candidatesPerActive = 10

// SearchCandidates is how many of n training rows the default final selection of d active
// points chooses from: all of them up to candidatesPerActive·d, else that many, drawn at
// random (see SearchActiveSize).
func SearchCandidates(n, d int) int { return min(n, candidatesPerActive*max(d, 1)) }

// Fit trains a Predictor on the rows of x with targets y (NaN marks an unlabelled row,
// for SemiSupervised). With TaskAuto the task is: semi-supervised when some targets are
// NaN (the labelled ones must have two values); binary for two distinct values; regression
// when a target is not an integer; multi-class for 3 to 50 distinct integers; regression
// above that. By default d is DefaultActiveSize, and for binary, multi-class and
// regression tasks the kernel, the input scaling and the selection criterion are chosen by
// Search (see package search), whose final model has SearchActiveSize active points chosen from
// SearchCandidates rows. Where all of at most 700 rows are active, a regression task gets
// the exact GP's maximum-likelihood rbfard kernel instead (package exactgp), a binary task
// with TaskAuto the regression of its labels where that predicts left-out rows better
// (labels.go), and a multi-class task above 5 000 rows a projected model (projected.Model,
// AutoDecomposition). Other tasks, or a Kernel or Learn.Iters given, standardise the inputs and
// learn the kernel (DefaultKernel if none is given) by Algorithm 2.
func Fit(x mat.Matrix, y []float64, cfg Config) (*Predictor, error) {
	n, dim, err := checkTraining(x, y)
	if err != nil {
		return nil, err
	}
	task, classes, err := chooseTask(cfg.Task, y)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkTask(task); err != nil {
		return nil, err
	}
	p := &Predictor{Task: task, Classes: classes}
	search := !cfg.FixedKernel && cfg.resolveLearning(task) == Search
	switch dc := cfg.decomposition(n, len(classes), search); {
	case task == MultiClass && dc == OneVsOne:
		if err := p.fitPairs(x, y, cfg); err != nil {
			return nil, err
		}
		return p, nil
	case (task == MultiClass || task == Binary || task == Regression) && dc == Projected:
		if err := p.fitProjectedKind(x, y, &cfg); err != nil {
			return nil, err
		}
		return p, nil
	case dc == Projected:
		return nil,
			fmt.Errorf(
				"ivm: a projected model is for a binary, multi-class or regression task, not a %v one", task)
	}
	return p.fitModels(x, y, cfg, dim)
}

// checkTask refuses settings that do not fit the task.
func (cfg *Config) checkTask(task Task) error {
	if cfg.ZeroBias && task != Binary && task != MultiClass && task != SemiSupervised {
		return fmt.Errorf(
			"ivm: a zero bias start is for the probit and null category models, not a %s task", task)
	}
	if cfg.SplitGamma && task != SemiSupervised {
		return fmt.Errorf("ivm: split γ₋, γ₊ are for the null category model, not a %s task", task)
	}
	if cfg.Decomposition < DecomposeAuto || cfg.Decomposition > Projected {
		return fmt.Errorf("ivm: unknown multi-class decomposition %v", cfg.Decomposition)
	}
	return nil
}

// modelFit is a Predictor in the making on the paths of IVM models (one model,
// one-vs-rest, a blend): the predictor and the input scaling and calibration its kind will
// hold, which the search and the label regression choose before any model is fitted.
type modelFit struct {
	*Predictor
	calibration
	models []*engine.Model
	traces [][]engine.IterTrace
}

// predictor sets the predictor's kind to the fitted models' and returns it.
func (f *modelFit) predictor() *Predictor {
	f.Kind = newModelsKind(f.Task, f.models, f.traces, f.calibration)
	return f.Predictor
}

// selection is what the final selection of Fit's IVM models uses: the kernel spec, the
// criterion, the active set size d, the candidate rows (nil: all) and, for a blend, the
// label regression that is the probit model's partner.
type selection struct {
	spec      string
	criterion engine.Criterion
	d, dFinal int
	rows      []int
	partner   *labelMember
}

// fitModels fits p's IVM models (one model, one per class, or a blend) with the kernel
// given, learnt by Algorithm 2 or chosen by the search, and sets p's kind.
func (p *Predictor) fitModels(x mat.Matrix, y []float64, cfg Config, dim int) (*Predictor, error) {
	f := &modelFit{Predictor: p, calibration: calibration{Sharpness: 1}}
	var err error
	if f.Scaler, err = dataset.FitScaler(x, cfg.Scale); err != nil {
		return nil, err
	}
	sel, err := f.prepare(x, &cfg, dim)
	if err != nil {
		return nil, err
	}
	if !cfg.FixedKernel && cfg.resolveLearning(p.Task) == Search {
		if q, err := f.searchKernel(x, y, &cfg, sel); q != nil || err != nil {
			return q, err
		}
	}
	// One scaled copy of the inputs, made after the search: the search scales only the rows
	// it uses, so a large data set is never held in two scalings at once.
	var xs *mat.Dense
	if sel.rows != nil {
		xs, err = subset.Scaled(x, f.Scaler, sel.rows)
		y = subset.Of(y, sel.rows)
	} else {
		xs, err = f.Scaler.Apply(x)
	}
	if err != nil {
		return nil, err
	}
	if sel.partner != nil {
		if err := f.fitBlend(xs, y, &cfg, sel); err != nil {
			return nil, err
		}
		return p, nil
	}
	if err := f.fitProblems(xs, y, &cfg, sel.spec, sel.criterion, sel.d); err != nil {
		return nil, err
	}
	for _, m := range f.models {
		if m != nil && sel.rows != nil {
			for i, r := range m.Active {
				m.Active[i] = sel.rows[r] // provenance: the training row
			}
		}
	}
	return f.predictor(), nil
}

// prepare checks the kernel, the active set size, the criterion, the part and the learning
// before any work, and returns the selection they make before a search.
func (f *modelFit) prepare(x mat.Matrix, cfg *Config, dim int) (*selection, error) {
	task := f.Task
	spec, err := cfg.kernelSpec(task, dim)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	d, dFinal, err := f.activeSizes(cfg.ActiveSize, n)
	if err != nil {
		return nil, err
	}
	autoCrit := engine.Entropy
	if task == Binary || task == MultiClass {
		autoCrit = engine.ExpectedEntropy
	}
	if cfg.Criterion < engine.CriterionAuto || cfg.Criterion > engine.CriterionExpected {
		return nil, fmt.Errorf("ivm: unknown selection criterion %v", cfg.Criterion)
	}
	if err := cfg.Part.check(task, f.problems()); err != nil {
		return nil, err
	}
	if cfg.Learning == Search && (cfg.Kernel != "" || task == Ordinal || task == SemiSupervised) {
		return nil,
			fmt.Errorf(
				"ivm: the search learns rbf+bias+white kernels for binary, multi-class and regression tasks, "+
					"not a given kernel or a %s task; use Algorithm 2", task)
	}
	return &selection{spec: spec, criterion: cfg.Criterion.Resolve(autoCrit), d: d, dFinal: dFinal},
		nil
}

// kernelSpec returns the kernel spec Fit starts from (Config.Kernel, or DefaultKernel for
// dim inputs), checked with the transform before any work, and for a semi-supervised task
// sets the priors on the process variances unless Learn.Priors is given.
func (cfg *Config) kernelSpec(task Task, dim int) (string, error) {
	spec := cfg.Kernel
	if spec == "" {
		spec = DefaultKernel(dim)
	}
	k0, err := kern.Parse(spec, dim)
	if err != nil {
		return "", err
	}
	if task == SemiSupervised && cfg.Learn.Priors == nil {
		// The extensions paper's L1 penalty (an exponential prior) on the process
		// variances: unchecked, a large process variance makes the null region's width
		// negligible and the model a plain probit one.
		cfg.Learn.Priors = map[string]engine.Prior{}
		for _, name := range k0.FreeNames() {
			if strings.HasSuffix(name, ".variance") && !strings.HasPrefix(name, "white") {
				cfg.Learn.Priors[name] = engine.ExponentialPrior{Rate: 1}
			}
		}
	}
	return spec, cfg.Transform.Apply(k0)
}

// searchKernel chooses the kernel, scaling, criterion and calibration by the search and
// sets the final selection's (sel): the final d, its candidate rows, a binary task's label
// regression. It returns a projected predictor instead where widenToProjected makes one.
// The final selection uses the kernel found: cfg.FixedKernel is set.
func (f *modelFit) searchKernel(x mat.Matrix, y []float64, cfg *Config, sel *selection) (*Predictor,
	error) {
	spec, criterion, score, dFinal, err := f.search(x, y, cfg, sel.d, sel.dFinal, sel.criterion)
	if err != nil {
		return nil, err
	}
	if q, err := f.widenToProjected(x, y, *cfg); q != nil || err != nil {
		return q, err
	}
	n, _ := x.Dims()
	if cfg.labelRegression(f.Task, n, sel.d, score) {
		if spec, criterion, sel.partner, err = f.chooseLabels(x, y, cfg, score, spec,
			criterion); err != nil {
			return nil, err
		}
	}
	cfg.FixedKernel = true // the final selection, with the kernel found
	sel.spec, sel.criterion, sel.d = spec, criterion, dFinal
	if cfg.ActiveSize == 0 {
		sel.rows = candidateRows(n, SearchCandidates(n, sel.d), cfg.Learn.Seed)
	}
	return nil, nil
}

// widenToProjected returns, where the search's kernels did not beat the constant predictor
// on a classification task whose kind Fit chose (TaskAuto, a single model), a projected
// model of every row instead: its wider kernels and its least-squares fit of every label
// find weak, smooth effects that an active set chosen by information gain misses, and
// where it does not beat the constant predictor either it becomes that predictor. nil
// where the search's model stands.
func (p *Predictor) widenToProjected(x mat.Matrix, y []float64, cfg Config) (*Predictor, error) {
	n, _ := x.Dims()
	if p.Baseline == nil || p.Baseline.Beaten() || cfg.Task != TaskAuto || cfg.pair ||
		cfg.Part.IsPart() || p.Task != Binary && p.Task != MultiClass || n < 2*projected.MinRows {
		return nil, nil
	}
	q := &Predictor{Task: p.Task, Classes: p.Classes}
	if err := q.fitProjectedKind(x, y, &cfg); err != nil {
		return nil, err
	}
	if q.Baseline.Beaten() {
		q.Warnings = append(q.Warnings, "the search's kernels did not beat the constant predictor "+
			"on held-out rows; a projected model of every row did, and is the model")
	}
	return q, nil
}

// candidateRows returns, in ascending order, the pool of rows the final selection chooses
// from when it is smaller than all n rows (nil otherwise): a random subset, the same for
// every class and every part of a partitioned training.
func candidateRows(n, pool int, seed uint64) []int {
	if pool >= n {
		return nil
	}
	return subset.Random(n, pool, seed, 0xca9d1)
}

// ClassMemory bounds the memory that the classes Fit trains side by side may hold in their
// d×N selection matrices (8·N·d bytes each): past it, fewer classes train at once, each
// with more of the workers (selection parallelises over rows), so the time is about the
// same and a 60 000-row, d = 1 225 multi-class fit stays within 2 GB.
const ClassMemory = 1 << 30

// classesAtOnce is how many of problems binary problems Fit trains side by side with the
// given workers on n rows with d active points each (see ClassMemory).
func classesAtOnce(problems, workers, n, d int) int {
	return max(1, min(problems, workers, int(ClassMemory/(8*float64(n)*float64(max(d, 1))))))
}

// resolveLearning returns the learning Fit uses for task: LearnAuto is Search for binary,
// multi-class and regression tasks unless a kernel spec or Algorithm 2's outer iterations
// are given.
func (cfg *Config) resolveLearning(task Task) Learning {
	if cfg.Learning != LearnAuto {
		return cfg.Learning
	}
	if cfg.Kernel == "" && cfg.Learn.Iters == 0 && (task == Binary || task == MultiClass ||
		task == Regression) {
		return Search
	}
	return Algorithm2
}

// FitRows is Fit on inputs given as rows.
func FitRows(rows [][]float64, y []float64, cfg Config) (*Predictor, error) {
	x, err := denseRows(rows)
	if err != nil {
		return nil, err
	}
	return Fit(x, y, cfg)
}

func denseRows(rows [][]float64) (*mat.Dense, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, errors.New("ivm: no inputs")
	}
	dim := len(rows[0])
	x := mat.NewDense(len(rows), dim, nil)
	for i, r := range rows {
		if len(r) != dim {
			return nil, fmt.Errorf("ivm: row %d has %d values, row 1 has %d", i+1, len(r), dim)
		}
		x.SetRow(i, r)
	}
	return x, nil
}

// problem is one binary (or regression, ordinal, semi-supervised) training run of Fit.
type problem struct {
	index, count int
	class        float64
	y            []float64
	d            int
	spec         string
	transform    engine.Transform
	criterion    engine.Criterion
	workers      int
	cfg          *Config
	report       func(Progress)
	noise        string // the noise model's name
}

func (pb *problem) run(x *mat.Dense, task Task) (*engine.Model, []engine.IterTrace, error) {
	_, dim := x.Dims()
	k, err := kern.Parse(pb.spec, dim)
	if err != nil {
		return nil, nil, err
	}
	if err := pb.transform.Apply(k); err != nil {
		return nil, nil, err
	}
	nm, err := noise.ByName(pb.noise)
	if err != nil {
		return nil, nil, err
	}
	switch m := nm.(type) {
	case *noise.Probit:
		m.ZeroBias = pb.cfg.ZeroBias
	case *noise.NullCategory:
		m.ZeroBias, m.Split = pb.cfg.ZeroBias, pb.cfg.SplitGamma
	case *noise.Gaussian:
		if v := stat.Variance(pb.y, nil); task == Regression && v > 0 {
			// The default noise variance, 10⁻⁶, is for targets of unit scale: against the
			// prior variance of targets in the millions (prices in dollars) it vanishes in
			// rounding, an included point's posterior variance comes out 0 and selection
			// stops with a numerical breakdown. So it scales with the targets' variance
			// (here, not in noise.Gaussian, whose default is the reference toolbox's).
			m.Variance = noise.GaussianVariance * v
		}
	}
	pr := Progress{Problem: pb.index, Problems: pb.count, Class: pb.class, ActiveSize: pb.d,
		Selections: 1}
	step := func(size int) {
		if size == 1 {
			pr.Selection++
		}
		pr.Included = size
		pb.report(pr)
	}
	if pb.cfg.FixedKernel {
		s, err := engine.NewSelector(
			x,
			pb.y,
			k,
			nm,
			engine.Options{Workers: pb.workers, Criterion: pb.criterion,
				Step: step},
		)
		if err != nil {
			return nil, nil, err
		}
		if err := search.SelectActive(s, pb.d); err != nil {
			return nil, nil, err
		}
		m, err := s.Model()
		pr.Done = true
		pb.report(pr)
		return m, nil, err
	}
	lo := pb.cfg.Learn
	lo.ActiveSize, lo.Workers, lo.Criterion, lo.Step = pb.d, pb.workers, pb.criterion, step
	iters := lo.Iters
	if iters == 0 {
		iters = 8
		if task == SemiSupervised {
			iters = 15 // the extensions paper's setting for the null category model
		}
		lo.Iters = iters
	}
	pr.Selections, pr.Iters = iters+1, iters
	if lo.NoiseIters > 0 {
		pr.Selections += iters
	}
	lo.Progress = func(tr engine.IterTrace) {
		t := tr
		pr.Trace = &t
		pb.report(pr)
		pr.Trace = nil
	}
	m, res, err := engine.Learn(x, pb.y, k, nm, lo)
	if err != nil {
		return nil, nil, err
	}
	pr.Done = true
	pb.report(pr)
	return m, res.Trace, nil
}

// chooseTask checks the targets against the task (picking it for TaskAuto) and returns
// the class labels.
func chooseTask(task Task, y []float64) (Task, []float64, error) {
	distinct := map[float64]bool{}
	integer, unlabelled := true, 0
	for i, v := range y {
		switch {
		case math.IsNaN(v):
			unlabelled++
			continue
		case math.IsInf(v, 0):
			return task, nil, fmt.Errorf("ivm: target %d is %v", i+1, v)
		}
		distinct[v] = true
		if v != math.Trunc(v) {
			integer = false
		}
	}
	labels := make([]float64, 0, len(distinct))
	for v := range distinct {
		labels = append(labels, v)
	}
	slices.Sort(labels)
	if task == TaskAuto {
		switch {
		case unlabelled > 0:
			task = SemiSupervised
		case len(labels) == 2:
			task = Binary
		case !integer || len(labels) > maxAutoClasses:
			task = Regression
		case len(labels) == 1:
			return task, nil, fmt.Errorf("ivm: every target is %g: a single class cannot be learnt",
				labels[0])
		default:
			task = MultiClass
		}
	}
	if unlabelled > 0 && task != SemiSupervised {
		return task, nil,
			fmt.Errorf("ivm: %d unlabelled targets; only the semi-supervised task uses unlabelled rows",
				unlabelled)
	}
	switch task {
	case Binary, SemiSupervised:
		if len(labels) != 2 {
			return task, nil, fmt.Errorf("ivm: %v needs two distinct labels, found %d", task, len(labels))
		}
		return task, labels, nil
	case MultiClass:
		if len(labels) < 2 {
			return task, nil, fmt.Errorf("ivm: multi-class needs at least two classes, found %d",
				len(labels))
		}
		if len(labels) == 2 {
			task = Binary
		}
		return task, labels, nil
	case Ordinal:
		if !integer {
			return task, nil, errors.New("ivm: ordinal targets must be integers (ordered categories)")
		}
		if len(labels) < 2 {
			return task, nil, fmt.Errorf("ivm: ordinal needs at least two categories, found %d", len(labels))
		}
		return task, labels, nil
	case Regression:
		if len(labels) < 2 {
			return task, nil, errors.New("ivm: every target is the same: nothing to regress")
		}
		return task, nil, nil
	}
	return task, nil, fmt.Errorf("ivm: unknown task %v", task)
}

// codeTargets returns problem c's targets in its noise model's coding: ±1 for binary
// problems (class c against the rest for multi-class), 0 for unlabelled rows, category
// ranks 0…C−1 for ordinal, and the targets themselves for regression.
func codeTargets(task Task, classes, y []float64, c int) ([]float64, float64) {
	if task == Regression {
		return y, math.NaN()
	}
	out := make([]float64, len(y))
	pos := classes[len(classes)-1]
	if task == MultiClass {
		pos = classes[c]
	}
	for i, v := range y {
		switch {
		case math.IsNaN(v):
			out[i] = 0
		case task == Ordinal:
			r, _ := slices.BinarySearch(classes, v)
			out[i] = float64(r)
		case v == pos:
			out[i] = 1
		default:
			out[i] = -1
		}
	}
	return out, pos
}

// InputDim is the number of inputs the predictor expects.
func (p *Predictor) InputDim() int {
	if p.Kind == nil {
		return 0
	}
	return p.Kind.InputDim()
}

// Predict predicts the rows of x (see noise.Prediction for what each field holds).
func (p *Predictor) Predict(x mat.Matrix) ([]noise.Prediction, error) {
	if err := p.checkInputs(x); err != nil {
		return nil, err
	}
	return p.Kind.predict(p, x)
}

// checkInputs refuses what no prediction can use: a part's predictor, a predictor without
// models, rows of another width than the model's inputs, values that are not finite.
func (p *Predictor) checkInputs(x mat.Matrix) error {
	if p.Part.IsPart() {
		return errPartFile("part " + p.Part.String())
	}
	if _, dim := x.Dims(); dim != p.InputDim() {
		return fmt.Errorf("ivm: %d input columns, the model has %d", dim, p.InputDim())
	}
	if err := engine.CheckFinite(x); err != nil {
		return err
	}
	if p.Kind == nil {
		return errors.New("ivm: a predictor without models cannot predict")
	}
	return nil
}

// PredictLabels is Predict without the latent variances, whose triangular solves are most of
// a large model's prediction time (d² flops per row and model, against d for the mean): each
// prediction holds Label, Mean and Latent alone (Prob, Var and LatentVar nil or 0), as
// svm-predict without -b gives labels alone. Binary and regression labels are Predict's (the
// sign of the latent mean, the predictive mean). A one-vs-rest label is the class of the
// largest latent mean (bias included), which can differ from Predict's where classes are
// nearly tied; a one-vs-one label is the class with the most pairs' votes, ties to the first,
// as svm-predict's. Ordinal and semi-supervised labels need the variances, and a blend's its
// members' probabilities: those get Predict's.
func (p *Predictor) PredictLabels(x mat.Matrix) ([]noise.Prediction, error) {
	if err := p.checkInputs(x); err != nil {
		return nil, err
	}
	return p.Kind.predictLabels(p, x)
}

// PredictRows is Predict on inputs given as rows.
func (p *Predictor) PredictRows(rows [][]float64) ([]noise.Prediction, error) {
	x, err := denseRows(rows)
	if err != nil {
		return nil, err
	}
	return p.Predict(x)
}

// checkTraining checks the training inputs and targets before anything is fitted.
func checkTraining(x mat.Matrix, y []float64) (n, dim int, err error) {
	if x == nil {
		return 0, 0, errors.New("ivm: no inputs")
	}
	n, dim = x.Dims()
	if n == 0 {
		return 0, 0, errors.New("ivm: no training points")
	}
	if len(y) != n {
		return 0, 0, fmt.Errorf("ivm: %d targets for %d input rows", len(y), n)
	}
	return n, dim, engine.CheckFinite(x)
}

// activeSizes returns the d the search scores kernels at and the d of the final model for
// Config.ActiveSize d of n rows (0: DefaultActiveSize and SearchActiveSize).
func (p *modelFit) activeSizes(d, n int) (dSearch, dFinal int, err error) {
	switch {
	case d < 0:
		return 0, 0, fmt.Errorf("ivm: active set size %d", d)
	case d == 0:
		return DefaultActiveSize(n, p.problems()), SearchActiveSize(n, p.problems()), nil
	case d > n:
		p.Warnings = append(p.Warnings,
			fmt.Sprintf("active set size %d exceeds the %d training points; using d = %d", d, n, n))
		return n, n, nil
	}
	return d, d, nil
}

// search chooses the kernel, the input scaling, the criterion and the calibration by the
// held-out search (package search) and sets p's scaler, sharpness and label noise.
// The score is the chosen kernel's held-out −ln p(y) per row, dFinal the final model's
// active set size (see search.Result).
func (p *modelFit) search(x mat.Matrix, y []float64, cfg *Config, d, dFinal int,
	criterion engine.Criterion) (string, engine.Criterion, float64, int, error) {
	task, problems := p.Task, p.problems()
	auto := cfg.Criterion == engine.CriterionAuto
	if auto && task == Regression {
		criterion = engine.Entropy
	}
	before := 0 // evaluations reported before the search's own (the relevance fit's)
	report := func(r search.Report) {
		if cfg.Progress != nil {
			cfg.Progress(Progress{Problems: problems, Search: before + r.Evals, SearchKernel: r.Kernel,
				SearchScore: r.Score, SearchPrior: r.Prior})
		}
	}
	if n, dim := x.Dims(); task == Regression && d == n && n <= exactgp.MaxRows && dim > 0 {
		spec, crit, score, err := p.searchExact(x, y, cfg)
		return spec, crit, score, dFinal, err
	}
	scalers := []*dataset.Scaler{p.Scaler}
	if cfg.Scale == dataset.ScaleAuto {
		mm, err := dataset.FitScaler(x, dataset.ScaleMinMax)
		if err != nil {
			return "", 0, 0, 0, err
		}
		scalers = append(scalers, mm)
		if _, dim := x.Dims(); task == Regression && dim > 1 {
			// A candidate only: where its fit fails the others remain.
			if rel, pr, err := exactgp.RelevanceScaler(x, y, p.Scaler, cfg.Learn.Seed); err == nil {
				scalers = append(scalers, rel)
				report(pr)
				before = pr.Evals
			}
		}
	}
	res, err := search.Kernel(x, scalers, y,
		search.Task{Regression: task == Regression, Classes: p.Classes}, d, dFinal,
		search.Options{Seed: cfg.Learn.Seed, Workers: cfg.Workers, ZeroBias: cfg.ZeroBias,
			Criterion: criterion, ChooseCriterion: auto && task != Regression,
			ActiveSizeGiven: cfg.ActiveSize != 0, Candidates: SearchCandidates,
			Trace: cfg.SearchTrace, Progress: report})
	if err != nil {
		return "", 0, 0, 0, err
	}
	p.Scaler = res.Scaler
	p.Sharpness, p.LabelNoise, p.Softmax = res.Sharpness, res.LabelNoise, res.Softmax
	if p.Baseline = res.Baseline; !p.Baseline.Beaten() {
		p.Warnings = append(p.Warnings, p.Baseline.Warning())
	}
	return res.Spec, res.Criterion, res.Score, res.ActiveSize, nil
}

// labelMember is a binary task's label regression to be fitted with its kernel spec.
type labelMember struct {
	p    *modelFit
	spec string
}

// chooseLabels fits a binary task's label regression (labels.go) on the inputs as the search
// scaled them and compares its leave-one-out log loss with probit, the held-out log loss of
// the probit search's kernel (both at the least label noise). Taken alone, it sets p's
// logistic map, label noise and sharpness and returns its kernel spec and the entropy
// criterion (every row is active: the criterion orders them only); blended with the probit
// model (blend.go), it returns spec and criterion as they were, for the probit member, and
// the label regression as the partner; else spec and criterion alone.
func (p *modelFit) chooseLabels(x mat.Matrix, y []float64, cfg *Config, probit float64,
	spec string, criterion engine.Criterion) (string, engine.Criterion, *labelMember, error) {
	yc, _ := codeTargets(Binary, p.Classes, y, 0)
	res, err := exactgp.FitLabels(x, p.Scaler, yc)
	if errors.Is(err, calib.ErrNoLogistic) {
		return spec, criterion, nil, nil
	}
	if err != nil {
		return "", 0, nil, err
	}
	decision := "the probit model kept"
	alone := cfg.labelsAlways || (res.LOOLoss < probit && !cfg.pair)
	blend := !cfg.labelsAlways && blendable(res.LOOLoss, probit) && !cfg.Part.IsPart()
	switch {
	case blend:
		decision = "blended with the probit model"
	case alone:
		decision = "taken"
	}
	if cfg.Progress != nil {
		cfg.Progress(Progress{Problems: 1, Search: res.Evals,
			SearchKernel: fmt.Sprintf(
				"%s, the labels regressed, scored leaving one row out (the probit search's kernel: %.4f; %s)",
				res.Spec, probit, decision), SearchScore: res.LOOLoss})
	}
	switch {
	case blend:
		labels := &modelFit{Predictor: &Predictor{Task: Binary, Classes: p.Classes},
			calibration: calibration{Scaler: p.Scaler, Sharpness: 1, LabelNoise: res.LabelNoise,
				Logistic: &res.Logistic}}
		return spec, criterion, &labelMember{p: labels, spec: res.Spec}, nil
	case alone:
		p.Logistic, p.LabelNoise, p.Sharpness = &res.Logistic, res.LabelNoise, 1
		return res.Spec, engine.Entropy, nil, nil
	}
	return spec, criterion, nil, nil
}

// searchExact is search for a regression task whose rows are all active: the exact GP's
// marginal likelihood chooses the kernel, with a length scale per input (package exactgp), on
// inputs scaled by p.Scaler. Its one progress report counts the likelihood's evaluations
// and scores the leave-one-out predictions.
func (p *modelFit) searchExact(
	x mat.Matrix,
	y []float64,
	cfg *Config,
) (string, engine.Criterion, float64,
	error) {
	n, _ := x.Dims()
	if err := search.CheckRows(n); err != nil {
		return "", 0, 0, err
	}
	xs, err := p.Scaler.Apply(x)
	if err != nil {
		return "", 0, 0, err
	}
	res, err := exactgp.Regression(xs, y)
	if err != nil {
		return "", 0, 0, err
	}
	if cfg.Progress != nil {
		cfg.Progress(Progress{Problems: 1, Search: res.Evals,
			SearchKernel: res.Spec + ", by the marginal likelihood, scored leaving one row out",
			SearchScore:  res.LOOLoss})
	}
	p.Sharpness = res.Sharpness
	return res.Spec, engine.Entropy, res.LOOLoss, nil
}

// fitProblems fits p's binary problems (one per class for multi-class, or only a
// partitioned training's slice of them) on the scaled inputs xs with the kernel spec.
func (p *modelFit) fitProblems(xs *mat.Dense, y []float64, cfg *Config, spec string,
	criterion engine.Criterion, d int) error {
	// A partitioned training dispatches only its slice of the problems. Everything above
	// (task, classes, scaling, the kernel search, d, sharpness) and anything else shared by
	// all classes must be computed from the whole data in every part, so that the merged
	// parts are the single run's model; the per-class results do not depend on the workers
	// a job gets.
	n, _ := xs.Dims()
	problems, task, classes := p.problems(), p.Task, p.Classes
	first, last := cfg.Part.Range(problems)
	p.Part = cfg.Part
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel := classesAtOnce(last-first, workers, n, d)
	var mu sync.Mutex
	report := func(pr Progress) {
		if cfg.Progress != nil {
			mu.Lock()
			defer mu.Unlock()
			cfg.Progress(pr)
		}
	}
	p.models = make([]*engine.Model, problems)
	p.traces = make([][]engine.IterTrace, problems)
	errs := make([]error, problems)
	pool.ForEach(last-first, parallel, func(i int) {
		c := first + i
		job := problem{index: c, count: problems, d: d, spec: spec, transform: cfg.Transform,
			criterion: criterion,
			workers:   max(1, workers/parallel), cfg: cfg, report: report, noise: p.noiseName(p.Task)}
		job.y, job.class = codeTargets(task, classes, y, c)
		p.models[c], p.traces[c], errs[c] = job.run(xs, task)
	})
	for c, err := range errs {
		if err != nil {
			if problems > 1 {
				return fmt.Errorf("ivm: class %g against the rest: %w", classes[c], err)
			}
			return err
		}
	}
	return nil
}
