package projected

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
)

// TestSystem checks the blocked, upper-triangle accumulation and the in-place and
// copying solves against W = (K_mnK_nm + λK_mm)⁻¹K_mnY formed densely, with more rows than
// a block and more centres than a panel.
func TestSystem(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, m, classes, dim := blockRows+300, panelRows+50, 3, 8
	x := mat.NewDense(n, dim, nil)
	cls := make([]int, n)
	for i := range n {
		for j := range dim {
			x.Set(i, j, rng.NormFloat64())
		}
		cls[i] = rng.IntN(classes)
	}
	k, err := kern.Parse("rbf(gamma=0.5,variance=1)", dim)
	if err != nil {
		t.Fatal(err)
	}
	centres := subset.Dense(x, distinctRows(x, rng.Perm(n), m))
	rows := rng.Perm(n)
	sys := newSystem(m, classes)
	if err := sys.addRows(&Model{Centres: centres, k: k}, x, nil, rows,
		Targets{cls: cls, classes: classes}, nil); err != nil {
		t.Fatal(err)
	}
	const lambda = 0.01
	kmm := func(dst *mat.Dense, lo, hi int) { k.K(dst, centres.Slice(lo, hi, 0, dim), centres) }
	copied, jit, err := sys.clone().solve(lambda, kmm)
	if err != nil || jit != 0 {
		t.Fatalf("solve: jitter %g, %v", jit, err)
	}
	inPlace, _, err := sys.solve(lambda, kmm)
	if err != nil {
		t.Fatal(err)
	}
	// unfactor restores A, whose factorisation gives the same weights again.
	sys.unfactor()
	if _, err := sys.factor(); err != nil {
		t.Fatal(err)
	}
	again, err := sys.weights()
	if err != nil || !mat.Equal(again, inPlace) {
		t.Errorf("the weights after unfactor and factor differ (%v)", err)
	}
	knm, kmmFull := mat.NewDense(n, m, nil), mat.NewDense(m, m, nil)
	k.K(knm, x, centres)
	k.K(kmmFull, centres, centres)
	y := mat.NewDense(n, classes, nil)
	for i, c := range cls {
		for cl := range classes {
			y.Set(i, cl, -1)
		}
		y.Set(i, c, 1)
	}
	var a, r, want mat.Dense
	a.Mul(knm.T(), knm)
	kmmFull.Scale(lambda, kmmFull)
	a.Add(&a, kmmFull)
	r.Mul(knm.T(), y)
	if err := want.Solve(&a, &r); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*mat.Dense{"a clone's": copied, "in place": inPlace} {
		if !mat.EqualApprox(w, &want, 1e-6*mat.Norm(&want, math.Inf(1))) {
			t.Errorf("%s solve differs from the dense one", name)
		}
	}
	pr := &Model{Centres: centres, Weights: inPlace, k: k}
	var f mat.Dense
	f.Mul(knm, inPlace)
	// Latents reorders nothing: the rows of x in their order.
	if got := pr.Latents(x); !mat.EqualApprox(got, &f, 1e-9) {
		t.Error("latents differ from K(x, C)·W")
	}
}

