package engine

import (
	"fmt"

	"github.com/ivmlab/ivm/internal/enum"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/optimize"
	"github.com/ivmlab/ivm/param"
)

// The option enums of Algorithm 2 and the selector share one convention with every model
// family's Config: a typed int whose zero value is the documented default, String and
// ParseX for the CLI's spellings, and MarshalText/UnmarshalText so that a configuration
// reads and writes by name in JSON. multitask and the root package re-export these types
// (aliases), so a value means the same in every family.

// MarshalText lets a Criterion appear by name in JSON.
func (c Criterion) MarshalText() ([]byte, error) {
	if c != Entropy && c != ExpectedEntropy {
		return nil, fmt.Errorf("ivm: Criterion(%d) has no name", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText parses a criterion's name.
func (c *Criterion) UnmarshalText(b []byte) error {
	v, err := ParseCriterion(string(b))
	*c = v
	return err
}

// CriterionChoice is a model family's setting of the selection criterion: the
// Criterion a selector computes, or CriterionAuto (the zero value) to let the family
// choose. It is a separate type from Criterion because "auto" is not a score: the single-
// task IVM resolves it by its search or by the task, the multi-task IVM by the noise
// model (see ivm.Config.Criterion and multitask.Config.Criterion).
type CriterionChoice int

const (
	// CriterionAuto lets the family choose (the zero value).
	CriterionAuto CriterionChoice = iota
	// CriterionEntropy is Entropy.
	CriterionEntropy
	// CriterionExpected is ExpectedEntropy.
	CriterionExpected
)

var criterionChoiceNames = []string{"auto", "entropy", "expected"}

// String returns the name ParseCriterionChoice accepts.
func (c CriterionChoice) String() string {
	return enum.String("Criterion", criterionChoiceNames, int(c))
}

// ParseCriterionChoice parses "auto" (or ""), "entropy" or "expected".
func ParseCriterionChoice(s string) (CriterionChoice, error) {
	v, err := enum.Parse("ivm", "selection criterion", criterionChoiceNames, s)
	return CriterionChoice(v), err
}

// MarshalText lets a CriterionChoice appear by name in JSON.
func (c CriterionChoice) MarshalText() ([]byte, error) {
	return enum.Marshal("ivm", "Criterion", criterionChoiceNames, int(c))
}

// UnmarshalText parses a criterion's name.
func (c *CriterionChoice) UnmarshalText(b []byte) error {
	v, err := ParseCriterionChoice(string(b))
	*c = v
	return err
}

// Resolve returns the Criterion c names, or auto when c is CriterionAuto.
func (c CriterionChoice) Resolve(auto Criterion) Criterion {
	switch c {
	case CriterionEntropy:
		return Entropy
	case CriterionExpected:
		return ExpectedEntropy
	}
	return auto
}

// Optimizer names the optimiser of Algorithm 2's kernel and noise steps.
type Optimizer int

const (
	// OptimizerSCG is scaled conjugate gradients (the papers', the default).
	OptimizerSCG Optimizer = iota
	// OptimizerLBFGS is gonum's L-BFGS.
	OptimizerLBFGS
)

var optimizerNames = []string{optimize.MethodSCG, optimize.MethodLBFGS}

// String returns the name ParseOptimizer accepts (optimize.MethodSCG or MethodLBFGS).
func (o Optimizer) String() string { return enum.String("Optimizer", optimizerNames, int(o)) }

// ParseOptimizer parses "scg" (or "") or "lbfgs".
func ParseOptimizer(s string) (Optimizer, error) {
	v, err := enum.Parse("ivm", "optimizer", optimizerNames, s)
	return Optimizer(v), err
}

// MarshalText lets an Optimizer appear by name in JSON.
func (o Optimizer) MarshalText() ([]byte, error) {
	return enum.Marshal("ivm", "Optimizer", optimizerNames, int(o))
}

// UnmarshalText parses an optimiser's name.
func (o *Optimizer) UnmarshalText(b []byte) error {
	v, err := ParseOptimizer(string(b))
	*o = v
	return err
}

// method is o as optimize.Options.Method; an unknown value is an error rather than a
// silent fall-back to SCG.
func (o Optimizer) method() (string, error) {
	if o != OptimizerSCG && o != OptimizerLBFGS {
		return "", fmt.Errorf("ivm: unknown optimizer %v", o)
	}
	return o.String(), nil
}

// Transform names the map from positive kernel parameters to the optimiser's free ones.
type Transform int

const (
	// TransformAuto keeps the kernel spec's transform: softplus unless the spec says
	// transform=exp (the zero value).
	TransformAuto Transform = iota
	// TransformSoftplus is ln(eˣ − 1), the papers'.
	TransformSoftplus
	// TransformExp is ln x, the reference toolbox's.
	TransformExp
)

var transformNames = []string{"auto", "softplus", "exp"}

// String returns the name ParseTransform accepts.
func (t Transform) String() string { return enum.String("Transform", transformNames, int(t)) }

// ParseTransform parses "auto" (or ""), "softplus" or "exp".
func ParseTransform(s string) (Transform, error) {
	v, err := enum.Parse("ivm", "transform", transformNames, s)
	return Transform(v), err
}

// MarshalText lets a Transform appear by name in JSON.
func (t Transform) MarshalText() ([]byte, error) {
	return enum.Marshal("ivm", "Transform", transformNames, int(t))
}

// UnmarshalText parses a transform's name.
func (t *Transform) UnmarshalText(b []byte) error {
	v, err := ParseTransform(string(b))
	*t = v
	return err
}

// Apply sets k's transform of positive parameters to t's; TransformAuto leaves k's own.
func (t Transform) Apply(k *kern.Sum) error {
	switch t {
	case TransformAuto:
	case TransformSoftplus:
		k.SetPositiveTransform(param.Softplus{})
	case TransformExp:
		k.SetPositiveTransform(param.Exp{})
	default:
		return fmt.Errorf("ivm: unknown transform %v", t)
	}
	return nil
}

var objectiveNames = []string{"auto", "full", "ep", "fixed"}

// MarshalText lets an Objective appear by name in JSON.
func (o Objective) MarshalText() ([]byte, error) {
	return enum.Marshal("ivm", "Objective", objectiveNames, int(o))
}

// UnmarshalText parses an objective's name.
func (o *Objective) UnmarshalText(b []byte) error {
	v, err := ParseObjective(string(b))
	*o = v
	return err
}

// Or returns o, or def when o is ObjectiveAuto: how a family applies its default.
func (o Objective) Or(def Objective) Objective {
	if o == ObjectiveAuto {
		return def
	}
	return o
}
