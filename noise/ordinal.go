package noise

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ivmlab/ivm/param"
	"github.com/ivmlab/ivm/special"
)

// OrdinalVariance is the variance the ordered categorical model adds to ς, fixed at 0.1 as
// in the reference toolbox (the λ⁻² of IVM paper eq. 24).
const OrdinalVariance = 0.1

// MaxCategories bounds the number of ordered categories Init accepts.
const MaxCategories = 1 << 16

// Ordinal is the ordered categorical noise model of IVM paper §2.4, for targets y ∈ {0, …,
// C−1} with C ≥ 3: category k is the interval (θ_{k−1}, θ_k] of μ' = f + b with θ_{−1}
// = −∞, θ₀ = 0, θ_k = w₁ + … + w_k and θ_{C−1} = +∞, blurred by a Gaussian of
// variance OrdinalVariance.
//
// At the latent marginal N(μ, ς), with μ' = μ + b, c = 1/√(OrdinalVariance + ς), u = (μ'
// − θ_{y−1})c and u' = (μ' − θ_y)c: Z = Φ(u) − Φ(u') (eq. 24; Φ(−μ'c) for y = 0
// and Φ(u) for y = C−1), B₁ = N(u)/Z, B₂ = N(u')/Z, g = c(B₁ − B₂), ∂ln Z/∂ς =
// −½c²(uB₁ − u'B₂) and ν = g² − 2∂ln Z/∂ς (eq. 25; the paper writes u, u' with
// the opposite sign convention). The end categories are one-sided (B₁ = 0 for y = 0, B₂ = 0 for
// y = C−1) and reduce to the probit formulas. All quantities are computed from ln Z and ratios
// that stay finite in the far tails (special.LogPhiDiffRatios), and ν, one minus the variance of a
// truncated Gaussian, without the cancellation of g² against u·B₁.
//
// The bias b and the widths w₁ … w_{C−2} are the learnable parameters. Init sets b to the
// mean target and every width to 1/(C−2), as the reference toolbox does; before Init (or with
// Widths set by hand) the model has C = len(Widths) + 2 categories.
type Ordinal struct {
	// Bias is b, added to the latent function.
	Bias float64
	// Widths holds w₁ … w_{C−2} > 0; C = len(Widths) + 2.
	Widths []float64
}

// NewOrdinal returns an ordered categorical model; Init sets the number of categories
// from the targets.
func NewOrdinal() *Ordinal { return &Ordinal{} }

// Name implements Model.
func (*Ordinal) Name() string { return "ordinal" }

// Categories returns C, the number of categories (len(Widths) + 2).
func (m *Ordinal) Categories() int { return len(m.Widths) + 2 }

// Init checks that the targets are integers 0 … C−1 with C = max(y) + 1 ≥ 3, and sets
// the bias to their mean and the C−2 widths to 1/(C−2), as the reference toolbox does.
func (m *Ordinal) Init(y []float64) error {
	if len(y) == 0 {
		return fmt.Errorf("noise: ordinal needs at least one target")
	}
	top, sum := 0.0, 0.0
	for i, v := range y {
		if !(v >= 0 && v <= MaxCategories-1) || v != math.Trunc(v) {
			return fmt.Errorf(
				"noise: ordinal target y[%d] = %v; "+
					"want an integer category 0, 1, …, C−1 (C ≤ %d)",
				i, v, MaxCategories)
		}
		top = math.Max(top, v)
		sum += v
	}
	c := int(top) + 1
	switch {
	case c == 1:
		return fmt.Errorf(
			"noise: ordinal targets are all 0; need at least 3 ordered categories 0, 1, 2, …")
	case c == 2:
		return fmt.Errorf(
			"noise: ordinal targets have only categories 0 and 1; " +
				"use the probit model with targets −1, +1")
	}
	m.Bias = sum / float64(len(y))
	m.Widths = make([]float64, c-2)
	for j := range m.Widths {
		m.Widths[j] = 1 / float64(c-2)
	}
	return nil
}

