package noise

import (
	"math"
	"testing"
)

// extremeGrid returns μ ∈ [−1e4, 1e4] (0 and ±10^k, k = −3 … 4 in steps of ¼) and
// ς ∈ [1e−12, 1e6] (10^k in steps of ¼).
func extremeGrid() (mus, vss []float64) {
	mus = []float64{0}
	for k := -12; k <= 16; k++ {
		v := math.Pow(10, float64(k)/4)
		mus = append(mus, v, -v)
	}
	for k := -48; k <= 24; k++ {
		vss = append(vss, math.Pow(10, float64(k)/4))
	}
	return mus, vss
}

func finiteAll(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// TestNoNaNOrInf checks that Moments, GradParams and Predict of every model give finite
// values for μ ∈ [−1e4, 1e4] and ς ∈ [1e−12, 1e6] and every target, that ν ≥ Eps (the
// reference floor) everywhere and that predicted probabilities are probabilities.
func TestNoNaNOrInf(t *testing.T) {
	mus, vss := extremeGrid()
	for _, mc := range modelCases() {
		bad := 0
		fail := func(format string, args ...any) {
			if bad++; bad <= 5 {
				t.Errorf(mc.name+": "+format, args...)
			}
		}
		grad := make([]float64, mc.model.NumParams())
		var p Prediction
		nc := len(mc.model.Classes())
		for _, vs := range vss {
			for _, mu := range mus {
				for n, y := range mc.targets {
					logZ, g, nu := mc.model.Moments(n, y, mu, vs)
					if !finiteAll(logZ, g, nu) || logZ > 0 && mc.model.Classes() != nil {
						fail("y=%v μ=%v ς=%v: ln Z, g, ν = %v, %v, %v", y, mu, vs, logZ, g, nu)
					}
					if !(nu >= Eps) {
						fail("y=%v μ=%v ς=%v: ν = %v < Eps", y, mu, vs, nu)
					}
					if mc.model.LogConcave() {
						if _, _, raw := rawMoments(mc.model, n, y, mu, vs); !(raw >= 0) {
							fail("y=%v μ=%v ς=%v: log-concave model has ν = %v before the floor",
								y, mu, vs, raw)
						}
					}
					mc.model.GradParams(grad, n, y, mu, vs)
					if !finiteAll(grad...) {
						fail("y=%v μ=%v ς=%v: GradParams %v", y, mu, vs, grad)
					}
					clear(grad)
				}
				mc.model.Predict(&p, mu, vs)
				if !finiteAll(p.Label, p.Mean, p.Var) || len(p.Prob) != nc {
					fail("μ=%v ς=%v: Predict %+v", mu, vs, p)
					continue
				}
				sum := 0.0
				for _, q := range p.Prob {
					if !(q >= 0 && q <= 1) {
						fail("μ=%v ς=%v: probability %v", mu, vs, q)
					}
					sum += q
				}
				if nc > 0 && math.Abs(sum-1) > 1e-12 {
					fail("μ=%v ς=%v: probabilities %v sum to %v", mu, vs, p.Prob, sum)
				}
			}
		}
	}
}

// TestLogConcaveNu checks ν ∈ (0, 1/(σ² + ς)] before the floor for the log-concave models:
// ν = (ς − ς_new)/ς² for the model's own variance folded into ς, so it can neither be
// negative nor exceed c².
func TestLogConcaveNu(t *testing.T) {
	mus, vss := extremeGrid()
	for _, mc := range modelCases() {
		if !mc.model.LogConcave() {
			continue
		}
		for _, vs := range vss {
			c2 := 1 / (mc.slope + vs)
			if g, ok := mc.model.(*Gaussian); ok && g.Precision != nil {
				c2 = math.Inf(1) // per-point variances differ from mc.slope
			}
			for _, mu := range mus {
				for n, y := range mc.targets {
					_, _, nu := rawMoments(mc.model, n, y, mu, vs)
					if nu < 0 || nu > c2*(1+1e-12) {
						t.Errorf("%s y=%v μ=%v ς=%v: ν = %v, want in [0, %v]",
							mc.name, y, mu, vs, nu, c2)
					}
				}
			}
		}
	}
}
