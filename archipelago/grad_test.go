package archipelago

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// fdCheck compares an analytic gradient with central finite differences.
func fdCheck(t *testing.T, name string, q []float64, f logDensity, h, tol float64) {
	t.Helper()
	grad := make([]float64, len(q))
	f(q, grad)
	scratch := make([]float64, len(q))
	for i := range q {
		qp := append([]float64(nil), q...)
		qm := append([]float64(nil), q...)
		qp[i] += h
		qm[i] -= h
		fd := (f(qp, scratch) - f(qm, scratch)) / (2 * h)
		if math.Abs(fd-grad[i]) > tol*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: ∂/∂q[%d] analytic %.8g, finite difference %.8g", name, i, grad[i], fd)
		}
	}
}

func TestPointLogLikGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []kind{kindLabelled, kindUnlabelled, kindRejection, kindSoftmax} {
		for trial := 0; trial < 5; trial++ {
			g := []float64{3 * rng.NormFloat64(), 3 * rng.NormFloat64(), 3 * rng.NormFloat64()}
			lab := rng.IntN(3)
			fdCheck(t, "point factor", g, func(q, grad []float64) float64 {
				return pointLogLik(k, lab, q, grad)
			}, 1e-5, 1e-6)
		}
	}
	// Values: a rejection is −ln(1+Λ); labelled + Σ over labels of the others = unlabelled.
	g := []float64{0.3, -1.2}
	lam := math.Exp(0.3) + math.Exp(-1.2)
	if d := pointLogLik(kindRejection, -1, g, nil) + math.Log1p(lam); math.Abs(d) > 1e-14 {
		t.Errorf("rejection factor off by %g", d)
	}
	sum := math.Exp(pointLogLik(kindLabelled, 0, g, nil)) +
		math.Exp(pointLogLik(kindLabelled, 1, g, nil))
	if d := sum - math.Exp(pointLogLik(kindUnlabelled, -1, g, nil)); math.Abs(d) > 1e-14 {
		t.Errorf("unlabelled factor is not the labelled ones summed: off by %g", d)
	}
	// Large values stay finite.
	grad := make([]float64, 2)
	if v := pointLogLik(kindUnlabelled, -1, []float64{800, -800}, grad); math.IsNaN(v) ||
		math.IsInf(v, 0) || math.IsNaN(grad[0]) {
		t.Errorf("factor at g = ±800 not finite: %v %v", v, grad)
	}
}

// testState builds a state of n random 2-D points with kinds cycling through
// the data kinds and random function values.
func testState(t *testing.T, n, nc int, ard bool, rng *rand.Rand) *state {
	t.Helper()
	c := []float64{1.5}
	if ard {
		c = []float64{1.5, 0.7}
	}
	cov, err := NewCov(2, ard, 1.3, c, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := newState(2, nc, cov)
	kinds := []kind{kindLabelled, kindUnlabelled, kindRejection}
	for i := 0; i < n; i++ {
		s.x = append(s.x, rng.NormFloat64(), rng.NormFloat64())
		for k := 0; k < nc; k++ {
			s.g = append(s.g, rng.NormFloat64())
		}
		s.kind = append(s.kind, kinds[i%3])
		s.lab = append(s.lab, i%nc)
		s.n++
	}
	if err := s.refactor(); err != nil {
		t.Fatal(err)
	}
	return s
}

// The whitened target of eq. 12 and the hyperparameter target have analytic
// gradients that must match finite differences.
func TestHMCGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := testState(t, 12, 3, false, rng)
	for k := 0; k < 3; k++ {
		nu := make([]float64, s.n)
		for i := range nu {
			nu[i] = s.nu[i*s.nc+k]
		}
		fdCheck(t, "whitened g", nu, s.gTarget(k), 1e-5, 1e-6)
	}
	// The tempered target of an annealed burn-in: unlabelled factors to the power β.
	s.beta = 0.35
	for k := 0; k < 3; k++ {
		nu := make([]float64, s.n)
		for i := range nu {
			nu[i] = s.nu[i*s.nc+k]
		}
		fdCheck(t, "whitened g, β = 0.35", nu, s.gTarget(k), 1e-5, 1e-6)
	}
	for _, ard := range []bool{false, true} {
		s := testState(t, 15, 2, ard, rng)
		cv := s.cov.Clone()
		theta := s.cov.Theta()
		theta[0] += 0.2
		fdCheck(t, "hyperparameters", theta, s.newHyperTarget(cv).logDensity, 1e-5, 1e-5)
	}
}

// The hyperparameter target's value is the Gaussian log density computed
// directly, both from the sampler's own factor (the first call at the current
// θ) and from a fresh factorisation (later calls); so are the gradients.
func TestHyperTargetValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := testState(t, 6, 2, true, rng)
	h := s.newHyperTarget(s.cov.Clone())
	theta := s.cov.Theta()
	g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
	got := h.logDensity(theta, g1)
	if h.first {
		t.Fatal("first call at the current θ did not use the sampler's factor")
	}
	fresh := h.logDensity(theta, g2)
	if math.Abs(got-fresh) > 1e-9 || !floats.EqualApprox(g1, g2, 1e-9) {
		t.Errorf("from the sampler's factor %v %v, fresh %v %v", got, g1, fresh, g2)
	}
	n := s.n
	k := make([]float64, n*n)
	s.cov.full(k, s.xmat())
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, k)) {
		t.Fatal("not PD")
	}
	want := s.cov.logPrior(theta, nil)
	for q := 0; q < 2; q++ {
		g := mat.NewVecDense(n, nil)
		for i := 0; i < n; i++ {
			g.SetVec(i, s.g[i*2+q])
		}
		var a mat.VecDense
		if err := ch.SolveVecTo(&a, g); err != nil {
			t.Fatal(err)
		}
		want += -0.5*mat.Dot(g, &a) - 0.5*ch.LogDet()
	}
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("hyper target %v, direct %v", got, want)
	}
}

// At power β the whitened target differs from β = 1 by exactly (β − 1) times the
// unlabelled points' log factors.
func TestTemperedTargetValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	s := testState(t, 9, 2, false, rng)
	nu := make([]float64, s.n)
	for i := range nu {
		nu[i] = s.nu[i*s.nc]
	}
	grad := make([]float64, s.n)
	full := s.gTarget(0)(nu, grad)
	var unl float64
	for i := 0; i < s.n; i++ {
		if s.kind[i] == kindUnlabelled {
			unl += pointLogLik(kindUnlabelled, -1, s.grow(i), nil)
		}
	}
	s.beta = 0.25
	if got, want := s.gTarget(0)(nu, grad), full-0.75*unl; math.Abs(got-want) > 1e-10 {
		t.Errorf("tempered target %v, want %v", got, want)
	}
}
