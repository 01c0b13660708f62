package noise

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/param"
	"github.com/ivmlab/ivm/special"
)

// NullWidth is the width w of the null category (extensions paper §4.1, standardised to 1).
const NullWidth = 1

// NullVariance is the null category model's slope variance σ²: Eps, as in the reference
// toolbox (the step functions of the paper's effective likelihood, barely smoothed).
const NullVariance = Eps

// NullCategory is the null category noise model (NCNM) for semi-supervised binary classification
// (Lawrence & Jordan; extensions paper §4.1). Targets are −1 and +1 for labelled points and 0
// for unlabelled ones. An ordered categorical model with a null category of width w = 1 between the
// classes, μ' = f + b and c = 1/√(σ² + ς), gives
//
//	y = −1: Z = (1 − γ₋)·Φ(−u),  y = +1: Z = (1 − γ₊)·Φ(u'),
//	y =  0: Z = γ₋·Φ(−u) + γ₊·Φ(u'),  u = (μ' + w/2)c, u' = (μ' − w/2)c,
//
// where γ₋, γ₊ are the probabilities that a point of class −1, +1 is unlabelled (p(z=1|y)
// of the paper). A labelled point is a probit factor with its threshold moved by w/2. For an
// unlabelled point, with B₁ = γ₋N(u)/Z and B₂ = γ₊N(u')/Z, g = c(B₂ − B₁), ∂ln
// Z/∂ς = −½c²(u'B₂ − uB₁) and ν = g² − 2∂ln Z/∂ς; ln Z is a log-sum-exp of
// the two log Φ terms, and ν is evaluated as the mixture formula w₁ν₁ + w₂ν₂ −
// w₁w₂(g₁ − g₂)² (w_i the posterior weights of the two terms, g_i and ν_i their probit
// moments), which stays finite when both terms underflow.
//
// The model is not log-concave: ν is negative where the tilted distribution is bimodal. As in the
// reference toolbox, Moments reports ν < Eps (negative ν included) as Eps.
//
// The reference shares one γ between the classes (Split false: parameters bias, gamma); with Split
// the two are learnt separately (bias, gammaneg, gammapos). The zero value has γ = 0, outside (0,
// 1): use NewNullCategory, Init or SetParams.
type NullCategory struct {
	// Bias is b, added to the latent function.
	Bias float64
	// GammaNeg and GammaPos are γ₋ and γ₊ in (0, 1). Unless Split is set they are one
	// parameter: SetParams writes both and Params reports GammaPos.
	GammaNeg, GammaPos float64
	// Split makes γ₋ and γ₊ separate parameters.
	Split bool
	// ZeroBias makes Init leave Bias at 0, the paper's model (its likelihood, §4.1, has
	// no bias), instead of Φ⁻¹ of the labelled positive fraction (the reference toolbox's).
	ZeroBias bool
}

// NewNullCategory returns a null category model with one γ shared by both classes, as in
// the reference toolbox; Init sets its parameters from the targets.
func NewNullCategory() *NullCategory { return &NullCategory{GammaNeg: 0.5, GammaPos: 0.5} }

// Name implements Model.
func (*NullCategory) Name() string { return "ncnm" }

// Init checks that every target is −1, 0 (unlabelled) or +1 and that there are unlabelled
// points and labelled points of both classes. It sets γ₋ = γ₊ = the unlabelled fraction and
// b = Φ⁻¹(n₊/(n₊ + n₋)) over the labelled points, as the reference toolbox does (0 with
// ZeroBias).
func (m *NullCategory) Init(y []float64) error {
	var nNeg, nUnl, nPos int
	for i, v := range y {
		switch v {
		case -1:
			nNeg++
		case 0:
			nUnl++
		case 1:
			nPos++
		default:
			return fmt.Errorf(
				"noise: ncnm target y[%d] = %v; want −1 or +1 (labelled) or 0 (unlabelled)",
				i, v)
		}
	}
	switch {
	case nPos == 0 || nNeg == 0:
		return fmt.Errorf(
			"noise: ncnm needs labelled points of both classes; got %d of +1 and %d of −1",
			nPos, nNeg)
	case nUnl == 0:
		return fmt.Errorf("noise: ncnm has no unlabelled points (target 0); use the probit model")
	}
	gamma := float64(nUnl) / float64(len(y))
	m.GammaNeg, m.GammaPos = gamma, gamma
	m.Bias = 0
	if !m.ZeroBias {
		m.Bias = probitBias(nPos, nNeg)
	}
	return nil
}

// scaled returns c = 1/√(σ² + ς), u = (μ' + w/2)c and u' = (μ' − w/2)c.
func (m *NullCategory) scaled(mu, varsigma float64) (c, u, up float64) {
	c = 1 / math.Sqrt(NullVariance+varsigma)
	mp := mu + m.Bias
	return c, (mp + 0.5*NullWidth) * c, (mp - 0.5*NullWidth) * c
}

// unlabelled returns, for an unlabelled point, ln Z, the posterior weights w₁ = γ₋Φ(−u)/Z
// and w₂ = γ₊Φ(u')/Z, and the probit quantities of both terms: r₁ = r(−u), d₁ =
// d(−u), r₂ = r(u'), d₂ = d(u') (special.LogPhiMills).
func (m *NullCategory) unlabelled(u, up float64) (logZ, w1, w2, r1, d1, r2, d2 float64) {
	l1, r1, d1 := special.LogPhiMills(-u)
	l2, r2, d2 := special.LogPhiMills(up)
	l1 += math.Log(m.GammaNeg)
	l2 += math.Log(m.GammaPos)
	if l1 >= l2 {
		e := math.Exp(l2 - l1)
		logZ, w1, w2 = l1+math.Log1p(e), 1/(1+e), e/(1+e)
	} else {
		e := math.Exp(l1 - l2)
		logZ, w1, w2 = l2+math.Log1p(e), e/(1+e), 1/(1+e)
	}
	return logZ, w1, w2, r1, d1, r2, d2
}