// TestLeaveOneOut checks the leave-one-out latents against systems solved again without
// each row, for classes and for a regression, with more rows than a block.
func TestLeaveOneOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, m, dim := blockRows+40, 30, 3
	x := mat.NewDense(n, dim, nil)
	cls, y := make([]int, n), make([]float64, n)
	for i := range n {
		for j := range dim {
			x.Set(i, j, rng.NormFloat64())
		}
		cls[i] = rng.IntN(3)
		y[i] = math.Sin(x.At(i, 0)) + 0.3*rng.NormFloat64()
	}
	k, err := kern.Parse("rbf(gamma=0.5,variance=1)", dim)
	if err != nil {
		t.Fatal(err)
	}
	centres := subset.Dense(x, distinctRows(x, rng.Perm(n), m))
	kmm := func(dst *mat.Dense, lo, hi int) { k.K(dst, centres.Slice(lo, hi, 0, dim), centres) }
	kxc := func(dst, xr *mat.Dense) { k.K(dst, xr, centres) }
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for name, tg := range map[string]Targets{"classes": {cls: cls, classes: 3},
		"regression": {y: y}} {
		solveWithout := func(drop int) *mat.Dense {
			sys := tg.system(m)
			rows := slices.Delete(slices.Clone(all), drop, drop+1)
			pr := &Model{Centres: centres, k: k}
			if err := sys.addRows(pr, x, nil, rows, tg, nil); err != nil {
				t.Fatal(err)
			}
			w, _, err := sys.solve(0.1, kmm)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		sys := tg.system(m)
		if err := sys.addRows(&Model{Centres: centres, k: k}, x, nil, all, tg, nil); err != nil {
			t.Fatal(err)
		}
		w, _, err := sys.solve(0.1, kmm)
		if err != nil {
			t.Fatal(err)
		}
		loo := sys.leaveOneOut(x, tg.codes(all), w, kxc)
		pr := &Model{Centres: centres, k: k}
		for _, i := range []int{0, 7, blockRows + 3, n - 1} {
			pr.Weights = solveWithout(i)
			want := pr.Latents(mat.DenseCopyOf(x.Slice(i, i+1, 0, dim)))
			pr.Weights = w
			inSample := pr.Latents(mat.DenseCopyOf(x.Slice(i, i+1, 0, dim)))
			got := loo.RawRowView(i)
			if !floats.EqualApprox(got, want.RawRowView(0), 1e-8) {
				t.Errorf("%s: row %d's leave-one-out latents %v, solved without it %v",
					name, i, got, want.RawRowView(0))
			}
			if floats.EqualApprox(got, inSample.RawRowView(0), 1e-3) {
				t.Errorf("%s: row %d's leave-one-out latents are its in-sample ones", name, i)
			}
		}
	}
}

// TestCalibrationRows: the held-out rows and then rows of the rest from its end, never a
// centre, at most calRows, and a fifth of the rows left for the constant predictor.
func TestCalibrationRows(t *testing.T) {
	for _, n := range []int{100, 3000, 40000} {
		perm := rand.New(rand.NewPCG(uint64(n), 1)).Perm(n)
		nv := min(n/5, valRows)
		val, rest := perm[:nv], perm[nv:]
		centres := rest[:min(len(rest), n/3)]
		cal := calibrationRows(val, rest, centres)
		if !slices.Equal(cal[:nv], val) {
			t.Errorf("n %d: the calibration rows do not begin with the held-out rows", n)
		}
		for _, r := range cal {
			if slices.Contains(centres, r) {
				t.Fatalf("n %d: row %d is a centre", n, r)
			}
		}
		want := min(calRows, n*4/5, nv+len(rest)-len(centres))
		if len(cal) != want || len(subset.Others(n, cal)) != n-want {
			t.Errorf("n %d: %d calibration rows, %d others; want %d", n, len(cal),
				len(subset.Others(n, cal)), want)
		}
	}
}

// TestScoreMapGradient checks the score map's objective gradient by central differences,
// with the log inputs and without.
func TestScoreMapGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, k := 40, 4
	random := func(r, c int) *mat.Dense {
		a := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		return a
	}
	cls := make([]int, n)
	for i := range cls {
		cls[i] = rng.IntN(k)
	}
	f := random(n, k)
	for _, l := range []*mat.Dense{nil, random(n, k)} {
		size := k*k + k
		if l != nil {
			size += k
		}
		w0, w := random(1, size).RawRowView(0), random(1, size).RawRowView(0)
		obj := scoreMapObjective(f, l, cls, w0, 0.1)
		grad := make([]float64, len(w))
		obj(w, grad)
		const h = 1e-6
		for i := range w {
			wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
			wp[i] += h
			wm[i] -= h
			if fd := (obj(wp, nil) - obj(wm, nil)) / (2 * h); math.Abs(fd-grad[i]) >
				1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("logs %v: ∂/∂w[%d] = %.8g, finite difference %.8g", l != nil, i,
					grad[i], fd)
			}
		}
	}
}

