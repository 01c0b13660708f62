package archipelago

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/safestat"
	"github.com/ivmlab/ivm/kern"
)

// batchMean returns the mean of v and its Monte-Carlo standard error from
// 25 batch means, which accounts for autocorrelation in a chain.
func batchMean(v []float64) (mean, se float64) {
	const b = 25
	m := len(v) / b
	bm := make([]float64, b)
	for i := 0; i < b; i++ {
		for _, x := range v[i*m : (i+1)*m] {
			bm[i] += x / float64(m)
		}
	}
	mean, sd := safestat.MeanSD(bm, 1)
	return mean, sd / math.Sqrt(b)
}

// within fails unless |got − want| ≤ 4 standard errors (plus a small absolute
// slack for quadrature and nugget effects).
func within(t *testing.T, name string, got, se, want, slack float64) {
	t.Helper()
	if math.Abs(got-want) > 4*se+slack {
		t.Errorf("%s: sampled %.4f ± %.4f, reference %.4f", name, got, se, want)
	} else {
		t.Logf("%s: sampled %.4f ± %.4f, reference %.4f", name, got, se, want)
	}
}

// With no likelihood, HMC on the whitened functions must sample the GP prior:
// mean 0, covariance K at the points.
func TestHMCSamplesGPPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	s := testState(t, 5, 2, false, rng)
	for i := range s.kind {
		s.kind[i] = kindFree
	}
	k := make([]float64, 25)
	s.cov.full(k, s.xmat())
	const iters = 20000
	var g0, g00, g01 []float64
	for it := 0; it < iters; it++ {
		s.updateG(0.5, 10, rng)
		a, b := s.g[0*2+1], s.g[1*2+1]
		g0 = append(g0, a)
		g00 = append(g00, a*a)
		g01 = append(g01, a*b)
	}
	m, se := batchMean(g0)
	within(t, "E[g_2(x_1)]", m, se, 0, 0)
	m, se = batchMean(g00)
	within(t, "E[g_2(x_1)²]", m, se, k[0], 0)
	m, se = batchMean(g01)
	within(t, "E[g_2(x_1)g_2(x_2)]", m, se, k[1], 0)
}

// quadrature returns E[f(g)] under the density ∝ N(g|0, v)·exp(ll(g)) on a grid.
func quadrature(v float64, ll, f func(float64) float64) float64 {
	var z, s float64
	sd := math.Sqrt(v)
	for i := -4000; i <= 4000; i++ {
		g := float64(i) * 10 * sd / 4000
		w := math.Exp(-0.5*g*g/v + ll(g))
		z += w
		s += w * f(g)
	}
	return s / z
}

// One point and one function: HMC must match the posterior moments computed
// by quadrature for a labelled point (e^g/(1+e^g)) and a rejection (1/(1+e^g)).
func TestHMCOnePointQuadrature(t *testing.T) {
	for _, k := range []kind{kindLabelled, kindRejection} {
		rng := rand.New(rand.NewPCG(13, uint64(k)))
		cov, err := NewCov(1, false, 4, []float64{1}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := newState(1, 1, cov)
		s.x, s.g, s.kind, s.lab, s.n = []float64{0.3}, []float64{0}, []kind{k}, []int{0}, 1
		if err := s.refactor(); err != nil {
			t.Fatal(err)
		}
		var g1, g2 []float64
		for it := 0; it < 8000; it++ {
			s.updateG(0.6, 6, rng)
			g1 = append(g1, s.g[0])
			g2 = append(g2, s.g[0]*s.g[0])
		}
		v := cov.diag(mat.NewDense(1, 1, []float64{0.3}))
		ll := func(g float64) float64 { return pointLogLik(k, 0, []float64{g}, nil) }
		m, se := batchMean(g1)
		within(t, "E[g]", m, se, quadrature(v, ll, func(g float64) float64 { return g }), 0)
		m, se = batchMean(g2)
		within(t, "E[g²]", m, se, quadrature(v, ll, func(g float64) float64 { return g * g }), 0)
	}
}

// With no likelihood, alternating HMC on g and on θ must leave the prior on θ
// as θ's marginal.
func TestHyperHMCSamplesPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	s := testState(t, 4, 2, true, rng)
	for i := range s.kind {
		s.kind[i] = kindFree
	}
	for i := range s.cov.PriorSD {
		s.cov.PriorSD[i] = 0.5
	}
	var th [3][]float64
	for it := 0; it < 8000; it++ {
		s.updateG(0.5, 10, rng)
		if _, err := s.updateHyper(0.3, 8, rng); err != nil {
			t.Fatal(err)
		}
		for i, v := range s.cov.Theta() {
			th[i] = append(th[i], v)
		}
	}
	for i := range th {
		m, se := batchMean(th[i])
		within(t, "E[θ]", m, se, s.cov.PriorMean[i], 0)
		sq := make([]float64, len(th[i]))
		for j, v := range th[i] {
			d := v - s.cov.PriorMean[i]
			sq[j] = d * d
		}
		m, se = batchMean(sq)
		within(t, "Var[θ]", m, se, 0.25, 0)
	}
}

