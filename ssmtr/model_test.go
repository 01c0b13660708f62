package ssmtr

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/optimize"
)

// TestDataDependentKernel checks K̃ against eq. 6 written out with explicit inverses,
// and against (K⁻¹ + αL)⁻¹ (eq. 5), on a small well-conditioned problem.
func TestDataDependentKernel(t *testing.T) {
	tk := toyTask(t, 11, 12, 4, "lin+rbf", true, nil, nil)
	n := tk.n
	h := hyper{theta: []float64{0.5, 0.8, 1.5}, alpha: 0.7, sigma2: 0.1}
	ks, err := tk.newKernelStage(h, true, true)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := ks.fullKt()
	if err != nil {
		t.Fatal(err)
	}
	l := mat.NewDense(n, n, nil)
	l.Mul(tk.r, tk.r.T())
	// Eq. 6: K − K (α⁻¹I + LK)⁻¹ L K.
	a := mat.NewDense(n, n, nil)
	a.Mul(l, ks.kmat)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+1/h.alpha)
	}
	var ainv mat.Dense
	if err := ainv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	lk := mat.NewDense(n, n, nil)
	lk.Mul(l, ks.kmat)
	tmp := mat.NewDense(n, n, nil)
	tmp.Mul(&ainv, lk)
	eq6 := mat.NewDense(n, n, nil)
	eq6.Mul(ks.kmat, tmp)
	eq6.Sub(ks.kmat, eq6)
	// Eq. 5: (K⁻¹ + αL)⁻¹.
	var kinv mat.Dense
	if err := kinv.Inverse(ks.kmat); err != nil {
		t.Fatal(err)
	}
	kinv.Add(&kinv, scaled(h.alpha, l))
	var eq5 mat.Dense
	if err := eq5.Inverse(&kinv); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if d := math.Abs(kt.At(i, j) - eq6.At(i, j)); d > 1e-10 {
				t.Fatalf("K̃[%d,%d] = %.12g, eq. 6 gives %.12g", i, j, kt.At(i, j), eq6.At(i, j))
			}
			if d := math.Abs(kt.At(i, j) - eq5.At(i, j)); d > 1e-7 {
				t.Fatalf("K̃[%d,%d] = %.12g, (K⁻¹+αL)⁻¹ gives %.12g",
					i, j, kt.At(i, j), eq5.At(i, j))
			}
		}
	}
}

func TestGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n, k := 30, 5
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	x.SetRow(7, x.RawRowView(3)) // a duplicate point must not divide by zero
	s, err := SimilarityGraph(x, k)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		nz := 0
		for j := 0; j < n; j++ {
			v := s.At(i, j)
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Fatalf("S[%d,%d] = %v", i, j, v)
			}
			if v > 0 {
				nz++
			}
		}
		if nz < k || s.At(i, i) != 0 {
			t.Fatalf("row %d has %d neighbours (want ≥ %d) and S_ii = %v", i, nz, k, s.At(i, i))
		}
	}
	lu := GraphLaplacian(s, Unnormalized)
	for i := 0; i < n; i++ {
		var sum float64
		for j := 0; j < n; j++ {
			sum += lu.At(i, j)
		}
		if math.Abs(sum) > 1e-12 {
			t.Fatalf("unnormalized Laplacian row %d sums to %g", i, sum)
		}
	}
	ln := GraphLaplacian(s, Normalized)
	var eig mat.EigenSym
	if !eig.Factorize(ln, false) {
		t.Fatal("eigen failed")
	}
	for _, v := range eig.Values(nil) {
		if v < -1e-12 || v > 2+1e-12 {
			t.Fatalf("normalized Laplacian eigenvalue %g outside [0, 2]", v)
		}
	}
	r, err := laplacianFactor(ln)
	if err != nil {
		t.Fatal(err)
	}
	var rr mat.Dense
	rr.Mul(r, r.T())
	if !mat.EqualApprox(&rr, ln, 1e-12) {
		t.Fatal("R Rᵀ differs from L")
	}
}