// TestCalibrateLogInputs: two classes whose regressed probabilities q run from a few per
// thousand to a third, a rare class whose odds change tenfold where the latents barely move.
// The calibration chooses the log inputs, which predict rows it did not see better than
// the best linear map of the latents.
func TestCalibrateLogInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	latents := func(n int) (*mat.Dense, []int) {
		f := mat.NewDense(n, 2, nil)
		cls := make([]int, n)
		for i := range n {
			q := math.Exp(-6 + 5*rng.Float64()) // P(class 1), 0.0025 to 0.37
			if rng.Float64() < q {
				cls[i] = 1
			}
			f.SetRow(i, []float64{1 - 2*q, 2*q - 1})
		}
		return f, cls
	}
	f, cls := latents(4000)
	sm, eps, _, _, err := calibrate(f, cls)
	if err != nil {
		t.Fatal(err)
	}
	if sm.logWeight == nil {
		t.Fatal("the calibration left out the log inputs")
	}
	linear, err := fitScoreMap(f, cls, fitSoftmax(f, cls).a, 1e-4, false)
	if err != nil {
		t.Fatal(err)
	}
	ft, ct := latents(20000)
	withLogs, without := mapLoss(sm, ft, ct, eps), mapLoss(linear, ft, ct, eps)
	if withLogs > without-0.003 {
		t.Errorf("test log loss %.4f with the log inputs, %.4f without: want 0.003 lower",
			withLogs, without)
	}
}

// TestCalibrate: where the latents confuse two classes in a way a temperature
// cannot express (class 1's rows score class 0 as high as their own), the score map learns
// it and predicts rows it did not see better than the temperature alone.
func TestCalibrate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	latents := func(n int) (*mat.Dense, []int) {
		f := mat.NewDense(n, 3, nil)
		cls := make([]int, n)
		for i := range n {
			c := rng.IntN(3)
			cls[i] = c
			row := f.RawRowView(i)
			for j := range row {
				row[j] = -1 + 0.3*rng.NormFloat64()
			}
			row[c] += 2
			if c == 1 {
				row[0] += 1.6 // class 1 looks like class 0 to the regression too
			}
		}
		return f, cls
	}
	f, cls := latents(1000)
	sm, eps, _, _, err := calibrate(f, cls)
	if err != nil {
		t.Fatal(err)
	}
	temp := fitSoftmax(f, cls)
	ft, ct := latents(2000)
	mapped, tempered := mapLoss(sm, ft, ct, eps),
		mapLoss(temperatureMap(temp.a, 3), ft, ct, temp.eps)
	if !(mapped < tempered-0.05) {
		t.Errorf("test log loss with the score map %.4f, with the temperature alone %.4f: "+
			"want the map lower by 0.05", mapped, tempered)
	}
	if eps < calib.LabelNoiseLevels[0] || math.IsNaN(mapped) {
		t.Errorf("label noise %v, loss %v", eps, mapped)
	}
}

func TestPowDense(t *testing.T) {
	a := mat.NewDense(1, 3, []float64{0.25, 0.5, 1})
	for step, want := range map[int][]float64{
		2:  {0.25 * 0.25 * 0.25 * 0.25, 0.0625, 1},
		-1: {0.5, math.Sqrt(0.5), 1},
		0:  {0.25, 0.5, 1},
	} {
		if got := powDense(a, step).RawRowView(0); !floats.EqualApprox(got, want, 1e-15) {
			t.Errorf("powDense(step %d) = %v, want %v", step, got, want)
		}
	}
	if a.At(0, 0) != 0.25 {
		t.Error("powDense changed its argument")
	}
}

