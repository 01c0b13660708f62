package noise

import (
	"fmt"
	"math"
	"testing"

	"github.com/ivmlab/ivm/special"
)

// rawMoments returns a model's ln Z, g and ν without the floor on ν, so that finite
// differences can check ν where it is tiny or (null category) negative.
func rawMoments(m Model, n int, y, mu, vs float64) (logZ, g, nu float64) {
	switch t := m.(type) {
	case *Ordinal:
		return t.moments(y, mu, vs)
	case *NullCategory:
		return t.moments(y, mu, vs)
	case *Probit:
		c := y / math.Sqrt(ProbitVariance+vs)
		logZ, g, nu = t.Moments(n, y, mu, vs)
		if nu == Eps { // recompute unfloored from the definition for the comparison
			u := c * (mu + t.Bias)
			r := math.Exp(logNormPDF(u) - logZ)
			nu = c * c * r * (r + u)
		}
		return logZ, g, nu
	}
	return m.Moments(n, y, mu, vs)
}

func logNormPDF(u float64) float64 { return -0.5*u*u - 0.5*math.Log(2*math.Pi) }

// modelCase is one model with the targets it accepts and the places where its likelihood
// changes (μ values at which u or u' vanish), around which the tests put μ.
type modelCase struct {
	name    string
	model   Model
	targets []float64
	centres []float64
	slope   float64 // the model's own variance added to ς
}

func modelCases() []modelCase {
	ord := &Ordinal{Bias: 1.2, Widths: []float64{0.5, 1.3, 0.8}}
	ord3 := &Ordinal{Bias: -0.4, Widths: []float64{0.7}}
	split := &NullCategory{Bias: -0.2, GammaNeg: 0.3, GammaPos: 0.7, Split: true}
	shared := &NullCategory{Bias: 0.15, GammaNeg: 0.888, GammaPos: 0.888}
	return []modelCase{
		{"probit", &Probit{Bias: 0.3}, []float64{-1, 1}, []float64{-0.3}, ProbitVariance},
		{"gaussian", &Gaussian{Bias: 0.2, Variance: 0.05},
			[]float64{-1.3, 0, 2.5}, []float64{0}, 0.05},
		{"gaussian-precision",
			&Gaussian{Bias: 0.2, Variance: 0.05, Precision: []float64{4, 0.5, 100}},
			[]float64{-1.3, 0, 2.5}, []float64{0}, 0.25},
		{"ordinal5", ord, []float64{0, 1, 2, 3, 4}, []float64{-1.2, -0.7, 0.6, 1.4},
			OrdinalVariance},
		{"ordinal3", ord3, []float64{0, 1, 2}, []float64{0.4, 1.1}, OrdinalVariance},
		{"ncnm-split", split, []float64{-1, 0, 1}, []float64{-0.3, 0.7}, NullVariance},
		{"ncnm-shared", shared, []float64{-1, 0, 1}, []float64{-0.65, 0.35}, NullVariance},
	}
}

// deriv returns the five-point central difference of f at x with step h.
func deriv(f func(float64) float64, x, h float64) float64 {
	return (f(x-2*h) - 8*f(x-h) + 8*f(x+h) - f(x+2*h)) / (12 * h)
}