// TestLaplaceMode checks the mode condition K̃⁻¹f̂ = ∇ln p(y, ξ | f̂) in the form
// f̂ = K̃ ∇ℓ(f̂).
func TestLaplaceMode(t *testing.T) {
	pairs := []Pair{{0, 9, 0.3}, {10, 12, -0.5}, {11, 3, 0}, {14, 15, 1.2}}
	tk := toyTask(t, 12, 18, 6, "rbf", true, pairs, []Quad{{12, 13, 16, 17}})
	h := hyper{theta: []float64{0.8, 1.2}, alpha: 0.5, sigma2: 0.04, eps: 0.2}
	_, mode, err := tk.laplace(h, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tk.sites(mode.f, h)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := mode.ks.fullKt()
	if err != nil {
		t.Fatal(err)
	}
	kg := mat.NewVecDense(tk.n, nil)
	kg.MulVec(kt, mat.NewVecDense(tk.n, st.grad))
	for i := 0; i < tk.n; i++ {
		if d := math.Abs(kg.AtVec(i) - mode.f[i]); d > 1e-8*(1+math.Abs(mode.f[i])) {
			t.Fatalf("mode condition fails at %d: K̃∇ℓ = %.12g, f̂ = %.12g",
				i, kg.AtVec(i), mode.f[i])
		}
	}
}

// TestPredictMatchesGP: SMTR's task model predicts like a textbook GP (mean and variance).
func TestPredictMatchesGP(t *testing.T) {
	tk := toyTask(t, 13, 10, 10, "rbf", false, nil, nil)
	h := hyper{theta: []float64{0.9, 1.1}, sigma2: 0.05}
	tm, err := tk.finish(h, SMTR, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	xs := mat.NewDense(3, 2, []float64{0.1, 0.2, -1, 0.5, 2, 2})
	mean, vr := make([]float64, 3), make([]float64, 3)
	if err := tm.predict(xs, mean, vr); err != nil {
		t.Fatal(err)
	}
	c := mat.NewDense(10, 10, nil)
	tk.k.K(c, tk.x, nil)
	for i := 0; i < 10; i++ {
		c.Set(i, i, c.At(i, i)+h.sigma2)
	}
	var ci mat.Dense
	if err := ci.Inverse(c); err != nil {
		t.Fatal(err)
	}
	kx := mat.NewDense(3, 10, nil)
	tk.k.K(kx, xs, tk.x)
	for i := 0; i < 3; i++ {
		row := kx.RawRowView(i)
		var m, q float64
		for a := 0; a < 10; a++ {
			for b := 0; b < 10; b++ {
				m += row[a] * ci.At(a, b) * tk.y[b]
				q += row[a] * ci.At(a, b) * row[b]
			}
		}
		if math.Abs(2+3*m-mean[i]) > 1e-9 || math.Abs(9*(1.1-q)-vr[i]) > 1e-9 {
			t.Fatalf("point %d: mean %.10g var %.10g, GP gives %.10g %.10g",
				i, mean[i], vr[i], 2+3*m, 9*(1.1-q))
		}
	}
}

// TestFitPriorUpdate checks the closed-form prior update and the monotone alternation on a
// small synthetic multi-task problem, and that the multi-task objective's gradient matches
// finite differences.
func TestFitPriorUpdate(t *testing.T) {
	tasks := synthTasks(4, 12, 20, 21)
	for _, v := range []struct {
		meth       Method
		alphaPrior bool
	}{{SMTR, false}, {SSMTR, false}, {SSMTR, true}} {
		meth := v.meth
		m, err := fitTasks(tasks, Config{Method: meth, OuterIters: 4, InnerIters: 40, Tol: 1e-12,
			AlphaPrior: v.alphaPrior})
		if err != nil {
			t.Fatal(err)
		}
		q := len(m.Prior.Mean)
		if want := len(m.Tasks[0].Theta) + btoi(v.alphaPrior); q != want {
			t.Fatalf("%v (AlphaPrior %v): prior of dimension %d, want %d",
				meth, v.alphaPrior, q, want)
		}
		if meth.graph() {
			var s float64
			for _, tm := range m.Tasks {
				s += math.Log(tm.Alpha) / float64(len(m.Tasks))
			}
			if math.Abs(math.Log(m.Prior.Alpha)-s) > 1e-9 {
				t.Errorf("%v: Prior.Alpha %g, geometric mean of the tasks' α %g",
					meth, m.Prior.Alpha, math.Exp(s))
			}
		}
		mean := make([]float64, q)
		for _, tm := range m.Tasks {
			for k, v := range psiOf(tm, v.alphaPrior) {
				mean[k] += v / float64(len(m.Tasks))
			}
		}
		for k := range mean {
			if math.Abs(mean[k]-m.Prior.Mean[k]) > 1e-9 {
				t.Errorf("%v: m_θ[%d] = %g, mean of tasks %g", meth, k, m.Prior.Mean[k], mean[k])
			}
		}
		for a := 0; a < q; a++ {
			var s float64
			for _, tm := range m.Tasks {
				p := psiOf(tm, v.alphaPrior)
				s += (p[a] - mean[a]) * (p[a] - mean[a])
			}
			want := (s + 1) / (float64(len(m.Tasks)) + 1)
			if math.Abs(m.Prior.Cov.At(a, a)-want) > 1e-9 {
				t.Errorf("%v: Σ[%d,%d] = %g, want %g", meth, a, a, m.Prior.Cov.At(a, a), want)
			}
		}
		for i := 1; i < len(m.Trace); i++ {
			if m.Trace[i].Objective > m.Trace[i-1].Objective+1e-8 {
				t.Errorf("%v: J rose from %.10g to %.10g at outer iteration %d",
					meth, m.Trace[i-1].Objective, m.Trace[i].Objective, i+1)
			}
		}
	}
}

// psiOf is a task's vector under the common prior: ln θ, and ln α with AlphaPrior.
func psiOf(tm *TaskModel, alphaPrior bool) []float64 {
	var p []float64
	for _, v := range tm.Theta {
		p = append(p, math.Log(v))
	}
	if alphaPrior {
		p = append(p, math.Log(tm.Alpha))
	}
	return p
}

// synthTasks draws m related tasks: y = a_i sin(b_i x₁) + c_i x₂ + noise, with l labelled
// and u unlabelled points each.
func synthTasks(m, l, u int, seed uint64) []taskData {
	ts, _ := synthTasksU(m, l, u, seed)
	return ts
}

// synthTasksU is synthTasks that also returns the unlabelled points' targets.
func synthTasksU(m, l, u int, seed uint64) ([]taskData, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []taskData
	var yus [][]float64
	for i := 0; i < m; i++ {
		a, b, c := 1+0.2*rng.NormFloat64(), 1.5+0.2*rng.NormFloat64(), 0.3*rng.NormFloat64()
		gen := func(n int) (*mat.Dense, []float64) {
			x := mat.NewDense(n, 2, nil)
			y := make([]float64, n)
			for j := 0; j < n; j++ {
				x1, x2 := 2*rng.NormFloat64(), rng.NormFloat64()
				x.Set(j, 0, x1)
				x.Set(j, 1, x2)
				y[j] = a*math.Sin(b*x1) + c*x2 + 0.1*rng.NormFloat64()
			}
			return x, y
		}
		x, y := gen(l)
		xu, yu := gen(u)
		out = append(out, taskData{X: x, Y: y, U: xu})
		yus = append(yus, yu)
	}
	return out, yus
}

// testFitter builds the fitter Fit would use for 2-input tasks with unscaled targets, and
// returns it with the kernel's starting parameters.
func testFitter(t *testing.T, tasks []taskData, opt Config) (*fitter, []float64) {
	t.Helper()
	opt = opt.withDefaults()
	spec, init, err := initialKernel("", tasks, 2)
	if err != nil {
		t.Fatal(err)
	}
	ts := make([]*task, len(tasks))
	for i := range tasks {
		if ts[i], err = newTask(tasks[i], i, opt, spec, init, 0, 1); err != nil {
			t.Fatal(err)
		}
	}
	return &fitter{ts: ts, opt: opt, p: ts[0].p, stats: &Stats{}}, init
}

// TestMultiTaskObjectiveGrad checks the gradient of the full objective the optimiser sees
// (all tasks, shared σ and ε, prior term) by finite differences.
func TestMultiTaskObjectiveGrad(t *testing.T) {
	tasks := synthTasks(3, 6, 10, 5)
	tasks[0].Pairs = []Pair{{0, 7, 0.2}, {8, 9, -0.1}}
	tasks[2].Quads = []Quad{{1, 8, 10, 12}}
	type variant struct {
		meth       Method
		alphaPrior bool
	}
	for _, v := range []variant{
		{SMTR, false}, {SSMTR, false}, {SSMTRPI, false}, {SSMTR, true}, {SSMTRPI, true},
	} {
		meth := v.meth
		fr, _ := testFitter(t, tasks, Config{Method: meth, AlphaPrior: v.alphaPrior})
		lay := fr.layout()
		rng := rand.New(rand.NewPCG(9, 9))
		z := make([]float64, lay.len)
		for i := range z {
			z[i] = 0.3 * rng.NormFloat64()
		}
		if want := lay.p + btoi(v.alphaPrior && meth.graph()); lay.prior != want {
			t.Fatalf("%v (AlphaPrior %v): %d dimensions under the prior, want %d",
				meth, v.alphaPrior, lay.prior, want)
		}
		fr.mean = []float64{0.1, -0.2, 0.3}[:lay.prior]
		fr.cov = mat.NewSymDense(lay.prior, nil)
		for k := 0; k < lay.prior; k++ {
			fr.cov.SetSym(k, k, 0.5+0.1*float64(k))
		}
		fr.cov.SetSym(0, 1, 0.1)
		if err := fr.invertCov(); err != nil {
			t.Fatal(err)
		}
		obj := func(x, grad []float64) float64 {
			v, err := fr.dataTerm(lay, x, grad)
			if err != nil {
				t.Fatal(err)
			}
			return v + fr.priorTerm(lay, x, grad)
		}
		if lay.alpha && !v.alphaPrior {
			// α_i free: the prior term does not touch ln α_i.
			pg := make([]float64, len(z))
			fr.priorTerm(lay, z, pg)
			for i := 0; i < lay.m; i++ {
				if g := pg[lay.block(i)+lay.p]; g != 0 {
					t.Errorf("%v: prior gradient %g on task %d's ln α", meth, g, i)
				}
			}
		}
		// The gradient phase's objective, with m_θ profiled out (the tasks' current mean).
		profiled := func(x, grad []float64) float64 {
			v, err := fr.dataTerm(lay, x, grad)
			if err != nil {
				t.Fatal(err)
			}
			return v + fr.profiledPriorTerm(lay, x, grad)
		}
		for _, c := range []struct {
			name string
			f    func(x, grad []float64) float64
		}{{"fixed m", obj}, {"profiled m", profiled}} {
			g := make([]float64, len(z))
			c.f(z, g)
			for i := range z {
				zp, zm := append([]float64(nil), z...), append([]float64(nil), z...)
				zp[i] += 1e-5
				zm[i] -= 1e-5
				fd := (c.f(zp, nil) - c.f(zm, nil)) / 2e-5
				if rel := math.Abs(fd-g[i]) / math.Max(math.Abs(fd), 1e-3); rel > 1e-6 {
					t.Errorf("%v, %s: d/dz[%d]: analytic %.10g, finite difference %.10g",
						meth, c.name, i, g[i], fd)
				}
			}
		}
	}
}

func TestNewTaskUnderPrior(t *testing.T) {
	tasks, yu := synthTasksU(5, 15, 40, 31)
	m, err := fitTasks(tasks[:4], Config{Method: SMTR, OuterIters: 3, InnerIters: 40})
	if err != nil {
		t.Fatal(err)
	}
	// A tight prior pins the new task's kernel parameters to m_θ; σ stays free.
	tight := *m.Prior
	tight.Cov = mat.NewSymDense(len(tight.Mean), nil)
	for k := range tight.Mean {
		tight.Cov.SetSym(k, k, 1e-8)
	}
	tm, err := tight.fitTask(tasks[4], 0)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range tm.Theta {
		if math.Abs(math.Log(v)-tight.Mean[k]) > 1e-3 {
			t.Errorf("tight prior: ln θ[%d] = %g, m_θ = %g", k, math.Log(v), tight.Mean[k])
		}
	}
	// Under the learnt prior the new task predicts points it has not seen (its U rows,
	// unused by SMTR) far better than their mean does.
	tm, err = m.Prior.fitTask(tasks[4], 0)
	if err != nil {
		t.Fatal(err)
	}
	pred := make([]float64, len(yu[4]))
	if err := tm.predict(tasks[4].U, pred, nil); err != nil {
		t.Fatal(err)
	}
	nm, _, _ := NMSE([][]float64{pred}, [][]float64{yu[4]})
	if nm > 0.5 || math.IsNaN(nm) {
		t.Errorf("new task predicts held-out points with nMSE %g", nm)
	}
	t.Logf("new task: held-out nMSE %.3f", nm)

	// SSMTR: α is not in the prior (the paper's model), so a new task learns its own,
	// started at the training tasks' geometric mean; with AlphaPrior it is the prior's
	// last dimension.
	for _, ap := range []bool{false, true} {
		ms, err := fitTasks(tasks[:4],
			Config{Method: SSMTR, OuterIters: 2, InnerIters: 30, AlphaPrior: ap})
		if err != nil {
			t.Fatal(err)
		}
		pr := ms.Prior
		if want := len(tm.Theta) + btoi(ap); len(pr.Mean) != want || len(pr.Names) != want {
			t.Errorf("AlphaPrior %v: prior has %d dimensions (%v), want %d",
				ap, len(pr.Mean), pr.Names, want)
		}
		if pr.AlphaPrior != ap || !(pr.Alpha > 0) {
			t.Errorf("AlphaPrior %v: prior says AlphaPrior %v, Alpha %v",
				ap, pr.AlphaPrior, pr.Alpha)
		}
		nt, err := pr.fitTask(tasks[4], 0)
		if err != nil {
			t.Fatalf("AlphaPrior %v: %v", ap, err)
		}
		if !(nt.Alpha > 0) || math.IsInf(nt.Alpha, 0) {
			t.Errorf("AlphaPrior %v: new task's α = %v", ap, nt.Alpha)
		}
		if err := nt.predict(tasks[4].U, pred, nil); err != nil {
			t.Fatal(err)
		}
		if nm, _, _ := NMSE([][]float64{pred}, [][]float64{yu[4]}); nm > 0.5 || math.IsNaN(nm) {
			t.Errorf("AlphaPrior %v: SSMTR new task predicts held-out points with nMSE %g", ap, nm)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := synthTasks(2, 5, 5, 1)
	cases := map[string]func() ([]taskData, Config){
		"no tasks": func() ([]taskData, Config) { return nil, Config{} },
		"NaN target": func() ([]taskData, Config) {
			ts := synthTasks(2, 5, 5, 1)
			ts[1].Y[2] = math.NaN()
			return ts, Config{}
		},
		"length mismatch": func() ([]taskData, Config) {
			ts := synthTasks(2, 5, 5, 1)
			ts[0].Y = ts[0].Y[:3]
			return ts, Config{}
		},
		"columns differ": func() ([]taskData, Config) {
			ts := synthTasks(2, 5, 5, 1)
			ts[1].X = mat.NewDense(5, 3, nil)
			return ts, Config{}
		},
		"pair out of range": func() ([]taskData, Config) {
			ts := synthTasks(2, 5, 5, 1)
			ts[0].Pairs = []Pair{{0, 10, 0}}
			return ts, Config{Method: SSMTRPI}
		},
		"white kernel": func() ([]taskData, Config) { return good, Config{Kernel: "rbf+white"} },
		"ARD scales":   func() ([]taskData, Config) { return good, Config{Kernel: "rbfard"} },
		"bad optimizer": func() ([]taskData, Config) {
			return good, Config{Optimizer: Optimizer(7)}
		},
	}
	for name, mk := range cases {
		ts, opt := mk()
		if _, err := fitTasks(ts, opt); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "ssmtr") {
			t.Errorf("%s: error %q does not name the package", name, err)
		}
	}
}

// TestMultiTaskFitReachesTiedOptimum checks that the alternation converges where many tasks
// have few labels each (the school regime): the common prior then shrinks to the tasks'
// spread and the fit is, to within that spread, maximum likelihood with the kernel
// parameters and σ tied across tasks. That tied optimum is found here directly. With m_θ
// held at its last value during each gradient phase (instead of profiled out) the common
// parameters crawled — on the school data about 0.001 per outer iteration — and this test
// failed.
func TestMultiTaskFitReachesTiedOptimum(t *testing.T) {
	// 80 tasks of 2 points: y = a_i sin(x₁) + 0.5 x₂ + noise of sd 0.5, a_i ~ 1 + 0.3 N(0, 1).
	rng := rand.New(rand.NewPCG(11, 1))
	var tasks []taskData
	for i := 0; i < 80; i++ {
		a := 1 + 0.3*rng.NormFloat64()
		x := mat.NewDense(2, 2, nil)
		y := make([]float64, 2)
		for j := range y {
			x1, x2 := 2*rng.NormFloat64(), rng.NormFloat64()
			x.Set(j, 0, x1)
			x.Set(j, 1, x2)
			y[j] = a*math.Sin(x1) + 0.5*x2 + 0.5*rng.NormFloat64()
		}
		tasks = append(tasks, taskData{X: x, Y: y})
	}
	opt := Config{Method: SMTR, Targets: Unscaled, OuterIters: 5}
	m, err := fitTasks(tasks, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Tied maximum likelihood: one ψ and σ for all tasks, through the fitter's data term.
	fr, init := testFitter(t, tasks, opt)
	lay := fr.layout()
	p := lay.p
	expand := func(w []float64) []float64 {
		z := make([]float64, lay.len)
		for i := 0; i < lay.m; i++ {
			copy(z[lay.block(i):], w[:p])
		}
		z[lay.sigma(0)] = w[p]
		return z
	}
	obj := func(w, grad []float64) float64 {
		z := expand(w)
		var g []float64
		if grad != nil {
			g = make([]float64, lay.len)
		}
		v, err := fr.dataTerm(lay, z, g)
		if err != nil {
			return math.NaN()
		}
		if grad != nil {
			clear(grad)
			for i := 0; i < lay.m; i++ {
				for k := 0; k < p; k++ {
					grad[k] += g[lay.block(i)+k]
				}
			}
			grad[p] = g[lay.sigma(0)]
		}
		return v
	}
	w0 := make([]float64, p+1)
	for k, v := range init {
		w0[k] = math.Log(v)
	}
	w0[p] = math.Log(initSigma)
	res, err := optimize.Minimize(obj, w0, optimize.Options{MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	moved := 0.0
	for k := 0; k < p; k++ {
		moved = math.Max(moved, math.Abs(res.X[k]-w0[k]))
		if d := math.Abs(m.Prior.Mean[k] - res.X[k]); d > 0.05 {
			t.Errorf("ln θ[%d]: m_θ = %.4f, tied optimum %.4f (start %.4f)",
				k, m.Prior.Mean[k], res.X[k], w0[k])
		}
	}
	if d := math.Abs(math.Log(m.Tasks[0].Sigma) - res.X[p]); d > 0.05 {
		t.Errorf("ln σ = %.4f, tied optimum %.4f", math.Log(m.Tasks[0].Sigma), res.X[p])
	}
	if moved < 0.3 {
		t.Errorf("the tied optimum is within %.2f of the start in ln θ: "+
			"the test would not tell a crawl", moved)
	}
}