func TestDistinctRows(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{1, 2, 1, 2, 3, 4, 1, 2, 5, 6})
	if got := distinctRows(x, []int{0, 1, 2, 3, 4}, 3); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("distinctRows = %v, want [0 2 4]", got)
	}
	if got := distinctRows(x, []int{3, 1, 0}, 3); !slices.Equal(got, []int{3}) {
		t.Errorf("distinctRows of one repeated row = %v, want [3]", got)
	}
}

func TestCentres(t *testing.T) {
	for n, want := range map[int]int{
		100: 5000, 10000: 5000, 20000: 5946, 60000: 7500, 1000000: 7500,
	} {
		if got := Centres(n, 10); got != want {
			t.Errorf("Centres(%d) = %d, want %d", n, got, want)
		}
	}
	if got := Centres(60000, 2); got != centresPerBoundary {
		t.Errorf("Centres(60000, 2) = %d, want %d", got, centresPerBoundary)
	}
	// Fashion-MNIST's 60 000 images of 784 inputs: the inputs and the fit within 2 GiB.
	if need := 8*60000*784 + Bytes(60000, 784, 0, 10); need > 1.5*(1<<30) {
		t.Errorf("Bytes: %.3g bytes with the inputs, want at most 1.5 GiB", need)
	}
}

