package multitask

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/fileformat"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// toyTasks makes m small tasks on 2-D inputs: binary labels from the sign of a shared smooth
// function (probit) or noisy values of it (Gaussian).
func toyTasks(t *testing.T, m, n int, classify bool, seed uint64) []Task {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	tasks := make([]Task, m)
	for k := range tasks {
		x := mat.NewDense(n, 2, nil)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			a, b := 2*rng.NormFloat64(), 2*rng.NormFloat64()
			x.Set(i, 0, a)
			x.Set(i, 1, b)
			f := math.Sin(a) + 0.5*b + 0.3*float64(k)
			if classify {
				y[i] = -1
				if f+0.3*rng.NormFloat64() > 0 {
					y[i] = 1
				}
			} else {
				y[i] = f + 0.1*rng.NormFloat64()
			}
		}
		var nm noise.Model = noise.NewGaussian(0)
		if classify {
			nm = noise.NewProbit()
		}
		tasks[k] = Task{Name: string(rune('a' + k)), X: x, Y: y, Noise: nm}
	}
	return tasks
}

// The objective's gradient matches central finite differences, for both objectives and both
// noise models.
func TestObjectiveGradient(t *testing.T) {
	for _, classify := range []bool{false, true} {
		for _, kind := range []Objective{EPEvidence, FixedSites} {
			tasks := toyTasks(t, 3, 40, classify, 7)
			k, err := kern.Parse("rbfard(gamma=0.7,variance=1.3)+linard(variance=0.2)+"+
				"white(variance=0.1)+bias", 2)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSelector(tasks, k, engine.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Select(30); err != nil {
				t.Fatal(err)
			}
			pr := map[string]engine.Prior{"rbfard.gamma": engine.GammaPrior{Shape: 2, Rate: 1}}
			x0 := make([]float64, k.NumFree())
			k.Free(x0)
			grad := make([]float64, len(x0))
			f0, err := s.Objective(kind, pr, grad)
			if err != nil {
				t.Fatal(err)
			}
			for i := range x0 {
				h := 1e-5
				x := append([]float64(nil), x0...)
				x[i] += h
				if err := k.SetFree(x); err != nil {
					t.Fatal(err)
				}
				fp, err := s.Objective(kind, pr, nil)
				if err != nil {
					t.Fatal(err)
				}
				x[i] -= 2 * h
				if err := k.SetFree(x); err != nil {
					t.Fatal(err)
				}
				fm, err := s.Objective(kind, pr, nil)
				if err != nil {
					t.Fatal(err)
				}
				fd := (fp - fm) / (2 * h)
				// EP's sites converge to 1e−4, so its value is smooth to about that.
				tol := 1e-5*math.Max(1, math.Abs(fd)) + 1e-3*btoi(kind == EPEvidence && classify)
				if math.Abs(fd-grad[i]) > tol {
					t.Errorf("classify %v, %v: ∂f/∂x%d = %.8g, "+
						"finite difference %.8g (f = %.6g)", classify, kind, i, grad[i], fd, f0)
				}
			}
			if err := k.SetFree(x0); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func btoi(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// For Gaussian noise the EP objective is the exact negative log marginal likelihood of the
// tasks' active targets, and differs from the fixed-site objective by Σ d_m/2 ln 2π.
func TestObjectiveGaussianExact(t *testing.T) {
	tasks := toyTasks(t, 3, 30, false, 3)
	k, err := kern.Parse("rbf(gamma=0.5,variance=1)+white(variance=0.05)", 2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSelector(tasks, k, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(25); err != nil {
		t.Fatal(err)
	}
	ep, err := s.Objective(EPEvidence, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := s.Objective(FixedSites, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for m, task := range tasks {
		act := s.Active(m)
		d := len(act)
		if d == 0 {
			continue
		}
		xa := mat.NewDense(d, 2, nil)
		r := make([]float64, d)
		bias := task.Noise.(*noise.Gaussian).Bias
		for i, j := range act {
			xa.SetRow(i, task.X.RawRowView(j))
			r[i] = task.Y[j] - bias
		}
		kd := mat.NewDense(d, d, nil)
		k.K(kd, xa, nil)
		for i := 0; i < d; i++ {
			kd.Set(i, i, kd.At(i, i)+noise.GaussianVariance)
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(d, kd.RawMatrix().Data)) {
			t.Fatal("not positive definite")
		}
		var a mat.VecDense
		if err := ch.SolveVecTo(&a, mat.NewVecDense(d, r)); err != nil {
			t.Fatal(err)
		}
		want += 0.5*ch.LogDet() + 0.5*mat.Dot(mat.NewVecDense(d, r), &a) +
			0.5*float64(d)*math.Log(2*math.Pi)
	}
	if math.Abs(ep-want) > 1e-8*math.Abs(want) {
		t.Errorf("EP objective %.12g, exact −ln p(y_I) %.12g", ep, want)
	}
	if d := ep - fixed - 25*0.5*math.Log(2*math.Pi); math.Abs(d) > 1e-8*math.Abs(want) {
		t.Errorf("EP − fixed-site objective − 25/2 ln 2π = %g, want 0", d)
	}
}

// Selection across tasks: the included point is always the best over the tasks' proposals,
// each task's active set is what its own selector holds, and Select refuses more points
// than there are.
func TestSelectorAcrossTasks(t *testing.T) {
	tasks := toyTasks(t, 4, 25, true, 11)
	k, _ := kern.Parse("rbf(gamma=0.5)+bias+white", 2)
	s, err := NewSelector(tasks, k, engine.Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 40; step++ {
		m, i, d, _ := s.Best()
		for mm := range tasks {
			if j, dd, _ := s.Task(mm).Best(); j >= 0 && (dd > d || (dd == d && mm < m)) {
				t.Fatalf("step %d: chose task %d (Δ %v) but task %d proposes Δ %v",
					step, m, d, mm, dd)
			}
		}
		if err := s.Select(1); err != nil {
			t.Fatal(err)
		}
		last := s.Steps()[len(s.Steps())-1]
		if last.Task != m || last.Index != i || last.Delta != d {
			t.Fatalf("step %d: included %+v, Best said task %d index %d Δ %v", step, last, m, i, d)
		}
	}
	count := make([]int, len(tasks))
	for _, st := range s.Steps() {
		count[st.Task]++
	}
	for m := range tasks {
		if len(s.Active(m)) != count[m] {
			t.Errorf("task %d: %d active, %d steps", m, len(s.Active(m)), count[m])
		}
	}
	if err := s.Select(61); err == nil {
		t.Error("selecting more points than remain: no error")
	}
	if _, err := NewSelector([]Task{tasks[0],
		{Name: "x", X: tasks[1].X, Y: tasks[1].Y, Noise: tasks[0].Noise}},
		k, engine.Options{}); err == nil {
		t.Error("two tasks sharing a noise model: no error")
	}
	if _, err := NewSelector(nil, k, engine.Options{}); err == nil {
		t.Error("no tasks: no error")
	}
}

// Learning on tasks drawn from a known GP recovers its kernel: KL per test point small, γ and
// the noise variance close.
func TestLearnRegressionRecovers(t *testing.T) {
	c := RegressionConfig{Tasks: 4, PerTask: 300, Test: 100}
	tasks, xt, err := RegressionTasks(c, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := kern.Parse(RegressionStartKernel, 4)
	m, res, err := Learn(tasks, k,
		LearnOptions{ActiveSize: 300, Iters: 5, KernelIters: 50, LastIterate: true})
	if err != nil {
		t.Fatal(err)
	}
	truth, _ := kern.Parse(RegressionTrueKernel, 4)
	kl, err := GaussianKL(truth, k, xt)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, k.NumParams())
	k.Params(p) // rbf γ, rbf variance, white, bias
	t.Logf("learnt %s; KL %.4g nats per test point; %d outer iterations",
		k, kl/100, len(res.Trace)-1)
	if kl/100 > 0.05 {
		t.Errorf("KL %.4g nats per test point, want < 0.05", kl/100)
	}
	if math.Abs(p[0]-1) > 0.2 || math.Abs(p[2]-0.01) > 0.004 {
		t.Errorf("γ = %.4g (true 1), white = %.4g (true 0.01)", p[0], p[2])
	}
	if m.Size() != 300 {
		t.Errorf("model has %d active points, want 300", m.Size())
	}
	// Random sub-sampling takes exactly PerTask points from every task.
	k2, _ := kern.Parse(RegressionStartKernel, 4)
	m2, _, err := Learn(tasks, k2, LearnOptions{PerTask: 40, Iters: 1, KernelIters: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range m2.Tasks {
		if tm.Model == nil || tm.Model.Size() != 40 {
			t.Errorf("sub-sampling: task %s has %v active points, want 40", tm.Name, tm.Model)
		}
	}
}

// A model file reads back to a model that predicts exactly the same, with the inclusion order
// and file rows kept.
func TestModelFileRoundTrip(t *testing.T) {
	tasks := toyTasks(t, 3, 30, true, 5)
	for m := range tasks {
		tasks[m].Rows = make([]int, 30)
		for i := range tasks[m].Rows {
			tasks[m].Rows[i] = 3*i + m // interleaved rows of a file
		}
	}
	k, _ := kern.Parse("rbf(gamma=0.5)+bias+white", 2)
	s, err := NewSelector(tasks, k, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(20); err != nil {
		t.Fatal(err)
	}
	mod, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mod.ModelMeta = ModelMeta{Labels: []float64{0, 1},
		Trace: Records([]IterTrace{{HeldOut: math.NaN()}})}
	if err := mod.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if f, _ := fileformat.Of(buf.Bytes()); f != ModelFormat ||
		!strings.Contains(buf.String(), `"format": "ivm-mtmodel/1"`) {
		t.Fatalf("not a multi-task model file:\n%.300s", buf.String())
	}
	back, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Labels) != 2 || back.Trace[0].HeldOut != nil {
		t.Errorf("meta %+v", back.ModelMeta)
	}
	if len(back.Steps) != len(mod.Steps) {
		t.Fatalf("%d steps read, %d written", len(back.Steps), len(mod.Steps))
	}
	for i, st := range mod.Steps {
		if b := back.Steps[i]; b.Task != st.Task || b.Row != st.Row ||
			st.Row != 3*st.Index+st.Task {
			t.Errorf("step %d: read %+v, wrote %+v", i, b, st)
		}
	}
	xt := toyTasks(t, 1, 15, true, 9)[0].X
	for m := range tasks {
		p1, err := mod.PredictTask(m, xt)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := back.PredictTask(back.TaskIndex(tasks[m].Name), xt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if p1[i].Prob[1] != p2[i].Prob[1] || p1[i].Label != p2[i].Label {
				t.Fatalf("task %d point %d: %+v read back as %+v", m, i, p1[i], p2[i])
			}
		}
	}
	if _, err := Load(strings.NewReader(`{"format":"ivm-model/1"}`)); err == nil {
		t.Error("single-task model format accepted")
	}
	// A scaled model keeps its scaling; a scaling of the wrong width is refused.
	mod.Scaler = &dataset.Scaler{Kind: dataset.ScaleStd, Shift: []float64{1, -2},
		Factor: []float64{0.5, 4}}
	mod.ModelMeta = ModelMeta{}
	buf.Reset()
	if err := mod.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err = Load(bytes.NewReader(buf.Bytes()))
	if err != nil || back.Scaler == nil || back.Scaler.Factor[1] != 4 {
		t.Fatalf("scaled model read back: %v, scaler %+v", err, back)
	}
	p1, _ := mod.PredictTask(0, xt)
	p2, _ := back.PredictTask(0, xt)
	for i := range p1 {
		if p1[i].Prob[1] != p2[i].Prob[1] {
			t.Fatalf("scaled model point %d: %v read back as %v", i, p1[i].Prob[1], p2[i].Prob[1])
		}
	}
	bad := strings.Replace(buf.String(), `"shift": [`, `"shift": [0,`, 1)
	if _, err := Load(strings.NewReader(bad)); err == nil ||
		!strings.Contains(err.Error(), "scaling") {
		t.Errorf("three shifts for two inputs: %v", err)
	}
}

// A task with no active point predicts with the prior.
func TestPriorTask(t *testing.T) {
	tasks := toyTasks(t, 2, 10, false, 2)
	k, _ := kern.Parse("rbf+white(variance=0.2)", 2)
	s, _ := NewSelector(tasks, k, engine.Options{})
	if err := s.Include(0, 3); err != nil {
		t.Fatal(err)
	}
	mod, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	if mod.Tasks[1].Model != nil {
		t.Fatal("task without active points has a model")
	}
	mu, vs, err := mod.Latent(1, tasks[1].X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mu {
		if mu[i] != 0 || math.Abs(vs[i]-1.2) > 1e-12 {
			t.Fatalf("prior prediction %v, %v; want 0, 1.2", mu[i], vs[i])
		}
	}
}

// The new-task model equals exact GP regression for Gaussian noise, and classifies its own
// points for probit noise.
func TestNewTaskModel(t *testing.T) {
	task := toyTasks(t, 1, 12, false, 4)[0]
	k, _ := kern.Parse("rbf(gamma=0.5)+white(variance=0.1)+bias", 2)
	g, err := NewTaskModel(k, task.X, task.Y, noise.NewGaussian(0))
	if err != nil {
		t.Fatal(err)
	}
	xt := toyTasks(t, 1, 5, false, 8)[0].X
	mu, vs, err := g.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	// Exact: μ* = k*ᵀ(K + σ²I)⁻¹(y − b), ς* = k** − k*ᵀ(K + σ²I)⁻¹k*.
	n := 12
	kd := mat.NewDense(n, n, nil)
	k.K(kd, task.X, nil)
	for i := 0; i < n; i++ {
		kd.Set(i, i, kd.At(i, i)+noise.GaussianVariance)
	}
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(n, kd.RawMatrix().Data))
	r := make([]float64, n)
	b := g.Noise.(*noise.Gaussian).Bias
	for i := range r {
		r[i] = task.Y[i] - b
	}
	ks := mat.NewDense(n, 5, nil)
	k.K(ks, task.X, xt)
	diag := make([]float64, 5)
	k.Diag(diag, xt)
	for j := 0; j < 5; j++ {
		kj := mat.NewVecDense(n, mat.Col(nil, j, ks))
		var a mat.VecDense
		_ = ch.SolveVecTo(&a, mat.NewVecDense(n, r))
		wantMu := mat.Dot(kj, &a)
		var w mat.VecDense
		_ = ch.SolveVecTo(&w, kj)
		wantVar := diag[j] - mat.Dot(kj, &w)
		if math.Abs(mu[j]-wantMu) > 1e-6*(1+math.Abs(wantMu)) || math.Abs(vs[j]-wantVar) > 1e-6 {
			t.Errorf("point %d: μ %.10g ς %.10g, exact %.10g %.10g",
				j, mu[j], vs[j], wantMu, wantVar)
		}
	}
	ct := toyTasks(t, 1, 30, true, 6)[0]
	gc, err := NewTaskModel(k, ct.X, ct.Y, noise.NewProbit())
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	preds, err := gc.Predict(ct.X)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range preds {
		if p.Label != ct.Y[i] {
			wrong++
		}
	}
	if wrong > 3 {
		t.Errorf("probit new-task model misclassifies %d of its 30 training points", wrong)
	}
}

func TestSplitPool(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{0, 1, 2, 3, 4})
	y := []float64{10, 11, 12, 13, 14}
	tasks, err := Split(x, y, []string{"b", "a", "b", "c", "a"},
		func() (noise.Model, error) { return noise.NewGaussian(0), nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 || tasks[0].Name != "b" || tasks[1].Name != "a" || tasks[2].Name != "c" {
		t.Fatalf("tasks %v", tasks)
	}
	if got := tasks[1].Rows; len(got) != 2 || got[0] != 1 || got[1] != 4 ||
		tasks[1].Y[1] != 14 || tasks[1].X.At(1, 0) != 4 {
		t.Errorf("task a: rows %v, y %v", got, tasks[1].Y)
	}
	p, err := Pool(tasks, "all", noise.NewGaussian(0))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := p.X.Dims(); n != 5 || p.Rows[0] != 0 || p.Rows[2] != 1 || p.Y[2] != 11 {
		t.Errorf("pooled %v %v", p.Rows, p.Y)
	}
	if _, err := Split(x, y, []string{"a"}, nil); err == nil {
		t.Error("label count mismatch: no error")
	}
}