// TestMomentsFiniteDifferences checks, for every model and target, g = ∂ln Z/∂μ,
// ∂ln Z/∂ς = (g² − ν)/2 and ν = −∂g/∂μ against central differences, at μ placed
// so that |u| runs from 0 to about 30 on both sides of every threshold.
func TestMomentsFiniteDifferences(t *testing.T) {
	ts := []float64{-30, -12, -4, -1.3, -0.2, 0, 0.35, 1, 3.5, 9, 30}
	vss := []float64{0.01, 0.3, 3, 40}
	for _, mc := range modelCases() {
		checked := 0
		for n, y := range mc.targets {
			for _, vs := range vss {
				sd := math.Sqrt(vs + mc.slope)
				for _, centre := range mc.centres {
					for _, tt := range ts {
						mu := centre + tt*sd
						logZ, g, nu := rawMoments(mc.model, n, y, mu, vs)
						if math.IsNaN(logZ+g+nu) || math.IsInf(logZ+g+nu, 0) {
							t.Fatalf("%s y=%v μ=%v ς=%v: ln Z, g, ν = %v, %v, %v",
								mc.name, y, mu, vs, logZ, g, nu)
						}
						lz := func(m, v float64) float64 {
							l, _, _ := rawMoments(mc.model, n, y, m, v)
							return l
						}
						gf := func(m float64) float64 {
							_, g, _ := rawMoments(mc.model, n, y, m, vs)
							return g
						}
						hm := 1e-3 * sd / (1 + math.Abs(tt))
						hv := 1e-3 * (vs + mc.slope) / (1 + tt*tt)
						round := 1e3 * Eps * (math.Abs(logZ) + 1e-300)

						fdG := deriv(func(m float64) float64 { return lz(m, vs) }, mu, hm)
						if math.Abs(fdG-g) > 1e-6*math.Abs(g)+round/hm {
							t.Errorf("%s y=%v μ=%v ς=%v: g = %.12g, "+
								"∂ln Z/∂μ by differences %.12g", mc.name, y, mu, vs, g, fdG)
						}
						fdS := deriv(func(v float64) float64 { return lz(mu, v) }, vs, hv)
						dS := 0.5 * (g*g - nu)
						if math.Abs(fdS-dS) > 1e-6*math.Abs(dS)+round/hv {
							t.Errorf("%s y=%v μ=%v ς=%v: (g²−ν)/2 = %.12g, "+
								"∂ln Z/∂ς by differences %.12g", mc.name, y, mu, vs, dS, fdS)
						}
						fdNu := -deriv(gf, mu, hm)
						if math.Abs(fdNu-nu) > 1e-6*math.Abs(nu)+1e3*Eps*math.Abs(g)/hm+1e-300 {
							t.Errorf("%s y=%v μ=%v ς=%v: ν = %.12g, "+
								"−∂g/∂μ by differences %.12g", mc.name, y, mu, vs, nu, fdNu)
						}
						checked++
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: nothing checked", mc.name)
		}
	}
}

// TestGradParamsFiniteDifferences checks GradParams against central differences of ln Z in
// each natural parameter, and that it adds to dst rather than overwriting it.
func TestGradParamsFiniteDifferences(t *testing.T) {
	for _, mc := range modelCases() {
		np := mc.model.NumParams()
		theta := make([]float64, np)
		mc.model.Params(theta)
		names := mc.model.ParamNames()
		for n, y := range mc.targets {
			for _, vs := range []float64{0.02, 0.7, 5} {
				sd := math.Sqrt(vs + mc.slope)
				for _, centre := range mc.centres {
					for _, tt := range []float64{-6, -1.1, 0.2, 2.5, 7} {
						mu := centre + tt*sd
						grad := make([]float64, np)
						for p := range grad {
							grad[p] = 1
						}
						mc.model.GradParams(grad, n, y, mu, vs)
						for p := 0; p < np; p++ {
							h := 1e-4 * math.Min(sd/(1+math.Abs(tt)),
								math.Max(math.Abs(theta[p]), 1e-2))
							if names[p] == "gamma" || names[p] == "gammaneg" ||
								names[p] == "gammapos" {
								h = 1e-4 * math.Min(theta[p], 1-theta[p])
							}
							lz := func(v float64) float64 {
								th := append([]float64(nil), theta...)
								th[p] = v
								if err := mc.model.SetParams(th); err != nil {
									t.Fatal(err)
								}
								l, _, _ := mc.model.Moments(n, y, mu, vs)
								return l
							}
							fd := deriv(lz, theta[p], h)
							if err := mc.model.SetParams(theta); err != nil {
								t.Fatal(err)
							}
							got := grad[p] - 1
							l, _, _ := mc.model.Moments(n, y, mu, vs)
							if math.Abs(fd-got) > 1e-6*math.Abs(got)+1e3*Eps*math.Abs(l)/h+1e-10 {
								t.Errorf("%s y=%v μ=%v ς=%v: ∂ln Z/∂%s = %.10g, "+
									"by differences %.10g", mc.name, y, mu, vs, names[p], got, fd)
							}
						}
					}
				}
			}
		}
	}
}

// TestIntervalNuBranches checks the ordinal model's two ways of computing ν for a middle
// category against each other and against finite differences of g where they hand over
// (q = ½) and in the far tails, where the direct form cancels.
func TestIntervalNuBranches(t *testing.T) {
	for _, w := range []float64{0.05, 0.3, 1, 4} {
		for _, u := range []float64{-200, -30, -8, -2, -0.5, 0.01, 0.7, 3, 30} {
			for _, s := range []float64{1, -1} {
				a, b := u, u-w
				if s < 0 {
					a, b = w-u, -u
				}
				_, b1, b2 := special.LogPhiDiffRatios(a, b)
				got := intervalNu(a, b, b1, b2)
				db := b1 - b2
				direct := db*db + a*b1 - b*b2
				// The direct form is accurate to about eps·b1²; compare within that.
				if math.Abs(got-direct) > 1e-12*(1+b1*b1+b2*b2) {
					t.Errorf("interval [%v, %v]: ν/c² = %.15g, direct form %.15g",
						b, a, got, direct)
				}
				if !(got > 0 && got < 1) {
					t.Errorf("interval [%v, %v]: ν/c² = %v, want in (0, 1)", b, a, got)
				}
			}
		}
	}
}

func ExampleProbit_Moments() {
	m := NewProbit()
	if err := m.Init([]float64{1, 1, -1, 1}); err != nil {
		panic(err)
	}
	// Point 0 (y = +1) at the prior marginal N(0, 1): ln Z = ln Φ(u), g = c·r, ν = c²r(r+u).
	logZ, g, nu := m.Moments(0, 1, 0, 1)
	fmt.Printf("bias %.4f\nln Z %.4f  g %.4f  ν %.4f\n", m.Bias, logZ, g, nu)
	// Far in the wrong tail the moments stay finite: g ≈ c·|u|, ν → c².
	logZ, g, nu = m.Moments(0, 1, -1e4, 1e-6)
	fmt.Printf("ln Z %.4g  g %.4g  ν %.4g\n", logZ, g, nu)
	// Output:
	// bias 0.6745
	// ln Z -0.2877  g 0.4237  ν 0.4653
	// ln Z -2.5e+13  g 5e+09  ν 5e+05
}