// threshold returns θ_k = w₁ + … + w_k (θ₀ = 0).
func (m *Ordinal) threshold(k int) float64 {
	t := 0.0
	for _, w := range m.Widths[:k] {
		t += w
	}
	return t
}

// ends returns c = 1/√(OrdinalVariance + ς), u = (μ' − θ_{k−1})c and u' = (μ' − θ_k)c
// for category k (u = +Inf for k = 0, u' = −Inf for k = C−1); ok is false when y is not a
// category.
func (m *Ordinal) ends(y, mu, varsigma float64) (c, u, up float64, ok bool) {
	k, last := int(y), len(m.Widths)+1
	if !(y >= 0 && y <= float64(last)) || float64(k) != y {
		return 0, 0, 0, false
	}
	c = 1 / math.Sqrt(OrdinalVariance+varsigma)
	mp := mu + m.Bias
	u, up = math.Inf(1), math.Inf(-1)
	if k > 0 {
		u = (mp - m.threshold(k-1)) * c
	}
	if k < last {
		up = (mp - m.threshold(k)) * c
	}
	return c, u, up, true
}

// Moments implements Model (IVM paper eqs. 24–25). y must be a category 0 … C−1;
// anything else gives NaNs.
func (m *Ordinal) Moments(n int, y, mu, varsigma float64) (logZ, g, nu float64) {
	logZ, g, nu = m.moments(y, mu, varsigma)
	return logZ, g, floorNu(nu)
}

// moments is Moments without the floor on ν.
func (m *Ordinal) moments(y, mu, varsigma float64) (logZ, g, nu float64) {
	c, u, up, ok := m.ends(y, mu, varsigma)
	if !ok {
		return math.NaN(), math.NaN(), math.NaN()
	}
	c2 := c * c
	switch int(y) {
	case 0: // Z = Φ(−u'), a probit factor with sign −1
		logZ, r, d := special.LogPhiMills(-up)
		return logZ, -c * r, c2 * d
	case len(m.Widths) + 1: // y = C−1: Z = Φ(u)
		logZ, r, d := special.LogPhiMills(u)
		return logZ, c * r, c2 * d
	}
	logZ, b1, b2 := special.LogPhiDiffRatios(u, up)
	return logZ, c * (b1 - b2), c2 * intervalNu(u, up, b1, b2)
}

// intervalNu returns ν/c² = −∂²ln(Φ(u) − Φ(u'))/∂u² for u > u' (the derivative taken
// with u − u' fixed), that is one minus the variance of a standard normal truncated to
// [u', u]; b1 = N(u)/Z and b2 = N(u')/Z.
//
// The direct form (b1 − b2)² + u·b1 − u'·b2 cancels when both ends lie in the same far
// tail (b1 ≈ |u| there), so there the interval is treated as a probit factor Φ(u) times
// 1 − q, q = Φ(u')/Φ(u), giving
//
//	ν/c² = (d(u) − q·d(u'))/(1 − q) + q·(r(u') − r(u))²/(1 − q)²
//
// with r, d the inverse Mills ratio and r(r + u) of package special; for q ≤ ½ and u ≤ 0
// every term is well conditioned. The upper tail is the mirror image.
func intervalNu(u, up, b1, b2 float64) float64 {
	a, b := u, up
	if up >= 0 { // mirror: ν is unchanged by u ↦ −u
		a, b = -up, -u
	}
	if a <= 0 {
		la, ra, da := special.LogPhiMills(a)
		lb, rb, db := special.LogPhiMills(b)
		if q := math.Exp(lb - la); q <= 0.5 {
			dr := rb - ra
			return (da-q*db)/(1-q) + q*dr*dr/((1-q)*(1-q))
		}
	}
	db := b1 - b2
	return db*db + u*b1 - up*b2
}

