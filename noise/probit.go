package noise

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/param"
	"github.com/ivmlab/ivm/special"
)

// ProbitVariance is the probit model's fixed slope variance σ² = λ⁻² (IVM paper eq. 19).
// The reference toolbox keeps it at 1e−6 and learns the real slope through the white-noise
// term of the kernel, which adds to ς in the same way (IVM paper §2.3, last paragraph).
const ProbitVariance = 1e-6

// Probit is the probit classification noise model of IVM paper §2.3,
// p(y|f) = Φ(y(f + b)/σ) with y ∈ {−1, +1}, σ² = ProbitVariance and a learnable bias b.
//
// At the latent marginal N(μ, ς), with c = y/√(σ² + ς) and u = c(μ + b) (eq. 19):
// ln Z = ln Φ(u), g = c·r with r = N(u)/Φ(u) (eq. 20), ∂ln Z/∂ς = −½·c·u·g and
// ν = c²·r(r + u) (eq. 21), all computed stably for any u (package special).
//
// The zero value has bias 0; Init sets the reference's start-up bias.
type Probit struct {
	// Bias is b, added to the latent function.
	Bias float64
	// ZeroBias makes Init leave Bias at 0 instead of setting it from the class balance.
	// The papers' probit likelihood has no bias (the kernel's bias term plays its part);
	// the reference toolbox starts it at Φ⁻¹ of the positive fraction.
	ZeroBias bool
}

// NewProbit returns a probit model with bias 0 (Init sets it from the targets).
func NewProbit() *Probit { return &Probit{} }

// Name implements Model.
func (*Probit) Name() string { return "probit" }

// Init checks that every target is −1 or +1 and that both classes occur, and sets the bias
// to b = Φ⁻¹(n₊/(n₊ + n₋)) as the reference toolbox does (to 0 with ZeroBias).
func (m *Probit) Init(y []float64) error {
	nPos, nNeg := 0, 0
	for i, v := range y {
		switch v {
		case 1:
			nPos++
		case -1:
			nNeg++
		default:
			return fmt.Errorf("noise: probit target y[%d] = %v; want −1 or +1", i, v)
		}
	}
	if nPos == 0 || nNeg == 0 {
		return fmt.Errorf(
			"noise: probit needs targets of both classes; got %d of +1 and %d of −1",
			nPos, nNeg)
	}
	m.Bias = 0
	if !m.ZeroBias {
		m.Bias = probitBias(nPos, nNeg)
	}
	return nil
}

// Moments implements Model (IVM paper eqs. 19–21). y must be −1 or +1.
func (m *Probit) Moments(n int, y, mu, varsigma float64) (logZ, g, nu float64) {
	c := y / math.Sqrt(ProbitVariance+varsigma)
	logZ, r, d := special.LogPhiMills(c * (mu + m.Bias))
	return logZ, c * r, floorNu(c * c * d)
}

// LogConcave implements Model: Φ is log-concave.
func (*Probit) LogConcave() bool { return true }

// Classes implements Model: −1, +1.
func (*Probit) Classes() []float64 { return binaryClasses() }

// Predict implements Model: Prob = [p(y=−1), p(y=+1)] with p(y=+1) = Φ((μ + b)/√(σ² + ς));
// Label = sign(μ + b), taking +1 at μ + b = 0 (where both classes have probability ½);
// Mean = μ + b; Var = ς. p.Prob's backing array is reused when it holds two values.
func (m *Probit) Predict(p *Prediction, mu, varsigma float64) {
	predictBinary(p, mu, varsigma, m.Bias, ProbitVariance)
}

// NumParams implements Model: the bias.
func (*Probit) NumParams() int { return 1 }

// ParamNames implements Model.
func (*Probit) ParamNames() []string { return []string{"bias"} }

// ParamKinds implements Model.
func (*Probit) ParamKinds() []param.Kind { return []param.Kind{param.Real} }

// Params implements Model.
func (m *Probit) Params(dst []float64) { dst[0] = m.Bias }

// SetParams implements Model.
func (m *Probit) SetParams(src []float64) error {
	if err := checkLen("probit", len(src), 1); err != nil {
		return err
	}
	if err := checkFinite("probit", "bias", src[0]); err != nil {
		return err
	}
	m.Bias = src[0]
	return nil
}

// GradParams implements Model: ∂ln Z/∂b = g.
func (m *Probit) GradParams(dst []float64, n int, y, mu, varsigma float64) {
	_, g, _ := m.Moments(n, y, mu, varsigma)
	dst[0] += g
}
