// Package param holds the parameter transforms shared by kernels and noise
// models.
//
// Every learnable parameter of an ivm model lives in one flat []float64 in a
// transformed, unconstrained space (GPflow's bijectors, GPc's CTransform). A
// Transform maps an unconstrained value x to the natural value θ the model
// uses, and gives the factor dθ/dx that turns a gradient with respect to θ
// into one with respect to x (the chain rule every optimiser step needs).
//
// The IVM papers use softplus θ = ln(1 + eˣ) for positive parameters and the
// sigmoid for input scales in (0, 1) (IVM paper §4); the reference MATLAB
// toolbox uses exp with |x| clipped at 36. Both are here.
package param

import (
	"fmt"
	"math"
)

// Transform maps an unconstrained value to a constrained natural value.
type Transform interface {
	// Name is the transform's name as written in model files ("softplus", "exp", "sigmoid",
	// "identity").
	Name() string
	// Forward returns the natural value θ for the unconstrained value x.
	Forward(x float64) float64
	// Inverse returns the unconstrained x for the natural value θ. It returns an error when
	// θ lies outside the transform's range.
	Inverse(theta float64) (float64, error)
	// Factor returns dθ/dx expressed through θ (the "gradfact" of GPc).
	Factor(theta float64) float64
}

// Softplus is θ = ln(1 + eˣ), θ > 0; the IVM papers' transform for positive parameters.
type Softplus struct{}

// Exp is θ = eˣ, θ > 0, with x clipped to [−36, 36] as in the reference toolbox.
type Exp struct{}

// Sigmoid is θ = 1/(1 + e⁻ˣ), θ ∈ (0, 1); the papers' transform for ARD input scales and
// the null category model's γ.
type Sigmoid struct{}

// Identity is θ = x for unconstrained parameters such as a bias.
type Identity struct{}

// ExpClip is the bound on |x| the Exp transform applies, as the reference toolbox does.
const ExpClip = 36

// Name implements Transform.
func (Softplus) Name() string { return "softplus" }

// Forward implements Transform. It is accurate for all x: for large x it returns x plus
// a vanishing correction, for very negative x it returns eˣ without underflowing early.
func (Softplus) Forward(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// Inverse implements Transform: x = ln(e^θ − 1), computed stably.
func (Softplus) Inverse(theta float64) (float64, error) {
	if !(theta > 0) || math.IsInf(theta, 1) {
		return 0, fmt.Errorf("param: softplus needs a positive finite value, got %v", theta)
	}
	if theta > 30 {
		return theta + math.Log1p(-math.Exp(-theta)), nil
	}
	return math.Log(math.Expm1(theta)), nil
}

// Factor implements Transform: dθ/dx = 1 − e^(−θ).
func (Softplus) Factor(theta float64) float64 { return -math.Expm1(-theta) }

// Name implements Transform.
func (Exp) Name() string { return "exp" }

// Forward implements Transform.
func (Exp) Forward(x float64) float64 {
	return math.Exp(math.Max(-ExpClip, math.Min(ExpClip, x)))
}

// Inverse implements Transform.
func (Exp) Inverse(theta float64) (float64, error) {
	if !(theta > 0) || math.IsInf(theta, 1) {
		return 0, fmt.Errorf("param: exp needs a positive finite value, got %v", theta)
	}
	return math.Log(theta), nil
}

// Factor implements Transform: dθ/dx = θ.
func (Exp) Factor(theta float64) float64 { return theta }

// Name implements Transform.
func (Sigmoid) Name() string { return "sigmoid" }

// Forward implements Transform.
func (Sigmoid) Forward(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Inverse implements Transform: x = ln(θ/(1−θ)).
func (Sigmoid) Inverse(theta float64) (float64, error) {
	if !(theta > 0 && theta < 1) {
		return 0, fmt.Errorf("param: sigmoid needs a value in (0, 1), got %v", theta)
	}
	return math.Log(theta) - math.Log1p(-theta), nil
}

// Factor implements Transform: dθ/dx = θ(1 − θ).
func (Sigmoid) Factor(theta float64) float64 { return theta * (1 - theta) }

// Name implements Transform.
func (Identity) Name() string { return "identity" }

// Forward implements Transform.
func (Identity) Forward(x float64) float64 { return x }

// Inverse implements Transform.
func (Identity) Inverse(theta float64) (float64, error) {
	if math.IsNaN(theta) || math.IsInf(theta, 0) {
		return 0, fmt.Errorf("param: need a finite value, got %v", theta)
	}
	return theta, nil
}

// Factor implements Transform.
func (Identity) Factor(float64) float64 { return 1 }

// ByName returns the transform with the given name.
func ByName(name string) (Transform, error) {
	switch name {
	case "softplus":
		return Softplus{}, nil
	case "exp":
		return Exp{}, nil
	case "sigmoid":
		return Sigmoid{}, nil
	case "identity", "":
		return Identity{}, nil
	}
	return nil, fmt.Errorf("param: unknown transform %q (want softplus, exp, sigmoid or identity)",
		name)
}

// Kind says which constraint a natural parameter obeys; it picks the default transform.
type Kind int

const (
	// Real parameters are unconstrained (Identity).
	Real Kind = iota
	// Positive parameters are > 0 (Softplus by default, Exp as an option).
	Positive
	// Unit parameters lie in (0, 1) (Sigmoid).
	Unit
)

// Default returns the transform for kind k; positive parameters use pos (Softplus when nil).
func Default(k Kind, pos Transform) Transform {
	switch k {
	case Positive:
		if pos == nil {
			return Softplus{}
		}
		return pos
	case Unit:
		return Sigmoid{}
	}
	return Identity{}
}
