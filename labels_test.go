package ivm

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/subset"
	"gonum.org/v1/gonum/mat"
)

// twoBlobs returns n rows of two inputs: class 1 around (1, 0), class 0 around (−1, 0),
// unit spread, so the Bayes rule errs on Φ(−1) ≈ 15.9 % of rows.
func twoBlobs(n int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i % 2)
		x.Set(i, 0, 2*y[i]-1+rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	return x, y
}

// A small binary task's label regression: a Gaussian model with a logistic map whose
// probabilities are calibrated (test log loss near the Bayes rule's) and whose labels
// agree with them, in Predict and PredictLabels, and after a model file's round trip.
func TestFitLabelRegression(t *testing.T) {
	x, y := twoBlobs(300, 1)
	xt, yt := twoBlobs(4000, 2)
	p, err := Fit(x, y, Config{labelsAlways: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := asSingle(p); s == nil || s.Logistic == nil || s.Model.Noise.Name() != "gaussian" ||
		s.Model.Size() != 300 {
		t.Fatalf("kind %+v: want the labels regressed on every row", p.Kind)
	}
	preds, err := p.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	labels, err := p.PredictLabels(xt)
	if err != nil {
		t.Fatal(err)
	}
	wrong, loss, bayes := 0, 0.0, 0.0
	for i, pr := range preds {
		if pr.Label != yt[i] {
			wrong++
		}
		if pr.Label != labels[i].Label || (pr.Prob[1] > 0.5) != (pr.Label == 1) {
			t.Fatalf("row %d: label %v, probabilities %v, PredictLabels %v",
				i, pr.Label, pr.Prob, labels[i].Label)
		}
		loss -= math.Log(pr.Prob[int(yt[i])])
		q := 1 / (1 + math.Exp(-2*xt.At(i, 0))) // the Bayes posterior of class 1
		if yt[i] == 0 {
			q = 1 - q
		}
		bayes -= math.Log(q)
	}
	n := float64(len(yt))
	if e := float64(wrong) / n; e > 0.18 {
		t.Errorf("test error %.3f; the Bayes rule's is 0.159", e)
	}
	if loss/n > bayes/n+0.03 {
		t.Errorf("test log loss %.4f; the Bayes posterior's %.4f", loss/n, bayes/n)
	}
	if _, file := reloaded(t, p, xt); !strings.Contains(file, `"logistic"`) {
		t.Fatal(`the model file lacks "logistic"`)
	}
	// One-vs-one pairs never take the label regression alone: the probit model, or a blend.
	y3 := make([]float64, len(y))
	for i := range y3 {
		y3[i] = float64(i % 3)
	}
	p3, err := Fit(x, y3, Config{Decomposition: OneVsOne})
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range asOVO(p3).Pairs {
		if s := asSingle(pp); s != nil && (s.Logistic != nil || s.Model.Noise.Name() != "probit") {
			t.Fatalf("a one-vs-one pair with logistic %v, noise %s",
				s.Logistic, s.Model.Noise.Name())
		}
	}
	// A pair that is a label regression (built here, from the binary model above, whose
	// classes are the pair's 0 and 1; Fit does not make one) keeps its map in the file.
	asOVO(p3).Pairs[0] = p
	if back3, _ := reloaded(t, p3, xt); asSingle(asOVO(back3).Pairs[0]).Logistic == nil {
		t.Fatal("the pair's logistic map is lost in the round trip")
	}
}

// Model files whose logistic map cannot be used, or belongs to no label regression, are
// refused with an error that names it.
func TestLogisticInModelFiles(t *testing.T) {
	x, y := twoBlobs(60, 4)
	p, err := Fit(x, y, Config{labelsAlways: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	i := strings.Index(good, `"logistic"`)
	j := i + strings.Index(good[i:], "}") + 1
	for name, bad := range map[string]string{
		"slope 0":           good[:i] + `"logistic": {"slope": 0, "offset": 0.1}` + good[j:],
		"negative slope":    good[:i] + `"logistic": {"slope": -2, "offset": 0.1}` + good[j:],
		"no logistic map":   good[:i] + `"label_noise": 0.001` + good[j:],
		"probit with a map": strings.Replace(good, `"type": "gaussian"`, `"type": "probit"`, 1),
	} {
		if _, err := Load(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: loaded", name)
		} else if !strings.Contains(err.Error(), "logistic") &&
			!strings.Contains(err.Error(), "noise") &&
			!strings.Contains(err.Error(), "unknown field") {
			t.Errorf("%s: %v, want an error naming the logistic map or the noise model", name, err)
		}
	}
}

// Fit takes the label regression (alone or blended with the probit model) where it predicts
// its left-out rows better than, or about as well as, the probit search's kernel predicts its
// held-out ones, and keeps the probit model alone where it predicts them clearly worse: here
// the first (120 rows in 10 dimensions, the class inside a sphere) and the second (inputs
// with many repeated values, as the house votes, where the marginal likelihood
// interpolates).
func TestFitChoosesLabelRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	x := mat.NewDense(120, 10, nil)
	y := make([]float64, 120)
	for i := range y {
		r := 0.0
		for d := 0; d < 10; d++ {
			v := rng.NormFloat64()
			x.Set(i, d, v)
			r += v * v
		}
		if r < 10 {
			y[i] = 1
		}
	}
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasLabels(p) {
		t.Errorf("the sphere in 10 dimensions: the probit search's model was kept")
	}
	votes := mat.NewDense(120, 8, nil)
	yv := make([]float64, 120)
	for i := range yv {
		yv[i] = float64(i % 2)
		for d := 0; d < 8; d++ {
			v := yv[i]
			if rng.Float64() < 0.2 {
				v = 1 - v
			}
			votes.Set(i, d, v)
		}
	}
	if p, err = Fit(votes, yv, Config{}); err != nil {
		t.Fatal(err)
	}
	if hasLabels(p) {
		t.Errorf("120 rows of 8 binary inputs: the label regression was taken")
	}
}

// hasLabels reports whether p is a label regression or blends one.
func hasLabels(p *Predictor) bool {
	if bl := asBlend(p); bl != nil {
		for _, mp := range bl.Members {
			if asSingle(mp).Logistic != nil {
				return true
			}
		}
	}
	return asSingle(p) != nil && asSingle(p).Logistic != nil
}

// Relearning a model that holds every row as an active point whose site tells its label (a
// label regression's is the label coded ±1, a probit site's mean lies on the label's side of
// the latent mean at its inclusion) fits it again on those rows and the new ones: the model
// is the one Fit makes of them all, on the inputs as the model's scaling makes them, with
// the new rows numbered after the old.
func TestRelearnRefitsHeldRows(t *testing.T) {
	x, y := twoBlobs(200, 1)
	xn, yn := twoBlobs(50, 2)
	all := mat.NewDense(250, 2, nil)
	all.Stack(x, xn)
	for _, cfg := range []Config{{labelsAlways: true}, {Task: Binary}} {
		p, err := Fit(x, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		q, err := p.Update(xn, yn, UpdateOptions{Relearn: true})
		if err != nil {
			t.Fatal(err)
		}
		sk := asSingle(p)
		xs, err := sk.Scaler.Apply(all)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Scale = dataset.ScaleNone
		want, err := Fit(xs, append(append([]float64(nil), y...), yn...), cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, ws := asSingle(q), asSingle(want)
		if got == nil || (got.Logistic == nil) != (sk.Logistic == nil) ||
			got.Logistic != nil && *got.Logistic != *ws.Logistic ||
			fmt.Sprint(got.Model.Kernel) != fmt.Sprint(ws.Model.Kernel) ||
			got.Sharpness != ws.Sharpness || got.Scaler != sk.Scaler {
			t.Fatalf("relearnt %+v, kernel %v; Fit on every row: %+v, kernel %v", got,
				got.Model.Kernel, ws, ws.Model.Kernel)
		}
		if m := got.Model; m.Size() != ws.Model.Size() || slices.Max(m.Active) > 249 ||
			slices.Max(m.Active) < 200 {
			t.Errorf("%d active points (Fit: %d), rows %v", m.Size(), ws.Model.Size(), m.Active)
		}
		if u := q.Training.Updates; len(u) != 1 || !u[0].Relearn {
			t.Errorf("updates recorded %+v", u)
		}
	}
}

// threeBlobs returns n rows of two inputs in three classes around the corners of a triangle.
func threeBlobs(n int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		c := i % 3
		y[i] = float64(c)
		a := 2 * math.Pi * float64(c) / 3
		x.Set(i, 0, 1.5*math.Cos(a)+rng.NormFloat64())
		x.Set(i, 1, 1.5*math.Sin(a)+rng.NormFloat64())
	}
	return x, y
}

// A one-vs-one model's pairs are relearnt side by side (run under -race in CI), each fitted
// again on its rows and the new ones, and the model relearnt predicts held-out rows about as
// well as one trained on all the rows.
func TestRelearnPairsParallel(t *testing.T) {
	x, y := threeBlobs(150, 1)
	xn, yn := threeBlobs(150, 2)
	xt, yt := threeBlobs(3000, 3)
	p, err := Fit(x, y, Config{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.Update(xn, yn, UpdateOptions{Relearn: true, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	ovo, ok := q.Kind.(*OneVsOneKind)
	if !ok {
		t.Fatalf("kind %T, want one-vs-one", q.Kind)
	}
	for j, pp := range ovo.Pairs {
		if pp.Training.Rows != 200 {
			t.Errorf("pair %d: %d rows, want its 100 and the 100 new", j, pp.Training.Rows)
		}
	}
	all := mat.NewDense(300, 2, nil)
	all.Stack(x, xn)
	full, err := Fit(all, append(append([]float64(nil), y...), yn...), Config{})
	if err != nil {
		t.Fatal(err)
	}
	lq, lf := testLogLoss(t, q, xt, yt), testLogLoss(t, full, xt, yt)
	t.Logf("test log loss: relearnt %.4f, trained on all rows %.4f", lq, lf)
	if lq > lf+0.02 {
		t.Errorf("test log loss %.4f relearnt, %.4f trained on all rows", lq, lf)
	}
}

// A one-vs-rest model whose classes' models hold every row is relearnt by fitting it again:
// a row's class is the one whose model's site says +1, and the model is Fit's on all rows.
func TestRelearnRefitsOneVsRest(t *testing.T) {
	x, y := threeBlobs(150, 1)
	xn, yn := threeBlobs(60, 2)
	p, err := Fit(x, y, Config{Decomposition: OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	ovr, ok := p.Kind.(*OneVsRestKind)
	if !ok || ovr.Models[0].Size() != 150 {
		t.Fatalf("kind %T: want one-vs-rest models of every row", p.Kind)
	}
	q, err := p.Update(xn, yn, UpdateOptions{Relearn: true})
	if err != nil {
		t.Fatal(err)
	}
	all := mat.NewDense(210, 2, nil)
	all.Stack(x, xn)
	xs, err := ovr.Scaler.Apply(all)
	if err != nil {
		t.Fatal(err)
	}
	// The held rows come in the first class's inclusion order.
	order := slices.Clone(ovr.Models[0].Active)
	for j := range 60 {
		order = append(order, 150+j)
	}
	ys := append(append([]float64(nil), y...), yn...)
	want, err := Fit(subset.Dense(xs, order), subset.Of(ys, order), Config{Task: MultiClass,
		Scale: dataset.ScaleNone, Decomposition: OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	got, ws := q.Kind.(*OneVsRestKind), want.Kind.(*OneVsRestKind)
	if got.Sharpness != ws.Sharpness || got.Softmax != ws.Softmax || got.Scaler != ovr.Scaler ||
		fmt.Sprint(got.Models[1].Kernel) != fmt.Sprint(ws.Models[1].Kernel) {
		t.Fatalf("relearnt a = %v, softmax %v, kernel %v; Fit: %v, %v, %v", got.Sharpness,
			got.Softmax, got.Models[1].Kernel, ws.Sharpness, ws.Softmax, ws.Models[1].Kernel)
	}
	if m := got.Models[2]; slices.Max(m.Active) != 209 || m.Size() != ws.Models[2].Size() {
		t.Errorf("class 2: %d active points, rows up to %d", m.Size(), slices.Max(m.Active))
	}
}
