package ssmtr

import (
	"fmt"
	"strings"

	"github.com/ivmlab/ivm/dataset"
)

// Method is one of the paper's four regressors.
type Method int

const (
	// SSTR is supervised single-task regression: an independent GP per task, each with its
	// own kernel parameters and noise level learnt by maximum marginal likelihood (ML-II).
	SSTR Method = iota
	// SMTR is supervised multi-task regression (paper §2): per-task kernel parameters under
	// a common Gaussian prior, a shared noise level.
	SMTR
	// SSMTR adds the unlabelled points through the data-dependent kernel of eq. 6 (§3).
	SSMTR
	// SSMTRPI adds pairwise (and quadruple) constraints with a probit likelihood, by the
	// Laplace approximation (§4).
	SSMTRPI
)

var methodNames = []string{"SSTR", "SMTR", "SSMTR", "SSMTRPI"}

// String returns the paper's name of the method.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses a method name, ignoring case.
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if strings.EqualFold(s, n) {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("ssmtr: unknown method %q (want sstr, smtr, ssmtr or ssmtrpi)", s)
}

// MarshalText writes the method's name (lower case, as the command line takes it).
func (m Method) MarshalText() ([]byte, error) {
	if m < SSTR || m > SSMTRPI {
		return nil, fmt.Errorf("ssmtr: unknown method %d", int(m))
	}
	return []byte(strings.ToLower(m.String())), nil
}

// UnmarshalText parses a method name.
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// graph reports whether the method uses the unlabelled points' graph.
func (m Method) graph() bool { return m == SSMTR || m == SSMTRPI }

// TargetScaling says how targets are standardised before fitting (predictions are given
// back in the original units). The models are zero-mean GPs with one noise level shared by
// all tasks, so the targets' location and scale must be comparable across tasks.
type TargetScaling int

const (
	// PerTask centres and scales every task by the mean and standard deviation of its own
	// labelled targets (the default): for tasks that measure different quantities, such as
	// the seven torques of SARCOS. A task with fewer than two distinct labelled values
	// uses the pooled standard deviation.
	PerTask TargetScaling = iota
	// Pooled uses the mean and standard deviation of all tasks' labelled targets together:
	// for tasks that measure the same quantity (exam scores in different schools), where
	// one or two labels per task would make per-task statistics meaningless.
	Pooled
	// Unscaled leaves the targets as they are.
	Unscaled
)

// String returns "per-task", "pooled" or "none".
func (s TargetScaling) String() string {
	switch s {
	case PerTask:
		return "per-task"
	case Pooled:
		return "pooled"
	case Unscaled:
		return "none"
	}
	return fmt.Sprintf("TargetScaling(%d)", int(s))
}

// ParseTargetScaling parses "per-task", "pooled" or "none".
func ParseTargetScaling(s string) (TargetScaling, error) {
	switch strings.ToLower(s) {
	case "per-task", "pertask", "task", "":
		return PerTask, nil
	case "pooled", "global":
		return Pooled, nil
	case "none":
		return Unscaled, nil
	}
	return 0, fmt.Errorf("ssmtr: unknown target scaling %q (want per-task, pooled or none)", s)
}

