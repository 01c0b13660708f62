package multitask

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/param"
)

// The noise objective's gradient matches central finite differences, for the Gaussian
// model's bias and variance tied across tasks and for the zero-mean model's variance, on
// both paths: the fixed marginals (before prepare) and the exact terms (after).
func TestNoiseProblemGradient(t *testing.T) {
	for _, c := range []struct{ zeroMean, exact bool }{
		{false, false}, {true, false}, {false, true}, {true, true},
	} {
		zeroMean := c.zeroMean
		tasks := toyTasks(t, 3, 40, false, 11)
		if zeroMean {
			for m := range tasks {
				tasks[m].Noise = &zeroMeanGaussian{noise.NewGaussian(0.05)}
			}
		}
		k, _ := kern.Parse("rbf(gamma=0.7,variance=1.3)+bias", 2)
		s, err := NewSelector(tasks, k, engine.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Select(15); err != nil {
			t.Fatal(err)
		}
		p, err := engine.NewNoiseObjective(s.sels, param.Softplus{},
			engine.NoiseOptions{InactiveOnly: true, Exact: gaussianParams})
		if err != nil {
			t.Fatal(err)
		}
		if c.exact {
			if err := p.Prepare(); err != nil {
				t.Fatal(err)
			}
			if !p.Exact() {
				t.Fatal("Gaussian tasks did not take the exact path")
			}
		}
		x := []float64{0.3, -2.1}[:tasks[0].Noise.NumParams()]
		if zeroMean {
			x = []float64{-2.1}
		}
		g := make([]float64, len(x))
		f := p.Eval(x, g)
		if math.IsNaN(f) {
			t.Fatal("objective is NaN")
		}
		const h = 1e-5
		for i := range x {
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			fd := (p.Eval(xp, nil) - p.Eval(xm, nil)) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%+v, parameter %d: gradient %.10g, finite difference %.10g",
					c, i, g[i], fd)
			}
		}
		// Every task carries the tied values.
		want := make([]float64, len(x))
		tasks[0].Noise.Params(want)
		for _, tk := range tasks[1:] {
			got := make([]float64, len(x))
			tk.Noise.Params(got)
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("task %s parameter %d = %g, task a %g: not tied",
						tk.Name, i, got[i], want[i])
				}
			}
		}
	}
}

