package engine

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// rfKernel is the reference runs' kernel.
const rfKernel = "rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+" +
	"white(variance=0.1353352832366127)"

// rfProblem is a reference data set with its noise model.
type rfProblem struct {
	name, train, test, noise string
}

var rfProblems = []rfProblem{
	{"probit", "class_train_500.csv", "class_test_2000.csv", "probit"},
	{"gaussian", "reg_train_2000.csv", "reg_test_1000.csv", "gaussian"},
	{"ordinal", "ord_train_500.csv", "ord_test_1000.csv", "ordinal"},
}

// rfData reads a reference data set (cached: the tests read the same files many times).
var rfCache = map[string]struct {
	x *mat.Dense
	y []float64
}{}

func rfData(t testing.TB, name string) (*mat.Dense, []float64) {
	t.Helper()
	if c, ok := rfCache[name]; ok {
		return c.x, c.y
	}
	x, y, err := reftest.ReadXY(name)
	if err != nil {
		t.Fatal(err)
	}
	rfCache[name] = struct {
		x *mat.Dense
		y []float64
	}{x, y}
	return x, y
}

// rfSelector makes a selector on a reference data set with a fresh noise model.
func rfSelector(t testing.TB, train, nm string, opt Options) *Selector {
	t.Helper()
	x, y := rfData(t, train)
	_, dim := x.Dims()
	k, err := kern.Parse(rfKernel, dim)
	if err != nil {
		t.Fatal(err)
	}
	model, err := noise.ByName(nm)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSelector(x, y, k, model, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rfFloor is the magnitude below which μ and ς are compared absolutely (to rel·rfFloor)
// rather than relatively. Both are computed by cancellation — ς = k(x, x) − ‖M_{·,j}‖² with
// k(x, x) ≈ 1.27, μ a sum of terms of order 1 — so a value near zero carries an absolute
// error of a few 1e−16 whatever the algorithm: the Gaussian active points have ς ≈ σ² =
// 1e−6, where the engine's own Select and a dense computation differ by 1.6e−15 (1.6e−9
// relative).
const rfFloor = 1e-5

// rfClose reports the largest relative difference |a − b| / max(|a|, |b|, floor).
func rfClose(a, b []float64, floor float64) (worst float64, at int) {
	at = -1
	for i := range a {
		d := math.Abs(a[i]-b[i]) / math.Max(floor, math.Max(math.Abs(a[i]), math.Abs(b[i])))
		if d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	return worst, at
}

// rfOracle computes μ and ς of every training point from the active set's sites alone,
// with dense linear algebra: A = K_II + B⁻¹, μ = K_{·I}A⁻¹m, ς = diag K − diag(K_{·I}A⁻¹K_{I·}).
func rfOracle(t *testing.T, s *Selector) (mu, vs []float64) {
	t.Helper()
	d, n := s.Size(), s.n
	xa := mat.NewDense(d, s.dim, nil)
	for r, i := range s.Active() {
		xa.SetRow(r, s.X.RawRowView(i))
	}
	kni := mat.NewDense(n, d, nil)
	s.Kernel.K(kni, s.X, xa)
	white := s.Kernel.White()
	for r, i := range s.Active() {
		kni.Set(i, r, kni.At(i, r)+white)
	}
	kii := mat.NewDense(d, d, nil)
	s.Kernel.K(kii, xa, nil)
	a := mat.NewSymDense(d, nil)
	m := mat.NewVecDense(d, nil)
	for p := 0; p < d; p++ {
		for q := p; q < d; q++ {
			a.SetSym(p, q, kii.At(p, q))
		}
		a.SetSym(p, p, kii.At(p, p)+1/s.postBeta(p))
		m.SetVec(p, s.Steps()[p].SiteM)
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("oracle: A not positive definite")
	}
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, m); err != nil {
		t.Fatal(err)
	}
	var w mat.Dense
	if err := ch.SolveTo(&w, kni.T()); err != nil {
		t.Fatal(err)
	}
	mu, vs = make([]float64, n), make([]float64, n)
	s.Kernel.Diag(vs, s.X)
	for j := 0; j < n; j++ {
		row := kni.RawRowView(j)
		for r, v := range row {
			mu[j] += v * alpha.AtVec(r)
			vs[j] -= v * w.At(r, j)
		}
		vs[j] = math.Max(vs[j], 0)
	}
	return mu, vs
}

// rfCheckScores checks that every inactive point's g, ν, ln Z are the noise model's at its
// marginal and that Best is their argmax.
func rfCheckScores(t *testing.T, s *Selector) {
	t.Helper()
	best, bestD, ties := -1, 0.0, 0
	for j := 0; j < s.n; j++ {
		if s.active[j] {
			continue
		}
		lz, g, nu := s.Noise.Moments(j, s.Y[j], s.mu[j], s.varsigma[j])
		if lz != s.logZ[j] || g != s.g[j] || nu != s.nu[j] {
			t.Fatalf("point %d: stored ln Z, g, ν = %v, %v, %v; at its marginal %v, %v, %v",
				j, s.logZ[j], s.g[j], s.nu[j], lz, g, nu)
		}
		d := delta(s.varsigma[j], nu)
		switch {
		case best < 0 || d > bestD:
			best, bestD, ties = j, d, 1
		case d == bestD:
			ties++
		}
	}
	if i, d, tt := s.Best(); i != best || d != bestD || tt != ties {
		t.Fatalf("Best = %d, %v, %d; argmax %d, %v, %d", i, d, tt, best, bestD, ties)
	}
}

// rfState is a copy of a selector's posterior and factors.
type rfState struct {
	mu, vs, l, m []float64
	order        []int
	steps        []Inclusion
}

func rfSnapshot(s *Selector) rfState {
	return rfState{slices.Clone(s.mu), slices.Clone(s.varsigma), slices.Clone(s.lfac),
		slices.Clone(s.m), slices.Clone(s.order), slices.Clone(s.steps)}
}

// After selecting d points and removing position k, μ and ς of every training point equal
// those computed from scratch from the remaining sites, the model made from the selector
// equals one made from those sites, and every inactive point is scored afresh. Where the
// remaining sites are those a fresh selector computes when it includes the remaining points
// in the same order by Include — Gaussian noise (exact sites) at every position, every model
// at the last position — the state equals that fresh selector's.
func TestRemove(t *testing.T) {
	const d, rel = 30, 1e-9
	for _, pb := range rfProblems {
		for _, k := range []int{0, d / 2, d - 1} {
			s := rfSelector(t, pb.train, pb.noise, Options{})
			if err := s.Select(d); err != nil {
				t.Fatal(err)
			}
			before := rfSnapshot(s)
			removed := s.Active()[k]
			if err := s.Remove(k); err != nil {
				t.Fatal(err)
			}
			wantOrder := slices.Delete(slices.Clone(before.order), k, k+1)
			wantSteps := slices.Delete(slices.Clone(before.steps), k, k+1)
			if !slices.Equal(s.Active(), wantOrder) || !slices.Equal(s.Steps(), wantSteps) ||
				s.Size() != d-1 || s.IsActive(removed) || len(s.lfac) != tri(d-1) ||
				len(s.m) != (d-1)*s.n {
				t.Fatalf("%s k=%d: bookkeeping after removal wrong", pb.name, k)
			}
			rfCheckScores(t, s)

			mu, vs := rfOracle(t, s)
			if w, at := rfClose(s.mu, mu, rfFloor); w > rel {
				t.Errorf("%s k=%d: μ differs from the dense posterior by %.2g (point %d: %v, %v)",
					pb.name, k, w, at, s.mu[at], mu[at])
			}
			if w, at := rfClose(s.varsigma, vs, rfFloor); w > rel {
				t.Errorf("%s k=%d: ς differs from the dense posterior by %.2g (point %d: %v, %v)",
					pb.name, k, w, at, s.varsigma[at], vs[at])
			}

			if pb.noise == "gaussian" || k == d-1 {
				fresh := rfSelector(t, pb.train, pb.noise, Options{})
				for _, i := range wantOrder {
					if err := fresh.Include(i); err != nil {
						t.Fatal(err)
					}
				}
				if w, at := rfClose(s.mu, fresh.mu, rfFloor); w > rel {
					t.Errorf("%s k=%d: μ differs from a fresh selector's by %.2g at point %d",
						pb.name, k, w, at)
				}
				if w, at := rfClose(s.varsigma, fresh.varsigma, rfFloor); w > rel {
					t.Errorf("%s k=%d: ς differs from a fresh selector's by %.2g at point %d",
						pb.name, k, w, at)
				}
				if i, _, _ := fresh.Best(); i != s.best {
					t.Errorf("%s k=%d: Best %d, fresh selector's %d", pb.name, k, s.best, i)
				}
				rfCompareModels(t, pb, s, fresh, rel)
			}

			// The model: from the selector, and from the remaining sites directly.
			xt, _ := rfData(t, pb.test)
			m, err := s.Model()
			if err != nil {
				t.Fatal(err)
			}
			xa := mat.NewDense(d-1, s.dim, nil)
			sm, sb, fb := make([]float64, d-1), make([]float64, d-1), make([]float64, d-1)
			for r, st := range wantSteps {
				xa.SetRow(r, s.X.RawRowView(st.Index))
				sm[r], sb[r], fb[r] = st.SiteM, st.SiteBeta, st.FactorBeta
			}
			if s.exact != nil {
				fb = sb
			}
			m2, err := NewModel(s.Kernel, s.Noise, xa, wantOrder, sm, sb, fb)
			if err != nil {
				t.Fatal(err)
			}
			tm1, tv1 := m.Latent(xt, nil, nil)
			tm2, tv2 := m2.Latent(xt, nil, nil)
			if w, _ := rfClose(tm1, tm2, 1e-12); w != 0 {
				t.Errorf("%s k=%d: model μ* differs from the sites' model by %.2g", pb.name, k, w)
			}
			if w, _ := rfClose(tv1, tv2, 1e-12); w != 0 {
				t.Errorf("%s k=%d: model ς* differs from the sites' model by %.2g", pb.name, k, w)
			}
			// At the inactive training inputs the model predicts the selector's posterior.
			lm, lv := m.Latent(s.X, nil, nil)
			for j := range lm {
				if s.active[j] {
					lm[j], lv[j] = s.mu[j], s.varsigma[j]
				}
			}
			if w, at := rfClose(lm, s.mu, rfFloor); w > rel {
				t.Errorf("%s k=%d: model μ at training point %d differs from "+
					"the selector's by %.2g", pb.name, k, at, w)
			}
			if w, at := rfClose(lv, s.varsigma, rfFloor); w > rel {
				t.Errorf("%s k=%d: model ς at training point %d differs from "+
					"the selector's by %.2g", pb.name, k, at, w)
			}
		}
	}
}

// rfCompareModels compares the test predictions of the models of two selectors.
func rfCompareModels(t *testing.T, pb rfProblem, a, b *Selector, rel float64) {
	t.Helper()
	xt, _ := rfData(t, pb.test)
	ma, err := a.Model()
	if err != nil {
		t.Fatal(err)
	}
	mb, err := b.Model()
	if err != nil {
		t.Fatal(err)
	}
	pa, pbb := ma.Predict(xt), mb.Predict(xt)
	for i := range pa {
		ok := pa[i].Label == pbb[i].Label &&
			math.Abs(pa[i].Mean-pbb[i].Mean) <= rel*math.Max(1, math.Abs(pa[i].Mean)) &&
			math.Abs(pa[i].Var-pbb[i].Var) <= rel*math.Abs(pa[i].Var)
		for c := range pa[i].Prob {
			ok = ok && math.Abs(pa[i].Prob[c]-pbb[i].Prob[c]) <= rel
		}
		if !ok {
			t.Fatalf("%s: test point %d predicted %+v and %+v", pb.name, i, pa[i], pbb[i])
		}
	}
}

// Removing a point and including it again restores the state: exactly the same sites at
// the last position (the cavity is then the state before its inclusion), and for exact
// (Gaussian) sites at any position.
func TestRemoveThenInclude(t *testing.T) {
	const d, rel = 30, 1e-9
	for _, pb := range rfProblems {
		for _, k := range []int{0, d / 2, d - 1} {
			if pb.noise != "gaussian" && k != d-1 {
				continue
			}
			s := rfSelector(t, pb.train, pb.noise, Options{})
			if err := s.Select(d); err != nil {
				t.Fatal(err)
			}
			before := rfSnapshot(s)
			i := s.Active()[k]
			if err := s.Remove(k); err != nil {
				t.Fatal(err)
			}
			if err := s.Include(i); err != nil {
				t.Fatal(err)
			}
			if w, at := rfClose(s.mu, before.mu, rfFloor); w > rel {
				t.Errorf("%s k=%d: μ changed by %.2g at point %d", pb.name, k, w, at)
			}
			if w, at := rfClose(s.varsigma, before.vs, rfFloor); w > rel {
				t.Errorf("%s k=%d: ς changed by %.2g at point %d", pb.name, k, w, at)
			}
			last := s.Steps()[d-1]
			old := before.steps[k]
			if last.Index != i || math.Abs(last.SiteM-old.SiteM) > rel*math.Abs(old.SiteM) ||
				math.Abs(last.SiteBeta-old.SiteBeta) > rel*old.SiteBeta {
				t.Errorf("%s k=%d: site %+v after re-inclusion, %+v before", pb.name, k, last, old)
			}
			if k == d-1 {
				if w, _ := rfClose(s.lfac, before.l, 1); w > rel {
					t.Errorf("%s: L changed by %.2g", pb.name, w)
				}
				if w, _ := rfClose(s.m, before.m, 1); w > rel {
					t.Errorf("%s: M changed by %.2g", pb.name, w)
				}
			}
			rfCheckScores(t, s)
		}
	}
}

func TestRemoveErrors(t *testing.T) {
	s := rfSelector(t, "class_train_500.csv", "probit", Options{})
	if err := s.Remove(0); err == nil {
		t.Error("removing from an empty active set: no error")
	}
	if err := s.Select(5); err != nil {
		t.Fatal(err)
	}
	for _, pos := range []int{-1, 5, 100} {
		if err := s.Remove(pos); err == nil {
			t.Errorf("Remove(%d) of 5: no error", pos)
		}
	}
	if s.Size() != 5 {
		t.Errorf("size %d after failed removals", s.Size())
	}
	// Removing everything gives the prior back.
	for s.Size() > 0 {
		if err := s.Remove(s.Size() / 2); err != nil {
			t.Fatal(err)
		}
	}
	prior := make([]float64, s.n)
	s.Kernel.Diag(prior, s.X)
	if w, at := rfClose(s.varsigma, prior, 1e-12); w > 1e-12 {
		t.Errorf("ς after removing every point differs from the prior by %.2g at %d", w, at)
	}
	for j, v := range s.mu {
		if math.Abs(v) > 1e-12 {
			t.Fatalf("μ_%d = %v after removing every point", j, v)
		}
	}
	rfCheckScores(t, s)
	if _, err := s.Refine(RefineOptions{}); err == nil {
		t.Error("Refine with no active points: no error")
	}
}

// recompute right after a selection changes nothing but rounding.
func TestRefineRecomputeUnchanged(t *testing.T) {
	const rel = 1e-9
	for _, pb := range append(rfProblems, rfProblem{"ncnm", "semi_train_500.csv", "", "ncnm"}) {
		s := rfSelector(t, pb.train, pb.noise, Options{})
		if err := s.Select(60); err != nil {
			t.Fatal(err)
		}
		before := rfSnapshot(s)
		bi, bd, bt := s.Best()
		if err := s.recompute(); err != nil {
			t.Fatal(err)
		}
		if w, at := rfClose(s.mu, before.mu, rfFloor); w > rel {
			t.Errorf("%s: μ changed by %.2g at point %d", pb.name, w, at)
		}
		if w, at := rfClose(s.varsigma, before.vs, rfFloor); w > rel {
			t.Errorf("%s: ς changed by %.2g at point %d", pb.name, w, at)
		}
		// L and M relative to the size of their entries' scale (1 and √ς).
		if w, _ := rfClose(s.lfac, before.l, 1); w > rel {
			t.Errorf("%s: L changed by %.2g", pb.name, w)
		}
		if w, _ := rfClose(s.m, before.m, 1); w > rel {
			t.Errorf("%s: M changed by %.2g", pb.name, w)
		}
		if i, d, tt := s.Best(); i != bi || math.Abs(d-bd) > rel*bd || tt != bt {
			t.Errorf("%s: Best %d, %v, %d after recompute; %d, %v, %d before",
				pb.name, i, d, tt, bi, bd, bt)
		}
		rfCheckScores(t, s)
	}
}

// rfEPResidual returns the largest relative difference between an active site and the
// moment-matched site at its cavity (computed here from μ, ς and the site alone).
func rfEPResidual(s *Selector) float64 {
	worst := 0.0
	for k, st := range s.Steps() {
		i := st.Index
		mu, vs, b := s.mu[i], s.varsigma[i], st.FactorBeta
		cv := 1 / (1/vs - b)
		cm := cv * (mu/vs - b*st.SiteM)
		_, g, nu := s.Noise.Moments(i, s.Y[i], cm, cv)
		nb := nu / (1 - nu*cv)
		nm := cm + g/nu
		worst = math.Max(worst, math.Abs(nb-b)/math.Max(1, math.Abs(b)))
		worst = math.Max(worst, math.Abs(nm-st.SiteM)/math.Max(1, math.Abs(st.SiteM)))
		_ = k
	}
	return worst
}

// After Refine every active site is the moment-matched site at its cavity: an EP fixed
// point. The plain ADF sites are not.
func TestRefineEPFixedPoint(t *testing.T) {
	for _, pb := range []rfProblem{rfProblems[0], rfProblems[2]} {
		s := rfSelector(t, pb.train, pb.noise, Options{})
		if err := s.Select(50); err != nil {
			t.Fatal(err)
		}
		adf := rfEPResidual(s)
		if adf < 1e-2 {
			t.Errorf("%s: ADF sites already within %.2g of the EP fixed point; "+
				"the test cannot fail", pb.name, adf)
		}
		st, err := s.Refine(RefineOptions{Tol: 1e-8, MaxSweeps: 200})
		if err != nil {
			t.Fatal(err)
		}
		ep := rfEPResidual(s)
		t.Logf("%s d50: %+v; distance from the EP fixed point %.2g before, %.2g after",
			pb.name, st, adf, ep)
		if !st.Converged || ep > 1e-6 {
			t.Errorf("%s: not an EP fixed point after Refine (converged %v, residual %.2g)",
				pb.name, st.Converged, ep)
		}
		rfCheckScores(t, s)
		mu, vs := rfOracle(t, s)
		if w, _ := rfClose(s.mu, mu, rfFloor); w > 1e-9 {
			t.Errorf("%s: μ after Refine differs from the dense posterior by %.2g", pb.name, w)
		}
		if w, _ := rfClose(s.varsigma, vs, rfFloor); w > 1e-9 {
			t.Errorf("%s: ς after Refine differs from the dense posterior by %.2g", pb.name, w)
		}
	}
}

func TestRefineOptionErrors(t *testing.T) {
	s := rfSelector(t, "class_train_500.csv", "probit", Options{})
	if err := s.Select(10); err != nil {
		t.Fatal(err)
	}
	for _, o := range []RefineOptions{{Damping: 1.5}, {Damping: -0.1}, {Damping: math.NaN()},
		{Tol: -1}, {SwapTol: math.NaN()}, {RecomputeEvery: -2}} {
		if _, err := s.Refine(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if s.Size() != 10 {
		t.Errorf("size %d after refused refinements", s.Size())
	}
}

// Gaussian noise: exact sites need no EP; the swaps keep the posterior exact. The null
// category model (not log-concave) refines with and without damping.
func TestRefineOtherModels(t *testing.T) {
	for _, c := range []struct {
		name, train, noise string
		d                  int
		opt                RefineOptions
	}{
		{"gaussian", "reg_train_2000.csv", "gaussian", 50, RefineOptions{}},
		{"ncnm", "semi_train_500.csv", "ncnm", 100, RefineOptions{}},
		{"ncnm damped", "semi_train_500.csv", "ncnm", 100, RefineOptions{Damping: 0.5}},
	} {
		s := rfSelector(t, c.train, c.noise, Options{})
		if err := s.Select(c.d); err != nil {
			t.Fatal(err)
		}
		st, err := s.Refine(c.opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s d%d: %+v", c.name, c.d, st)
		if !st.Converged || !st.SwapsConverged || (c.noise == "gaussian" && st.Sweeps != 0) {
			t.Errorf("%s: %+v", c.name, st)
		}
		if c.noise != "gaussian" {
			if r := rfEPResidual(s); r > 1e-2 {
				t.Errorf("%s: EP residual %.2g", c.name, r)
			}
		}
		mu, vs := rfOracle(t, s)
		if w, _ := rfClose(s.mu, mu, rfFloor); w > 1e-9 {
			t.Errorf("%s: μ after Refine differs from the dense posterior by %.2g", c.name, w)
		}
		if w, _ := rfClose(s.varsigma, vs, rfFloor); w > 1e-9 {
			t.Errorf("%s: ς after Refine differs from the dense posterior by %.2g", c.name, w)
		}
		rfCheckScores(t, s)
	}
}

// rfLeaky is a model that is not log-concave whose ν at point 0 is 1.01/ς, making the ADF site
// precision there negative (the NegativeSitePrecision rule).
type rfLeaky struct{ noise.Model }

func (rfLeaky) LogConcave() bool { return false }
func (l rfLeaky) Moments(n int, y, mu, vs float64) (float64, float64, float64) {
	lz, g, nu := l.Model.Moments(n, y, mu, vs)
	if n == 0 {
		nu = 1.01 / vs
	}
	return lz, g, nu
}

// Removal and refinement keep the NegativeSitePrecision rule: the posterior uses the
// negative factor precision, the recorded site precision is the floor.
func TestRefineNegativeSitePrecision(t *testing.T) {
	x, y := rfData(t, "class_train_500.csv")
	_, dim := x.Dims()
	k, _ := kern.Parse(rfKernel, dim)
	s, err := NewSelector(x, y, k, rfLeaky{noise.NewProbit()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(40); err != nil {
		t.Fatal(err)
	}
	if s.Active()[0] != 0 || !(s.Steps()[0].FactorBeta < 0) {
		t.Fatalf("point 0 not included first with a negative factor precision: %+v", s.Steps()[0])
	}
	if err := s.Remove(5); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		mu, vs := rfOracle(t, s)
		for j := range mu {
			// Near point 0 the ADF variance ς − νs² went negative and was clipped at 0, so there
			// the stored ς is not K − MᵀM; compare ς only well away from 0.
			if math.Abs(mu[j]-s.mu[j]) > 1e-9*math.Max(rfFloor, math.Abs(mu[j])) ||
				(vs[j] > 1e-3 && math.Abs(vs[j]-s.varsigma[j]) > 1e-9*vs[j]) {
				t.Fatalf("%s: point %d: μ, ς = %v, %v; dense %v, %v", when, j,
					s.mu[j], s.varsigma[j], mu[j], vs[j])
			}
		}
	}
	check("after Remove")
	st, err := s.Refine(RefineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("leaky model: %+v", st)
	pos := slices.Index(s.Active(), 0)
	if pos < 0 || s.Steps()[pos].SiteBeta != NegativeSitePrecision ||
		!(s.Steps()[pos].FactorBeta < 0) {
		t.Errorf("after Refine point 0 at %d: %+v", pos, s.Steps())
	}
	check("after Refine")
}