// MarshalText writes the scaling's name.
func (s TargetScaling) MarshalText() ([]byte, error) {
	if s < PerTask || s > Unscaled {
		return nil, fmt.Errorf("ssmtr: unknown target scaling %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText parses a target scaling's name.
func (s *TargetScaling) UnmarshalText(b []byte) error {
	v, err := ParseTargetScaling(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Optimizer is the gradient optimiser of the hyperparameters.
type Optimizer int

const (
	// SCG is scaled conjugate gradients (the default).
	SCG Optimizer = iota
	// LBFGS is limited-memory BFGS.
	LBFGS
)

// String returns "scg" or "lbfgs", the names package optimize takes.
func (o Optimizer) String() string {
	switch o {
	case SCG:
		return "scg"
	case LBFGS:
		return "lbfgs"
	}
	return fmt.Sprintf("Optimizer(%d)", int(o))
}

// ParseOptimizer parses "scg" or "lbfgs".
func ParseOptimizer(s string) (Optimizer, error) {
	switch strings.ToLower(s) {
	case "scg", "":
		return SCG, nil
	case "lbfgs":
		return LBFGS, nil
	}
	return 0, fmt.Errorf("ssmtr: unknown optimizer %q (want scg or lbfgs)", s)
}

// MarshalText writes the optimiser's name.
func (o Optimizer) MarshalText() ([]byte, error) {
	if o != SCG && o != LBFGS {
		return nil, fmt.Errorf("ssmtr: unknown optimizer %d", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText parses an optimiser's name.
func (o *Optimizer) UnmarshalText(b []byte) error {
	v, err := ParseOptimizer(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Config configures Fit. Its zero value is the documented default of every field: SSTR (the
// paper's baseline; set Method for the others) with an RBF kernel, inputs standardised,
// targets standardised per task.
type Config struct {
	// Method is the regressor.
	Method Method
	// Kernel is a kern spec of positive-parameter kernels without white noise (the noise is
	// the model's σ), for example "rbf" or the paper's "lin+rbf". "" is an RBF kernel whose
	// inverse width starts at 1/median squared distance of the (scaled) training inputs and
	// whose variance starts at 1; a spec is used with the values it gives.
	Kernel string
	// Graph configures the graph of SSMTR and SSMTRPI.
	Graph GraphOptions
	// Scaling is the input scaling, fitted on all training rows (labelled and unlabelled),
	// stored in the model and applied by Predict. dataset.ScaleAuto (the zero value) is
	// dataset.ScaleStd: the kernels' starting values and the graph's distances suit
	// inputs of unit spread.
	Scaling dataset.Scaling
	// Targets is the target standardisation (default PerTask).
	Targets TargetScaling
	// AlphaPrior puts each task's ln α_i under the common prior with its kernel parameters.
	// By default (false) α_i is free per task, as in the paper: its gradient (§3.1, §4.1)
	// has no prior term. On SARCOS the shared prior held α_i near one value for all seven
	// torques and made SSMTR worse than SMTR, where free α_i make it better (bench/RESULTS.md
	// records the runs).
	AlphaPrior bool
	// PriorPseudoTasks ν₀ and PriorScale s² regularise the prior covariance: Σ_θ is updated
	// to (Σ_i d_i d_iᵀ + ν₀ s² I)/(m + ν₀), the maximum of the objective with an
	// inverse-Wishart-like term ½tr(ν₀s²Σ⁻¹) + (ν₀/2)ln|Σ|. Without it the paper's
	// update (ν₀ = 0) lets the alternating ascent collapse Σ_θ to 0 (the joint objective is
	// unbounded as all θ_i → m_θ) and is singular when tasks are fewer than parameters.
	// 0 means 1 (ν₀: one pseudo-task; s²: log-parameters within about a factor e).
	PriorPseudoTasks, PriorScale float64
	// OuterIters bounds the alternations between the gradient phase and the closed-form
	// prior update (0: 10); InnerIters bounds the optimiser's iterations per phase (0: 100).
	OuterIters, InnerIters int
	// Tol ends the alternation when the objective changes by less than Tol·(1+|J|)
	// (0: 1e-5).
	Tol float64
	// Optimizer is the gradient optimiser (default SCG).
	Optimizer Optimizer
	// Workers bounds the goroutines that evaluate tasks in parallel (0: 1 per core).
	Workers int
	// Pairs and Quads are the constraints of SSMTRPI (ignored by the other methods): their
	// indices are rows of Fit's x, all of one task, labelled or not.
	Pairs []Pair
	Quads []Quad
	// Progress, when not nil, is called after every outer iteration of the multi-task fit.
	Progress func(Progress)
}

// Progress reports one outer iteration of the multi-task fit.
type Progress struct {
	Method Method
	// Outer is the 1-based outer iteration; Step its record (also in Model.Trace).
	Outer int
	Step  OuterStep
	// Sigma and Epsilon are the shared noise levels (standardised units), PriorMean m_θ.
	Sigma, Epsilon float64
	PriorMean      []float64
}

// String formats the progress as one line.
func (p Progress) String() string {
	return fmt.Sprintf(
		"%v: outer %d: J = %.6f (data %.6f), σ = %.4g, ε = %.4g, m_θ = %.3g, %d iterations (%s)",
		p.Method, p.Outer, p.Step.Objective, p.Step.Data, p.Sigma, p.Epsilon, p.PriorMean,
		p.Step.Iterations, p.Step.Reason)
}

func (o Config) withDefaults() Config {
	if o.Graph.K == 0 {
		o.Graph.K = DefaultNeighbours
	}
	if o.PriorPseudoTasks == 0 {
		o.PriorPseudoTasks = 1
	}
	if o.PriorScale == 0 {
		o.PriorScale = 1
	}
	if o.OuterIters == 0 {
		o.OuterIters = 10
	}
	if o.InnerIters == 0 {
		o.InnerIters = 100
	}
	if o.Tol == 0 {
		o.Tol = 1e-5
	}
	if o.Scaling == dataset.ScaleAuto {
		o.Scaling = dataset.ScaleStd
	}
	return o
}

func (o Config) check() error {
	if o.Method < SSTR || o.Method > SSMTRPI {
		return fmt.Errorf("ssmtr: unknown method %d", int(o.Method))
	}
	if o.Graph.K < 1 {
		return fmt.Errorf("ssmtr: graph K = %d, want ≥ 1", o.Graph.K)
	}
	if o.Graph.Laplacian != Normalized && o.Graph.Laplacian != Unnormalized {
		return fmt.Errorf("ssmtr: unknown Laplacian %d", int(o.Graph.Laplacian))
	}
	if o.Targets < PerTask || o.Targets > Unscaled {
		return fmt.Errorf("ssmtr: unknown target scaling %d", int(o.Targets))
	}
	if !(o.PriorPseudoTasks >= 0 && o.PriorScale >= 0) {
		return fmt.Errorf("ssmtr: prior regularisation must be positive (ν₀ = %g, s² = %g)",
			o.PriorPseudoTasks, o.PriorScale)
	}
	if o.OuterIters < 0 || o.InnerIters < 0 || !(o.Tol >= 0) {
		return fmt.Errorf("ssmtr: negative iteration limit or tolerance")
	}
	if o.Optimizer != SCG && o.Optimizer != LBFGS {
		return fmt.Errorf("ssmtr: unknown optimizer %d", int(o.Optimizer))
	}
	return nil
}