// With g pinned to a known function (a linear kernel with a tiny nugget makes
// the conditional draws deterministic), the insert/delete and move transitions
// alone must sample the latent rejections exactly: M is negative binomial with
// N+P "successes" and failure probability q = ∫π/(1+Λ), and the rejection
// locations are i.i.d. with density ∝ π(x)/(1+Λ(x)).
func TestRejectionMovesExact(t *testing.T) {
	k, err := kern.Parse("lin(variance=1)+bias(variance=1)", 1)
	if err != nil {
		t.Fatal(err)
	}
	cov := newFixedCov(k, 1e-8)
	base, err := NewGaussian([]float64{0}, mat.NewSymDense(1, []float64{1}))
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) float64 { return 1 + 1.5*x }
	st := newState(1, 1, cov)
	for _, x := range []float64{-1, 0.5, 2} {
		st.x = append(st.x, x)
		st.g = append(st.g, f(x))
		st.kind = append(st.kind, kindUnlabelled)
		st.lab = append(st.lab, -1)
		st.n++
	}
	if err := st.refactor(); err != nil {
		t.Fatal(err)
	}
	sp := &Sampler{st: st, base: base,
		opt: Options{InsertProb: 0.5, BirthDeath: 10, MoveScale: 0.8},
		rng: rand.New(rand.NewPCG(19, 20)), nData: 3, archi: true}
	var ms, sx []float64
	for it := 0; it < 100000; it++ {
		sp.rejectionMoves()
		if it%100 == 0 {
			if err := st.refactor(); err != nil {
				t.Fatal(err)
			}
		}
		ms = append(ms, float64(st.nRej))
		var s float64
		for j := 3; j < st.n; j++ {
			s += st.x[j]
		}
		sx = append(sx, s)
	}
	// Reference by quadrature over π = N(0, 1).
	var q, qx float64
	const h = 1e-3
	for x := -10.0; x <= 10; x += h {
		w := math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) / (1 + math.Exp(f(x))) * h
		q += w
		qx += w * x
	}
	r := 3.0
	wantM := r * q / (1 - q)
	m, se := batchMean(ms)
	within(t, "E[M]", m, se, wantM, 0.01)
	sq := make([]float64, len(ms))
	for i, v := range ms {
		sq[i] = (v - wantM) * (v - wantM)
	}
	m, se = batchMean(sq)
	within(t, "Var[M]", m, se, r*q/((1-q)*(1-q)), 0.01)
	m, se = batchMean(sx)
	within(t, "E[Σ x_rejection]", m, se, wantM*qx/q, 0.01)
}

