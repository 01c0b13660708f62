package ivm

import (
	"fmt"
	"io"
	"strings"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/enum"
	"github.com/ivmlab/ivm/kern"
)

// Config's option enums follow one convention across the model families: a typed int whose
// zero value is the documented default, String and ParseX for the CLI's spellings, and
// MarshalText/UnmarshalText so that a configuration reads and writes by name in JSON. Task
// and Learning are this package's; Scaling is package dataset's; Criterion (as
// CriterionChoice), Transform, Optimizer and Objective are package engine's, shared with
// multitask.

// Learning says how Fit chooses the kernel parameters.
type Learning int

const (
	// LearnAuto is Search for binary, multi-class and regression tasks, and Algorithm 2
	// for ordinal and semi-supervised ones.
	LearnAuto Learning = iota
	// Search picks one kernel for all of a task's problems by the predictive log
	// likelihood of held-out rows (see package search); for a regression task whose rows
	// are all active (at most 700), the exact GP's marginal likelihood picks an rbfard
	// kernel instead (package exactgp).
	Search
	// Algorithm2 is the papers' Algorithm 2 (Learn) on each problem, set by Config.Learn.
	Algorithm2
)

var learningNames = []string{"auto", "search", "alg2"}

// String returns the name ParseLearning accepts.
func (l Learning) String() string { return enum.String("Learning", learningNames, int(l)) }

// ParseLearning parses "auto" (or ""), "search" or "alg2".
func ParseLearning(s string) (Learning, error) {
	v, err := enum.Parse("ivm", "learning", learningNames, s)
	return Learning(v), err
}

// MarshalText lets a Learning appear by name in JSON.
func (l Learning) MarshalText() ([]byte, error) {
	return enum.Marshal("ivm", "Learning", learningNames, int(l))
}

// UnmarshalText parses a learning's name.
func (l *Learning) UnmarshalText(b []byte) error {
	v, err := ParseLearning(string(b))
	*l = v
	return err
}

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

// checkTask refuses settings that do not fit the task.
func (cfg *Config) checkTask(task Task) error {
	if cfg.ZeroBias && task != Binary && task != MultiClass && task != SemiSupervised {
		return fmt.Errorf("ivm: a zero bias start is for the probit and null category models, "+
			"not a %s task", task)
	}
	if cfg.SplitGamma && task != SemiSupervised {
		return fmt.Errorf("ivm: split γ₋, γ₊ are for the null category model, "+
			"not a %s task", task)
	}
	if cfg.Decomposition < DecomposeAuto || cfg.Decomposition > Projected {
		return fmt.Errorf("ivm: unknown multi-class decomposition %v", cfg.Decomposition)
	}
	return nil
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
