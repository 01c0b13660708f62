package multitask

import (
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/enum"
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
	// Objective is the kernel objective (default ObjectiveAuto: EPEvidence, the multi-task
	// papers').
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
func (n Noise) String() string { return enum.String("Noise", noiseNames, int(n)) }

// ParseNoise parses "auto" (or ""), "probit", "gaussian", "ordinal" or "ncnm".
func ParseNoise(s string) (Noise, error) {
	v, err := enum.Parse("multitask", "noise model", noiseNames, s)
	return Noise(v), err
}

// MarshalText lets a Noise appear by name in JSON.
func (n Noise) MarshalText() ([]byte, error) {
	return enum.Marshal("multitask", "Noise", noiseNames, int(n))
}

// UnmarshalText parses a noise model's name.
func (n *Noise) UnmarshalText(b []byte) error {
	v, err := ParseNoise(string(b))
	*n = v
	return err
}

// Transform names the map from positive kernel parameters to free ones: the engine's enum
// (engine.Transform), the same type as ivm.Config's. TransformAuto, the zero value, keeps
// the kernel spec's (softplus unless the spec says transform=exp).
type Transform = engine.Transform

// The transforms (see Transform).
const (
	TransformAuto     = engine.TransformAuto
	TransformSoftplus = engine.TransformSoftplus
	TransformExp      = engine.TransformExp
)

// ParseTransform parses "auto" (or ""), "softplus" or "exp".
func ParseTransform(s string) (Transform, error) { return engine.ParseTransform(s) }

// Criterion is the selection score setting: the engine's enum (engine.CriterionChoice), the
// same type as ivm.Config's. CriterionAuto, the zero value, is CriterionExpected for the
// probit model (robust to label noise) and CriterionEntropy otherwise.
type Criterion = engine.CriterionChoice

// The selection criteria (see Criterion).
const (
	CriterionAuto     = engine.CriterionAuto
	CriterionEntropy  = engine.CriterionEntropy
	CriterionExpected = engine.CriterionExpected
)

// ParseCriterion parses "auto" (or ""), "entropy" or "expected".
func ParseCriterion(s string) (Criterion, error) { return engine.ParseCriterionChoice(s) }

// selectionCriterion returns the engine criterion c stands for with noise model name nm.
func selectionCriterion(c Criterion, nm string) engine.Criterion {
	auto := engine.Entropy
	if nm == "probit" {
		auto = engine.ExpectedEntropy
	}
	return c.Resolve(auto)
}

// Optimizer names the optimiser of the kernel and noise steps: the engine's enum
// (engine.Optimizer), OptimizerSCG (the zero value, the papers') or OptimizerLBFGS.
type Optimizer = engine.Optimizer

// The optimisers (see Optimizer).
const (
	OptimizerSCG   = engine.OptimizerSCG
	OptimizerLBFGS = engine.OptimizerLBFGS
)

// ParseOptimizer parses "scg" (or "") or "lbfgs".
func ParseOptimizer(s string) (Optimizer, error) { return engine.ParseOptimizer(s) }