// Algorithm 1: data drawn from the prior are exchangeable (the first and second
// datum have the same label and location laws), every class is equally likely
// under the symmetric prior, and the first proposal is accepted with
// probability E[Λ/(1+Λ)], computed by quadrature.
func TestGenerateFromPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const K, reps = 2, 4000
	cov, err := NewCov(1, false, 2, []float64{1}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	base, err := NewGaussian([]float64{0.5}, mat.NewSymDense(1, []float64{1}))
	if err != nil {
		t.Fatal(err)
	}
	var first0, second0, x1, x2, acc0, x1sq, x2sq []float64
	var c01, c10 float64
	for r := 0; r < reps; r++ {
		d, err := Generate(base, cov, K, 2, rng)
		if err != nil {
			t.Fatal(err)
		}
		b := func(v bool) float64 {
			if v {
				return 1
			}
			return 0
		}
		first0 = append(first0, b(d.Labels[0] == 0))
		second0 = append(second0, b(d.Labels[1] == 0))
		x1 = append(x1, d.X.At(0, 0))
		x2 = append(x2, d.X.At(1, 0))
		x1sq = append(x1sq, d.X.At(0, 0)*d.X.At(0, 0))
		x2sq = append(x2sq, d.X.At(1, 0)*d.X.At(1, 0))
		c01 += b(d.Labels[0] == 0 && d.Labels[1] == 1)
		c10 += b(d.Labels[0] == 1 && d.Labels[1] == 0)
		one, err := Generate(base, cov, K, 1, rng)
		if err != nil {
			t.Fatal(err)
		}
		acc0 = append(acc0, b(one.Rejections == 0))
	}
	diff := func(name string, a, b []float64) {
		d := make([]float64, len(a))
		for i := range a {
			d[i] = a[i] - b[i]
		}
		m, se := safestat.MeanSD(d, 1)
		within(t, name, m, se/math.Sqrt(float64(len(d))), 0, 0)
	}
	diff("P(l₁=0) − P(l₂=0)", first0, second0)
	diff("E[x₁] − E[x₂]", x1, x2)
	diff("E[x₁²] − E[x₂²]", x1sq, x2sq)
	se := math.Sqrt((c01 + c10)) / reps
	within(t, "P(0,1) − P(1,0)", (c01-c10)/reps, se, 0, 0)
	m, sd := safestat.MeanSD(first0, 1)
	within(t, "class frequency", m, sd/math.Sqrt(reps), 0.5, 0)
	// P(accept the first proposal) = E[Λ/(1+Λ)], g₁, g₂ i.i.d. N(0, σ²).
	v := cov.diag(mat.NewDense(1, 1, []float64{0}))
	var pa, z float64
	for i := -300; i <= 300; i++ {
		for j := -300; j <= 300; j++ {
			a, b := float64(i)*0.02*math.Sqrt(v), float64(j)*0.02*math.Sqrt(v)
			w := math.Exp(-0.5 * (a*a + b*b) / v)
			lam := math.Exp(a) + math.Exp(b)
			pa += w * lam / (1 + lam)
			z += w
		}
	}
	m, sd = safestat.MeanSD(acc0, 1)
	within(t, "P(first proposal accepted)", m, sd/math.Sqrt(reps), pa/z, 0)
}

// Gibbs draws of the base density given fixed points have the
// normal-inverse-Wishart posterior means.
func TestBaseGibbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	x := mat.NewDense(40, 2, nil)
	for i := 0; i < 40; i++ {
		x.Set(i, 0, 1+rng.NormFloat64())
		x.Set(i, 1, -2+0.5*rng.NormFloat64()+0.3*x.At(i, 0))
	}
	mean, cv := moments(x)
	g, err := NewGaussian(mean, cv)
	if err != nil {
		t.Fatal(err)
	}
	g.SetEmpiricalPrior(x)
	// a prior mean away from the data, so the posterior mean is not the sample mean
	g.M0 = []float64{0, 0}
	g.Kappa0 = 5
	n, kn := 40.0, 45.0
	wantMu := []float64{n * mean[0] / kn, n * mean[1] / kn}
	psi := mat.NewSymDense(2, nil)
	psi.CopySym(g.Psi0)
	for a := 0; a < 2; a++ {
		for b := a; b < 2; b++ {
			s := psi.At(a, b) +
				n*(cv.At(a, b)-1e-6*(cv.At(0, 0)+cv.At(1, 1))/2*b2f(a == b)-1e-12*b2f(a == b)) +
				5*n/kn*mean[a]*mean[b]
			psi.SetSym(a, b, s)
		}
	}
	nun := g.Nu0 + n
	var mu0, s01 []float64
	for it := 0; it < 6000; it++ {
		if err := g.Gibbs(x, rng); err != nil {
			t.Fatal(err)
		}
		mu0 = append(mu0, g.Mean[0])
		s01 = append(s01, g.Cov().At(0, 1))
	}
	m, sd := safestat.MeanSD(mu0, 1)
	within(t, "E[μ₁]", m, sd/math.Sqrt(6000), wantMu[0], 0)
	m, sd = safestat.MeanSD(s01, 1)
	within(t, "E[Σ₁₂]", m, sd/math.Sqrt(6000), psi.At(0, 1)/(nun-3), 0)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