// With the noise step, Learn recovers the noise variance of Gaussian tasks whose kernel has
// no white term, from a start ten times too large and with few active points per task.
func TestLearnNoiseStepRecoversVariance(t *testing.T) {
	c := RegressionConfig{Tasks: 4, PerTask: 400, Test: 100}
	tasks, _, err := RegressionTasks(c, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for m := range tasks {
		tasks[m].Noise = &zeroMeanGaussian{noise.NewGaussian(regressionStartNoise)}
	}
	k, _ := kern.Parse(regressionStartNoiseless, 4)
	_, res, err := Learn(tasks, k, LearnOptions{ActiveSize: 300, Iters: 4, KernelIters: 50,
		NoiseIters: 20, LastIterate: true})
	if err != nil {
		t.Fatal(err)
	}
	var v [1]float64
	tasks[0].Noise.Params(v[:])
	t.Logf("learnt %s, noise variance %.4g (true 0.01)", k, v[0])
	if math.Abs(v[0]-0.01) > 0.003 {
		t.Errorf("noise variance %.4g, want 0.01 ± 0.003", v[0])
	}
	for _, tr := range res.Trace[:len(res.Trace)-1] {
		if tr.NoiseSteps == 0 || !(tr.NoiseAfter <= tr.NoiseBefore) {
			t.Errorf("iteration %d: noise step %d steps, %g → %g",
				tr.Iter, tr.NoiseSteps, tr.NoiseBefore, tr.NoiseAfter)
		}
	}
}

// Noise updates tie the tasks' parameters, so tasks with different noise models are refused.
func TestNoiseStepNeedsOneModel(t *testing.T) {
	tasks := toyTasks(t, 2, 30, false, 3)
	tasks[1].Noise = noise.NewProbit()
	tasks[1].Y = make([]float64, len(tasks[1].Y))
	for i := range tasks[1].Y {
		tasks[1].Y[i] = 1 - 2*float64(i%2)
	}
	k, _ := kern.Parse("rbf+bias", 2)
	_, _, err := Learn(tasks, k,
		LearnOptions{ActiveSize: 10, Iters: 1, KernelIters: 5, NoiseIters: 5})
	if err == nil || !strings.Contains(err.Error(), "tie") {
		t.Fatalf("err = %v, want one about tied noise parameters", err)
	}
}

// The kernel objective takes exact (Gaussian) sites from the noise model, not from the
// selection: after a noise step changed the variance, the next kernel step must see it.
func TestProblemExactSitesFollowNoise(t *testing.T) {
	tasks := toyTasks(t, 2, 30, false, 5)
	k, _ := kern.Parse("rbf+bias", 2)
	s, err := NewSelector(tasks, k, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(8); err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		if err := tk.Noise.SetParams([]float64{0.25, 0.3}); err != nil {
			t.Fatal(err)
		}
	}
	p := s.objective(k, EPEvidence, nil)
	for m := range tasks {
		m0, b0 := p.Sites(m)
		for i, b := range b0 {
			if math.Abs(b-1/0.3) > 1e-12 {
				t.Fatalf("task %d site %d: precision %g, want 1/0.3 from the noise model", m, i, b)
			}
		}
		st := s.sels[m].Steps()
		for i, mm := range m0 {
			if want := tasks[m].Y[st[i].Index] - 0.25; math.Abs(mm-want) > 1e-12 {
				t.Fatalf("task %d site %d: mean %g, want y − bias = %g", m, i, mm, want)
			}
		}
	}
}

// The exact term equals the predictive log density computed directly: (K + vI)⁻¹ by a
// Cholesky solve for every inactive point.
func TestExactTermDirect(t *testing.T) {
	tasks := toyTasks(t, 1, 50, false, 9)
	k, _ := kern.Parse("rbf(gamma=0.8,variance=1.1)+bias(variance=0.3)", 2)
	s, err := NewSelector(tasks, k, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(12); err != nil {
		t.Fatal(err)
	}
	const b, v = 0.2, 0.05
	if err := tasks[0].Noise.SetParams([]float64{b, v}); err != nil {
		t.Fatal(err)
	}
	p, err := engine.NewNoiseObjective(s.sels, param.Softplus{},
		engine.NoiseOptions{InactiveOnly: true, Exact: gaussianParams})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Prepare(); err != nil {
		t.Fatal(err)
	}
	free, err := p.Free()
	if err != nil {
		t.Fatal(err)
	}
	got := -p.Eval(free, nil)
	if math.IsNaN(got) {
		t.Fatal("eval refused")
	}
	x, y := tasks[0].X, tasks[0].Y
	act := s.sels[0].Active()
	_, dim := x.Dims()
	xa := mat.NewDense(len(act), dim, nil)
	ya := mat.NewVecDense(len(act), nil)
	for i, j := range act {
		xa.SetRow(i, x.RawRowView(j))
		ya.SetVec(i, y[j]-b)
	}
	a := mat.NewDense(len(act), len(act), nil)
	k.K(a, xa, nil)
	for i := range act {
		a.Set(i, i, a.At(i, i)+v)
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(len(act), a.RawMatrix().Data)) {
		t.Fatal("K + vI not positive definite")
	}
	want, n := 0.0, 0
	for i := range y {
		if s.sels[0].IsActive(i) {
			continue
		}
		xi := mat.NewDense(1, dim, append([]float64(nil), x.RawRowView(i)...))
		kn := mat.NewDense(len(act), 1, nil)
		k.K(kn, xa, xi)
		var w mat.Dense
		if err := ch.SolveTo(&w, kn); err != nil {
			t.Fatal(err)
		}
		mu := mat.Dot(ya, w.ColView(0))
		kd := []float64{0}
		k.Diag(kd, xi)
		vs := kd[0] - mat.Dot(kn.ColView(0), w.ColView(0))
		e := y[i] - b - mu
		want += -0.5 * (math.Log(2*math.Pi*(vs+v)) + e*e/(vs+v))
		n++
	}
	if n != 38 || math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("exact term %.12g over %d inactive points, direct %.12g", got, n, want)
	}
}
