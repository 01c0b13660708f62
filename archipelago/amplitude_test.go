package archipelago

import (
	"math"
	"math/rand/v2"
	"testing"
)

// With no likelihood, the whitened amplitude moves alternated with the
// function moves must leave the prior on ln σ² as its marginal and keep g
// distributed as the GP prior at the sampled σ² (E[g²/σ²] = K₁ + nugget).
func TestAmplitudeMovesSamplePrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	s := testState(t, 4, 2, false, rng)
	for i := range s.kind {
		s.kind[i] = kindFree
	}
	s.cov.PriorSD[0] = 0.7
	var th, th2, gs []float64
	for it := 0; it < 20000; it++ {
		s.updateG(0.5, 10, rng)
		s.updateAmplitude(0.5, 5, rng)
		v := s.cov.Theta()[0]
		d := v - s.cov.PriorMean[0]
		th, th2 = append(th, v), append(th2, d*d)
		g := s.g[0]
		gs = append(gs, g*g/math.Exp(v))
	}
	m, se := batchMean(th)
	within(t, "E[ln σ²]", m, se, s.cov.PriorMean[0], 0)
	m, se = batchMean(th2)
	within(t, "Var[ln σ²]", m, se, 0.49, 0)
	m, se = batchMean(gs)
	within(t, "E[g²/σ²]", m, se, 1+s.cov.nugget, 0)
}

// Twenty independent points (far apart on the line), two functions, ln σ²
// unknown: ten labelled (class 1: e^{g_1}/(1 + Λ)) and ten rejections
// (1/(1 + Λ)). The joint chain of function and amplitude moves must match the
// posterior moments of ln σ² and of g_1 at a labelled point computed by
// quadrature: the points are independent given σ², so the marginal of ln σ²
// is N(ln σ² | m, s²) Z_lab(v)¹⁰ Z_rej(v)¹⁰ with Z(v) = ∫∫ N(g|0, vI)·factor,
// v = σ²(1 + nugget).
func TestAmplitudeMovesQuadrature(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a long chain to compare with quadrature")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	cov, err := NewCov(1, false, 2, []float64{1}, 0, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	s := newState(1, 2, cov)
	for i := 0; i < 20; i++ {
		k := kindLabelled
		if i%2 == 1 {
			k = kindRejection
		}
		s.x = append(s.x, 100*float64(i))
		s.g = append(s.g, 0, 0)
		s.kind = append(s.kind, k)
		s.lab = append(s.lab, 0)
		s.n++
	}
	if err := s.refactor(); err != nil {
		t.Fatal(err)
	}
	var th, gv []float64
	for it := 0; it < 100000; it++ {
		s.updateG(0.8, 6, rng)
		s.updateAmplitude(0.3, 3, rng)
		th = append(th, s.cov.Theta()[0])
		gv = append(gv, s.g[0])
	}
	m0, sd := cov.PriorMean[0], cov.PriorSD[0]
	var z, eth, eg float64
	const nl, ng = 100, 60
	for i := -nl; i <= nl; i++ {
		l := m0 + float64(i)*5*sd/nl
		v := math.Exp(l) * (1 + cov.nugget)
		var zLab, zRej, egLab float64
		for a := -ng; a <= ng; a++ {
			g1 := float64(a) * 8 * math.Sqrt(v) / ng
			for b := -ng; b <= ng; b++ {
				g2 := float64(b) * 8 * math.Sqrt(v) / ng
				// Cell area ∝ v cancels the normals' 1/v; the constant is common.
				n := math.Exp(-0.5 * (g1*g1 + g2*g2) / v)
				wl := n * math.Exp(pointLogLik(kindLabelled, 0, []float64{g1, g2}, nil))
				zLab += wl
				egLab += wl * g1
				zRej += n * math.Exp(pointLogLik(kindRejection, 0, []float64{g1, g2}, nil))
			}
		}
		w := math.Exp(-0.5*((l-m0)/sd)*((l-m0)/sd)) * math.Pow(zLab, 10) * math.Pow(zRej, 10)
		z += w
		eth += w * l
		eg += w * egLab / zLab
	}
	if d := eth/z - m0; math.Abs(d) < 0.2 {
		t.Fatalf("the quadrature's posterior mean of ln σ² is only %.3f from the prior's: "+
			"the test would not discriminate", d)
	}
	m, se := batchMean(th)
	within(t, "E[ln σ²]", m, se, eth/z, 0.005)
	m, se = batchMean(gv)
	within(t, "E[g_1] at a labelled point", m, se, eg/z, 0.005)
}
