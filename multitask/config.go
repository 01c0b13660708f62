package multitask

import (
	"fmt"
	"strings"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/optimize"
)

// Config configures Fit. The zero value is the documented default of every field: the
// noise model chosen from the labels, the default kernel for the input dimension with its
// parameters learnt by Algorithm 2 (8 outer iterations of at most 100 SCG steps on the EP
// objective, with the held-out safeguard), min(N, 200) active points over all tasks and the
// inputs as they are.
type Config struct {
	// Noise is every task's noise model (each task gets its own instance). NoiseAuto picks
	// probit for two distinct labels and Gaussian for targets that are not all integers;
	// other integer targets are an error that asks for NoiseOrdinal or NoiseGaussian.
	Noise Noise
	// Kernel is the shared kernel (kern.Parse syntax); "" is engine.DefaultKernel of the input
	// dimension.
	Kernel string
	// Transform maps the kernel's positive parameters to the optimiser's free ones;
	// TransformAuto keeps the kernel spec's (softplus unless the spec says otherwise).
	Transform Transform
	// Scaling scales the inputs (fitted on the training rows, stored in the model, applied
	// by Predict). dataset.ScaleAuto is dataset.ScaleNone for this family: the multi-task
	// protocols state kernel parameters in the data's own units.
	Scaling dataset.Scaling
	// ActiveSize is d, the active points over all tasks (0: DefaultActiveSize); a d above
	// the number of labelled and unlabelled rows is reduced to it.
	ActiveSize int
	// FixedKernel keeps the kernel's parameters as given: one selection of d points, no
	// learning (Iters, KernelIters, NoiseIters, Objective, Optimizer and LastIterate are
	// then unused).
	FixedKernel bool
	// Iters is the number of outer iterations of Algorithm 2 (0: 8, the papers');
	// KernelIters bounds the optimiser's steps on the kernel per outer iteration (0: 100;
	// negative: none); NoiseIters > 0 adds the noise step with the noise parameters tied
	// across tasks (LearnOptions.NoiseIters).
	Iters, KernelIters, NoiseIters int
	// Objective is the kernel objective (default EPEvidence).
	Objective Objective
	// Criterion is the selection score; CriterionAuto is expected entropy reduction for
	// the probit model (robust to label noise), entropy reduction otherwise.
	Criterion Criterion
	// Optimizer is the optimiser of the kernel and noise steps (default SCG, the papers').
	Optimizer Optimizer
	// LastIterate accepts every outer iteration, as the papers do, instead of keeping an
	// iteration only if it predicts the inactive training points about as well as the best.
	LastIterate bool
	// Workers bounds the goroutines (0: all cores).
	Workers int
	// Progress, when set, is called after every outer iteration and for the final
	// selection.
	Progress func(Progress) `json:"-"`
}

// Progress reports one outer iteration of Fit's learning (or, Final, the returned model).
type Progress struct {
	IterTrace
	// Iters is the number of outer iterations Fit runs at most; Kernel the shared kernel
	// with its current parameters.
	Iters  int
	Kernel string
}

// DefaultActiveSize is the active set size Fit uses for N training rows when
// Config.ActiveSize is 0: every outer iteration costs O(d³) per objective evaluation, so at
// most the papers' 200.
func DefaultActiveSize(n int) int { return min(n, 200) }

// Noise names the tasks' noise model.
type Noise int

const (
	// NoiseAuto chooses from the labels (see Config.Noise).
	NoiseAuto Noise = iota
	// NoiseProbit is binary classification; the two labels may be any numbers.
	NoiseProbit
	// NoiseGaussian is regression.
	NoiseGaussian
	// NoiseOrdinal is ordinal regression on the categories 0, 1, …
	NoiseOrdinal
	// NoiseNCNM is the null category noise model: labels −1 and +1, NaN for an unlabelled
	// row.
	NoiseNCNM
)

var noiseNames = []string{"auto", "probit", "gaussian", "ordinal", "ncnm"}

// String returns the name ParseNoise accepts.
func (n Noise) String() string { return enumString("Noise", noiseNames, int(n)) }

// ParseNoise parses "auto" (or ""), "probit", "gaussian", "ordinal" or "ncnm".
func ParseNoise(s string) (Noise, error) {
	v, err := parseEnum("noise model", noiseNames, s)
	return Noise(v), err
}

// MarshalText lets a Noise appear by name in JSON.
func (n Noise) MarshalText() ([]byte, error) { return marshalEnum("Noise", noiseNames, int(n)) }

// UnmarshalText parses a noise model's name.
func (n *Noise) UnmarshalText(b []byte) error {
	v, err := ParseNoise(string(b))
	*n = v
	return err
}

// Transform names the map from positive kernel parameters to free ones.
type Transform int