// LogConcave implements Model.
func (*Ordinal) LogConcave() bool { return true }

// Classes implements Model: 0, 1, …, C−1.
func (m *Ordinal) Classes() []float64 {
	cs := make([]float64, m.Categories())
	for k := range cs {
		cs[k] = float64(k)
	}
	return cs
}

// Predict implements Model. Label is the reference toolbox's rule, which uses μ' = μ + b alone:
// the number of thresholds 0, θ₁, …, θ_{C−2} that μ' exceeds. Prob holds the C category
// probabilities Φ((μ' − θ_{k−1})c) − Φ((μ' − θ_k)c), c = 1/√(OrdinalVariance + ς);
// Mean = μ'; Var = ς. p.Prob's backing array is reused when it is large enough.
func (m *Ordinal) Predict(p *Prediction, mu, varsigma float64) {
	nc := m.Categories()
	pr := probs(p, nc)
	mp := mu + m.Bias
	c := 1 / math.Sqrt(OrdinalVariance+varsigma)
	label, theta := 0, 0.0
	upper := math.Inf(1) // (μ' − θ_{k−1})c
	for k := 0; k < nc; k++ {
		lower := math.Inf(-1)
		if k < nc-1 {
			if mp > theta {
				label++
			}
			lower = (mp - theta) * c
		}
		pr[k] = math.Exp(special.LogPhiDiff(upper, lower))
		upper = lower
		if k < nc-2 {
			theta += m.Widths[k]
		}
	}
	p.Label = float64(label)
	if math.IsNaN(mp) {
		p.Label = math.NaN()
	}
	p.Mean, p.Var = mp, varsigma
}

// NumParams implements Model: the bias and C−2 widths.
func (m *Ordinal) NumParams() int { return 1 + len(m.Widths) }

// ParamNames implements Model: "bias", "width1", …, "width{C−2}".
func (m *Ordinal) ParamNames() []string {
	names := make([]string, 1+len(m.Widths))
	names[0] = "bias"
	for j := range m.Widths {
		names[1+j] = "width" + strconv.Itoa(j+1)
	}
	return names
}

// ParamKinds implements Model.
func (m *Ordinal) ParamKinds() []param.Kind {
	kinds := make([]param.Kind, 1+len(m.Widths))
	for j := range m.Widths {
		kinds[1+j] = param.Positive
	}
	return kinds
}

// Params implements Model.
func (m *Ordinal) Params(dst []float64) {
	dst[0] = m.Bias
	copy(dst[1:], m.Widths)
}

// SetParams implements Model. The number of categories is fixed by Init (or by the
// length of Widths).
func (m *Ordinal) SetParams(src []float64) error {
	if err := checkLen("ordinal", len(src), 1+len(m.Widths)); err != nil {
		return err
	}
	if err := checkFinite("ordinal", "bias", src[0]); err != nil {
		return err
	}
	for j, w := range src[1:] {
		if err := checkPositive("ordinal", "width"+strconv.Itoa(j+1), w); err != nil {
			return err
		}
	}
	m.Bias = src[0]
	copy(m.Widths, src[1:])
	return nil
}

// GradParams implements Model: ∂ln Z/∂b = g; θ_{y−1} enters through u with ∂ln
// Z/∂θ_{y−1} = −cB₁ and θ_y through u' with ∂ln Z/∂θ_y = cB₂, and width w_j moves
// every θ_k with k ≥ j.
func (m *Ordinal) GradParams(dst []float64, n int, y, mu, varsigma float64) {
	c, u, up, ok := m.ends(y, mu, varsigma)
	if !ok {
		return
	}
	_, b1, b2 := special.LogPhiDiffRatios(u, up)
	k := int(y)
	dst[0] += c * (b1 - b2)
	for j := 1; j <= len(m.Widths); j++ {
		if k-1 >= j {
			dst[j] -= c * b1
		}
		if k >= j {
			dst[j] += c * b2
		}
	}
}
