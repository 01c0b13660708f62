package ivm_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
)

// blobs draws n points per class around the class centres (one per row of centres), with
// unit spread scaled by spread, and labels them with labels.
func blobs(rng *rand.Rand, n int, centres [][]float64, labels []float64,
	spread float64) (*mat.Dense, []float64) {
	dim := len(centres[0])
	x := mat.NewDense(n*len(centres), dim, nil)
	y := make([]float64, 0, n*len(centres))
	for c, mu := range centres {
		for i := 0; i < n; i++ {
			row := x.RawRowView(c*n + i)
			for j := range row {
				row[j] = mu[j] + spread*rng.NormFloat64()
			}
			y = append(y, labels[c])
		}
	}
	return x, y
}

func accuracy(t *testing.T, p *ivm.Predictor, x mat.Matrix, y []float64) float64 {
	t.Helper()
	preds, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for i, q := range preds {
		if q.Label == y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(y))
}

// roundTrip saves and loads p and checks that predictions are bit-identical.
func roundTrip(t *testing.T, p *ivm.Predictor, x mat.Matrix) *ivm.Predictor {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	q, err := ivm.Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Predict(x)
	b, err := q.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i].Label != b[i].Label || !equalFloats(a[i].Prob, b[i].Prob) ||
			a[i].Mean != b[i].Mean || a[i].Var != b[i].Var ||
			!equalFloats(a[i].Latent, b[i].Latent) || !equalFloats(a[i].LatentVar, b[i].LatentVar) {
			t.Fatalf("row %d: %+v before the round trip, %+v after", i, a[i], b[i])
		}
	}
	var again bytes.Buffer
	if err := q.Save(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != text {
		t.Error("the model file changed on a second round trip")
	}
	return q
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The classes train side by side (the race detector runs this test in CI).
func TestFitMultiClassParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	centres := [][]float64{{0, 0}, {3, 0}, {0, 3}, {3, 3}}
	labels := []float64{7, 2, 5, 9}
	x, y := blobs(rng, 60, centres, labels, 0.7)
	xt, yt := blobs(rng, 100, centres, labels, 0.7)
	var reports int
	p, err := ivm.Fit(x, y, ivm.Config{ActiveSize: 60,
		Learn:    engine.LearnOptions{Iters: 2, KernelIters: 20},
		Progress: func(ivm.Progress) { reports++ }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Task != ivm.MultiClass || !equalFloats(p.Classes, []float64{2, 5, 7, 9}) ||
		len(modelsOf(p)) != 4 {
		t.Fatalf("task %v classes %v with %d models", p.Task, p.Classes, len(modelsOf(p)))
	}
	if reports == 0 {
		t.Error("no progress reports")
	}
	// Bayes error with these centres and spread is about 3 %.
	if acc := accuracy(t, p, xt, yt); acc < 0.93 {
		t.Errorf("multi-class accuracy %.3f, want ≥ 0.93", acc)
	}
	preds, _ := p.Predict(xt)
	for i, q := range preds {
		sum := 0.0
		for _, v := range q.Prob {
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 || len(q.Latent) != 4 {
			t.Fatalf("row %d: probabilities %v sum to %g", i, q.Prob, sum)
		}
	}
	roundTrip(t, p, xt)
}

func TestFitTasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Binary with labels 3 and 8, inputs on very different scales (scaling matters).
	x, y := blobs(rng, 80, [][]float64{{0, 0}, {2, 200}}, []float64{3, 8}, 1)
	for i := 0; i < 160; i++ {
		x.Set(i, 1, x.At(i, 1)*100)
	}
	xt, yt := blobs(rng, 100, [][]float64{{0, 0}, {2, 200}}, []float64{3, 8}, 1)
	for i := 0; i < 200; i++ {
		xt.Set(i, 1, xt.At(i, 1)*100)
	}
	p, err := ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	if p.Task != ivm.Binary || asSingle(p).Scaler == nil ||
		!equalFloats(p.Classes, []float64{3, 8}) {
		t.Fatalf("task %v scaler %v classes %v", p.Task, asSingle(p).Scaler, p.Classes)
	}
	if acc := accuracy(t, p, xt, yt); acc < 0.9 {
		t.Errorf("binary accuracy %.3f", acc)
	}
	roundTrip(t, p, xt)

	// Regression: non-integer targets.
	xr := mat.NewDense(120, 1, nil)
	yr := make([]float64, 120)
	for i := range yr {
		v := rng.Float64()*6 - 3
		xr.Set(i, 0, v)
		yr[i] = math.Sin(v) + 0.05*rng.NormFloat64()
	}
	pr, err := ivm.Fit(xr, yr, ivm.Config{ActiveSize: 30, Learn: engine.LearnOptions{Iters: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Task != ivm.Regression || pr.Classes != nil {
		t.Fatalf("task %v classes %v", pr.Task, pr.Classes)
	}
	got, _ := pr.PredictRows([][]float64{{1}})
	if math.Abs(got[0].Label-math.Sin(1)) > 0.1 {
		t.Errorf("regression at 1: %g, want about %g", got[0].Label, math.Sin(1))
	}
	roundTrip(t, pr, xr)

	// Ordinal with categories 10, 20, 30 along one input.
	yo := make([]float64, 120)
	for i := range yo {
		v := xr.At(i, 0)
		yo[i] = 20
		if v < -1 {
			yo[i] = 10
		} else if v > 1 {
			yo[i] = 30
		}
	}
	po, err := ivm.Fit(xr, yo, ivm.Config{Task: ivm.Ordinal, ActiveSize: 40,
		Learn: engine.LearnOptions{Iters: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if acc := accuracy(t, po, xr, yo); acc < 0.9 ||
		!equalFloats(po.Classes, []float64{10, 20, 30}) {
		t.Errorf("ordinal training accuracy %.3f, classes %v", acc, po.Classes)
	}
	roundTrip(t, po, xr)
}

func TestFitErrors(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	for _, c := range []struct {
		y    []float64
		cfg  ivm.Config
		want string
	}{
		{[]float64{1, 1, 1, 1}, ivm.Config{}, "single class"},
		{[]float64{1, 2, math.NaN(), 1}, ivm.Config{Task: ivm.Binary}, "unlabelled"},
		{[]float64{1, 2, math.Inf(1), 1}, ivm.Config{}, "target 3 is +Inf"},
		{[]float64{1, 2, 3}, ivm.Config{}, "3 targets for 4 input rows"},
		{[]float64{1, 2, 1, 2}, ivm.Config{Kernel: "rbf+nope"}, "nope"},
		{[]float64{0.5, 2, 1, 2}, ivm.Config{Task: ivm.Ordinal}, "integers"},
		{[]float64{1, 2, 1, 2}, ivm.Config{Criterion: engine.CriterionChoice(9)}, "criterion"},
		{[]float64{1, 2, 1, 2}, ivm.Config{Transform: engine.Transform(9)}, "transform"},
	} {
		_, err := ivm.Fit(x, c.y, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("y %v cfg %+v: error %v, want one mentioning %q", c.y, c.cfg, err, c.want)
		}
	}
	p, err := ivm.Fit(x, []float64{1, 2, 1, 2}, ivm.Config{ActiveSize: 9, FixedKernel: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "using d = 4") {
		t.Errorf("warnings %q", p.Warnings)
	}
	if _, err := p.Predict(mat.NewDense(1, 2, nil)); err == nil ||
		!strings.Contains(err.Error(), "2 input columns, the model has 1") {
		t.Errorf("dimension mismatch: %v", err)
	}
	if _, err := p.Predict(mat.NewDense(1, 1, []float64{math.NaN()})); err == nil {
		t.Error("NaN input predicted without error")
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"models":[]}`,
			"lacks its kernel"},
		{`{"format":"ivm-model/1","task":"sorting"}`, "unknown task"},
		{`{"format":"ivm-model/1","kernel":{},"models":[{}]}`, "both"},
	} {
		_, err := ivm.Load(strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.file, err, c.want)
		}
	}
}