// A scaling learnt when its search begins (Scaling.Learn) is searched as the one it learns,
// whatever the order the scalings are searched in, and one whose learning fails is left
// out.
func TestLearntScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, dim := 300, 3
	x := mat.NewDense(n, dim, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range dim {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = math.Sin(2*x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	tg, err := RealTargets(y)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(s ...Scaling) *Model {
		t.Helper()
		res, err := Fit(x, tg, s, Options{Seed: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Model
	}
	learn := func(gamma float64, err error) Scaling {
		return Scaling{Learn: func() (*dataset.Scaler, float64, error) { return nil, gamma, err }}
	}
	given := fit(Scaling{StartGamma: 0.3})
	learnt := fit(learn(0.3, nil))
	failed := fit(Scaling{StartGamma: 0.3}, learn(0.3, errors.New("no")), learn(math.NaN(), nil))
	for name, m := range map[string]*Model{"learnt": learnt, "beside failures": failed} {
		if m.Kernel != given.Kernel || m.Lambda != given.Lambda ||
			!mat.Equal(m.Weights, given.Weights) {
			t.Errorf("%s: %s λ %g, want the given scaling's %s λ %g", name, m.Kernel, m.Lambda,
				given.Kernel, given.Lambda)
		}
	}
}

// Two scalings' searches run side by side only where both fit in parallelBytes and in half
// the process's memory limit: letter's shape (15 000 rows, 16 inputs, 26 classes) on two
// workers under a 1.6 GB limit (ivm train's default), not under 800 MB, and never
// Fashion-MNIST's 784 inputs.
func TestSearchesAtOnce(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, c := range []struct {
		limit          int64
		n, dim, labels int
		want           int
	}{
		{1600 << 20, 15000, 16, 26, 2},
		{800 << 20, 15000, 16, 26, 1},
		{1600 << 20, 60000, 784, 10, 1},
		{math.MaxInt64, 15000, 16, 26, 2},
	} {
		debug.SetMemoryLimit(c.limit)
		if got := searchesAtOnce(c.n, c.dim, c.labels, 2); got != c.want {
			t.Errorf("%d rows of %d inputs, limit %d: %d searches at once, want %d", c.n, c.dim,
				c.limit, got, c.want)
		}
	}
}

// A rare class whose odds grow steadily along one input (P from 0.2 % to 50 %): the fitted
// model carries the log inputs of its calibration, and its probabilities predict new rows
// better than the class frequencies by most of what the true probabilities do.
func TestFitRareClassLogInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	draw := func(n int) (*mat.Dense, []int, []float64) {
		x, cls, p := mat.NewDense(n, 1, nil), make([]int, n), make([]float64, n)
		for i := range n {
			v := 6 * rng.Float64()
			x.Set(i, 0, v)
			p[i] = 1 / (1 + math.Exp(6-v))
			if rng.Float64() < p[i] {
				cls[i] = 1
			}
		}
		return x, cls, p
	}
	x, cls, _ := draw(6000)
	tg, err := ClassTargets(cls, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(x, tg, []Scaling{{StartGamma: 0.5}}, Options{Seed: 1, Centres: 200}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Model
	if pr.LogWeight == nil {
		t.Fatal("the model has no log inputs")
	}
	xt, ct, pt := draw(20000)
	f := pr.Latents(xt)
	var model, truth, prior float64
	freq := 0.0
	for _, c := range cls {
		freq += float64(c) / float64(len(cls))
	}
	for i, c := range ct {
		z := pr.Scores(f.RawRowView(i))
		calib.Softmax(z, 1)
		q := []float64{1 - pt[i], pt[i]}
		model -= math.Log(z[c])
		truth -= math.Log(q[c])
		prior -= math.Log([]float64{1 - freq, freq}[c])
	}
	if gap := (model - truth) / (prior - truth); gap > 0.05 {
		t.Errorf("test log loss %.4f, the truth's %.4f, the prior's %.4f: %.0f %% of the "+
			"way from the truth to the prior, want at most 5 %%", model/20000, truth/20000,
			prior/20000, 100*gap)
	}
}

// TestFinalLambda: where the search's λ lets the final model's many centres chase the noise,
// finalLambda takes a larger λ of the grid, whose leave-one-out loss is lower, and the
// model it returns predicts new rows better; where the search's λ is the grid's best it
// stays.
func TestFinalLambda(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	draw := func(n int) (*mat.Dense, []float64) {
		x := mat.NewDense(n, 3, nil)
		y := make([]float64, n)
		for i := range n {
			a, b, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			x.SetRow(i, []float64{a, b, c})
			y[i] = 0.3*a + 2*rng.NormFloat64() // a weak, linear signal in loud noise
		}
		return x, y
	}
	const n, m = 4000, 800
	x, y := draw(n)
	xt, yt := draw(2000)
	tg, err := RealTargets(y)
	if err != nil {
		t.Fatal(err)
	}
	spec := kernelSpec(0.5)
	k, err := kern.Parse(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	centres := subset.Dense(x, subset.All(n)[:m])
	built := func(lambda float64) (*Model, *system) {
		pr := &Model{Kernel: spec, Lambda: lambda, Centres: centres, k: k}
		sys := tg.system(pr.featureCount())
		if err := sys.addRows(pr, x, nil, subset.All(n), tg, nil); err != nil {
			t.Fatal(err)
		}
		return pr, sys
	}
	final := func(lambda float64) *Result {
		pr, sys := built(lambda)
		res, _, err := finalLambda(pr, sys, x, tg, nil, subset.All(n)[m:])
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	testMSE := func(pr *Model) float64 {
		f := pr.Latents(xt)
		s := 0.0
		for i, v := range yt {
			d := pr.Scores(f.RawRowView(i))[0]*tg.sd + tg.mean - v
			s += d * d
		}
		return s / float64(len(yt))
	}
	small := final(1e-4)
	if small.Model.Lambda <= 1e-4 {
		t.Fatalf("λ %g kept: want a larger one of the grid", small.Model.Lambda)
	}
	alone, sys := built(1e-4)
	if _, err := alone.solve(sys); err != nil {
		t.Fatal(err)
	}
	alone.setScoreMap(scoreMap{mix: mat.NewDense(1, 1, []float64{1}), offset: []float64{0}})
	chosen, kept := testMSE(small.Model), testMSE(alone)
	t.Logf("λ 1e-4 → %g: test MSE %.4f against %.4f", small.Model.Lambda, chosen, kept)
	if chosen >= kept {
		t.Errorf("test MSE %.4f at the chosen λ %g, %.4f at 1e-4", chosen, small.Model.Lambda,
			kept)
	}
	if again := final(small.Model.Lambda); again.Model.Lambda != small.Model.Lambda {
		t.Errorf("from the best λ %g, finalLambda moved to %g", small.Model.Lambda,
			again.Model.Lambda)
	}
}