const (
	// TransformAuto keeps the kernel spec's transform.
	TransformAuto Transform = iota
	// TransformSoftplus is ln(eˣ − 1), the papers'.
	TransformSoftplus
	// TransformExp is ln x, the reference toolbox's.
	TransformExp
)

var transformNames = []string{"auto", "softplus", "exp"}

// String returns the name ParseTransform accepts.
func (t Transform) String() string { return enumString("Transform", transformNames, int(t)) }

// ParseTransform parses "auto" (or ""), "softplus" or "exp".
func ParseTransform(s string) (Transform, error) {
	v, err := parseEnum("transform", transformNames, s)
	return Transform(v), err
}

// MarshalText lets a Transform appear by name in JSON.
func (t Transform) MarshalText() ([]byte, error) {
	return marshalEnum("Transform", transformNames, int(t))
}

// UnmarshalText parses a transform's name.
func (t *Transform) UnmarshalText(b []byte) error {
	v, err := ParseTransform(string(b))
	*t = v
	return err
}

// Criterion names the selection score.
type Criterion int

const (
	// CriterionAuto is CriterionExpected for the probit model, CriterionEntropy otherwise.
	CriterionAuto Criterion = iota
	// CriterionEntropy is the entropy reduction of the observed label (engine.Entropy).
	CriterionEntropy
	// CriterionExpected is the entropy reduction averaged over the possible labels
	// (engine.ExpectedEntropy).
	CriterionExpected
)

var criterionNames = []string{"auto", "entropy", "expected"}

// String returns the name ParseCriterion accepts.
func (c Criterion) String() string { return enumString("Criterion", criterionNames, int(c)) }

// ParseCriterion parses "auto" (or ""), "entropy" or "expected".
func ParseCriterion(s string) (Criterion, error) {
	v, err := parseEnum("selection criterion", criterionNames, s)
	return Criterion(v), err
}

// MarshalText lets a Criterion appear by name in JSON.
func (c Criterion) MarshalText() ([]byte, error) {
	return marshalEnum("Criterion", criterionNames, int(c))
}

// UnmarshalText parses a criterion's name.
func (c *Criterion) UnmarshalText(b []byte) error {
	v, err := ParseCriterion(string(b))
	*c = v
	return err
}

// engine returns the ivm criterion c stands for with noise model name nm.
func (c Criterion) engine(nm string) engine.Criterion {
	if c == CriterionExpected || (c == CriterionAuto && nm == "probit") {
		return engine.ExpectedEntropy
	}
	return engine.Entropy
}

// Optimizer names the optimiser of the kernel and noise steps.
type Optimizer int

const (
	// OptimizerSCG is scaled conjugate gradients (the papers').
	OptimizerSCG Optimizer = iota
	// OptimizerLBFGS is gonum's L-BFGS.
	OptimizerLBFGS
)

var optimizerNames = []string{optimize.MethodSCG, optimize.MethodLBFGS}

// String returns the name ParseOptimizer accepts.
func (o Optimizer) String() string { return enumString("Optimizer", optimizerNames, int(o)) }

// ParseOptimizer parses "scg" (or "") or "lbfgs".
func ParseOptimizer(s string) (Optimizer, error) {
	if strings.TrimSpace(s) == "" {
		return OptimizerSCG, nil
	}
	v, err := parseEnum("optimizer", optimizerNames, s)
	return Optimizer(v), err
}

// MarshalText lets an Optimizer appear by name in JSON.
func (o Optimizer) MarshalText() ([]byte, error) {
	return marshalEnum("Optimizer", optimizerNames, int(o))
}

// UnmarshalText parses an optimiser's name.
func (o *Optimizer) UnmarshalText(b []byte) error {
	v, err := ParseOptimizer(string(b))
	*o = v
	return err
}

// MarshalText lets an Objective appear by name in JSON.
func (o Objective) MarshalText() ([]byte, error) {
	if o != EPEvidence && o != FixedSites {
		return nil, fmt.Errorf("multitask: Objective(%d) has no name", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText parses an objective's name.
func (o *Objective) UnmarshalText(b []byte) error {
	v, err := ParseObjective(string(b))
	*o = v
	return err
}

// enumString returns names[v], or Type(v) for a value without a name.
func enumString(typ string, names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// marshalEnum returns names[v], refusing a value without a name (it would not read back).
func marshalEnum(typ string, names []string, v int) ([]byte, error) {
	if v < 0 || v >= len(names) {
		return nil, fmt.Errorf("multitask: %s(%d) has no name", typ, v)
	}
	return []byte(names[v]), nil
}

// parseEnum returns the index of s in names; "" is the first (the zero value).
func parseEnum(what string, names []string, s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, nil
	}
	for i, n := range names {
		if s == n {
			return i, nil
		}
	}
	return 0, fmt.Errorf("multitask: unknown %s %q (want %s)", what, s, strings.Join(names, ", "))
}
