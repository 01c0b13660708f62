package noise

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/param"
)

// GaussianVariance is the Gaussian model's default noise variance σ². The reference toolbox
// uses 1e−6 and models the real noise with the kernel's white-noise term.
const GaussianVariance = 1e-6

const ln2Pi = 1.8378770664093454835606594728112352797227949472756 // ln 2π

// Gaussian is the Gaussian (regression) noise model of IVM paper §2.2,
// p(y|f) = N(y − b | f, σ²), optionally with a precision βₙ of its own for each training
// point (weighted least squares), overriding 1/σ² for that point.
//
// At the latent marginal N(μ, ς), with s = σ² + ς (or 1/βₙ + ς):
// ln Z = ln N(y − b | μ, s), g = (y − b − μ)/s and ν = 1/s (eqs. 17–18). The ADF site is
// exact, m = y − b and β = 1/σ² (ExactSite).
type Gaussian struct {
	// Bias is b, subtracted from the targets (their mean after Init).
	Bias float64
	// Variance is σ². Zero means GaussianVariance.
	Variance float64
	// Precision, when not nil, holds a precision βₙ > 0 for each training point n; it
	// replaces 1/Variance at training points (Variance still applies to predictions).
	// It is data, not a learnable parameter.
	Precision []float64
}

// NewGaussian returns a Gaussian model with noise variance σ² (0: GaussianVariance).
func NewGaussian(variance float64) *Gaussian { return &Gaussian{Variance: variance} }

// Name implements Model.
func (*Gaussian) Name() string { return "gaussian" }

// noiseVar returns σ², with the zero value meaning GaussianVariance.
func (m *Gaussian) noiseVar() float64 {
	if m.Variance == 0 {
		return GaussianVariance
	}
	return m.Variance
}

// pointVar returns the noise variance at training point n.
func (m *Gaussian) pointVar(n int) float64 {
	if m.Precision != nil {
		return 1 / m.Precision[n]
	}
	return m.noiseVar()
}

// Init checks that the targets are finite (and the per-point precisions, if any, match
// them and are positive) and sets the bias to the mean of the targets, as the reference
// toolbox does.
func (m *Gaussian) Init(y []float64) error {
	if len(y) == 0 {
		return fmt.Errorf("noise: gaussian needs at least one target")
	}
	if err := checkPositive("gaussian", "variance", m.noiseVar()); err != nil {
		return err
	}
	if m.Precision != nil && len(m.Precision) != len(y) {
		return fmt.Errorf("noise: gaussian has %d precisions for %d targets",
			len(m.Precision), len(y))
	}
	sum := 0.0
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("noise: gaussian target y[%d] = %v; want a finite value", i, v)
		}
		if m.Precision != nil {
			if b := m.Precision[i]; !(b > 0) || math.IsInf(b, 1) {
				return fmt.Errorf("noise: gaussian precision %d = %v; want a positive finite value",
					i, b)
			}
		}
		sum += v
	}
	m.Bias = sum / float64(len(y))
	return nil
}

// Moments implements Model (IVM paper eqs. 17–18).
func (m *Gaussian) Moments(n int, y, mu, varsigma float64) (logZ, g, nu float64) {
	s := m.pointVar(n) + varsigma
	e := y - m.Bias - mu
	g = e / s
	return -0.5 * (ln2Pi + math.Log(s) + e*g), g, floorNu(1 / s)
}

// Site implements ExactSite: m = y − b, β = 1/σ² (or the point's own precision).
func (m *Gaussian) Site(n int, y float64) (mean, beta float64) {
	return y - m.Bias, 1 / m.pointVar(n)
}

// LogConcave implements Model.
func (*Gaussian) LogConcave() bool { return true }

// Classes implements Model: nil (regression).
func (*Gaussian) Classes() []float64 { return nil }

// Predict implements Model: Mean = Label = μ + b, Var = ς + σ², Prob = nil.
func (m *Gaussian) Predict(p *Prediction, mu, varsigma float64) {
	p.Mean = mu + m.Bias
	p.Var = varsigma + m.noiseVar()
	p.Label = p.Mean
	p.Prob = nil
}

// NumParams implements Model: bias and variance.
func (*Gaussian) NumParams() int { return 2 }

// ParamNames implements Model.
func (*Gaussian) ParamNames() []string { return []string{"bias", "variance"} }

// ParamKinds implements Model.
func (*Gaussian) ParamKinds() []param.Kind { return []param.Kind{param.Real, param.Positive} }

// Params implements Model.
func (m *Gaussian) Params(dst []float64) { dst[0], dst[1] = m.Bias, m.noiseVar() }

// SetParams implements Model.
func (m *Gaussian) SetParams(src []float64) error {
	if err := checkLen("gaussian", len(src), 2); err != nil {
		return err
	}
	if err := checkFinite("gaussian", "bias", src[0]); err != nil {
		return err
	}
	if err := checkPositive("gaussian", "variance", src[1]); err != nil {
		return err
	}
	m.Bias, m.Variance = src[0], src[1]
	return nil
}

// GradParams implements Model: ∂ln Z/∂b = g (b enters as μ + b) and ∂ln Z/∂σ² = ½(g²
// − 1/s), the latter zero at points with their own precision.
func (m *Gaussian) GradParams(dst []float64, n int, y, mu, varsigma float64) {
	s := m.pointVar(n) + varsigma
	g := (y - m.Bias - mu) / s
	dst[0] += g
	if m.Precision == nil {
		dst[1] += 0.5 * (g*g - 1/s)
	}
}