// Moments implements Model. ν < Eps, negative values included, is reported as Eps.
func (m *NullCategory) Moments(n int, y, mu, varsigma float64) (logZ, g, nu float64) {
	logZ, g, nu = m.moments(y, mu, varsigma)
	if nu < Eps {
		nu = Eps
	}
	return logZ, g, nu
}

// Derivatives implements Unfloored: ln Z, g and ∂ln Z/∂ς = (g² − ν)/2 with ν unfloored.
func (m *NullCategory) Derivatives(n int, y, mu, varsigma float64) (logZ, dmu, dvarsigma float64) {
	logZ, g, nu := m.moments(y, mu, varsigma)
	return logZ, g, 0.5 * (g*g - nu)
}

// moments is Moments without the floor on ν.
func (m *NullCategory) moments(y, mu, varsigma float64) (logZ, g, nu float64) {
	c, u, up := m.scaled(mu, varsigma)
	c2 := c * c
	switch y {
	case 1:
		lp, r, d := special.LogPhiMills(up)
		return math.Log1p(-m.GammaPos) + lp, c * r, c2 * d
	case -1:
		lp, r, d := special.LogPhiMills(-u)
		return math.Log1p(-m.GammaNeg) + lp, -c * r, c2 * d
	case 0:
		logZ, w1, w2, r1, d1, r2, d2 := m.unlabelled(u, up)
		// g₁ = −c·r₁, g₂ = c·r₂;
		// ν = w₁ν₁ + w₂ν₂ − w₁w₂(g₁ − g₂)².
		s := r1 + r2
		return logZ, c * (w2*r2 - w1*r1), c2 * (w1*d1 + w2*d2 - w1*w2*s*s)
	}
	return math.NaN(), math.NaN(), math.NaN()
}

// LogConcave implements Model: false (the unlabelled likelihood is bimodal).
func (*NullCategory) LogConcave() bool { return false }

// Classes implements Model: −1, +1.
func (*NullCategory) Classes() []float64 { return binaryClasses() }

// Predict implements Model as Probit.Predict does, with this model's σ² = NullVariance:
// p(y=+1) = Φ((μ + b)/√(σ² + ς)).
func (m *NullCategory) Predict(p *Prediction, mu, varsigma float64) {
	predictBinary(p, mu, varsigma, m.Bias, NullVariance)
}

// NumParams implements Model: bias and γ (or γ₋, γ₊ with Split).
func (m *NullCategory) NumParams() int {
	if m.Split {
		return 3
	}
	return 2
}

// ParamNames implements Model: "bias", "gamma" (or "gammaneg", "gammapos" with Split).
func (m *NullCategory) ParamNames() []string {
	if m.Split {
		return []string{"bias", "gammaneg", "gammapos"}
	}
	return []string{"bias", "gamma"}
}

// ParamKinds implements Model.
func (m *NullCategory) ParamKinds() []param.Kind {
	if m.Split {
		return []param.Kind{param.Real, param.Unit, param.Unit}
	}
	return []param.Kind{param.Real, param.Unit}
}

// Params implements Model.
func (m *NullCategory) Params(dst []float64) {
	dst[0] = m.Bias
	if m.Split {
		dst[1], dst[2] = m.GammaNeg, m.GammaPos
		return
	}
	dst[1] = m.GammaPos
}

// SetParams implements Model.
func (m *NullCategory) SetParams(src []float64) error {
	names := m.ParamNames()
	if err := checkLen("ncnm", len(src), len(names)); err != nil {
		return err
	}
	if err := checkFinite("ncnm", "bias", src[0]); err != nil {
		return err
	}
	for i, v := range src[1:] {
		if err := checkUnit("ncnm", names[1+i], v); err != nil {
			return err
		}
	}
	m.Bias = src[0]
	if m.Split {
		m.GammaNeg, m.GammaPos = src[1], src[2]
	} else {
		m.GammaNeg, m.GammaPos = src[1], src[1]
	}
	return nil
}

// GradParams implements Model: ∂ln Z/∂b = g; ∂ln Z/∂γ₊ = −1/(1 − γ₊) at y = +1
// and w₂/γ₊ at y = 0, and likewise for γ₋; a shared γ gets the sum of both.
func (m *NullCategory) GradParams(dst []float64, n int, y, mu, varsigma float64) {
	_, g, _ := m.moments(y, mu, varsigma)
	var dNeg, dPos float64
	switch y {
	case 1:
		dPos = -1 / (1 - m.GammaPos)
	case -1:
		dNeg = -1 / (1 - m.GammaNeg)
	case 0:
		_, u, up := m.scaled(mu, varsigma)
		_, w1, w2, _, _, _, _ := m.unlabelled(u, up)
		dNeg, dPos = w1/m.GammaNeg, w2/m.GammaPos
	default:
		return
	}
	dst[0] += g
	if m.Split {
		dst[1] += dNeg
		dst[2] += dPos
		return
	}
	dst[1] += dNeg + dPos
}
