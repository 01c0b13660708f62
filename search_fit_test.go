package ivm_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/kern"
)

// polygon returns n rows of 2 inputs in k classes (labels 1..k) around the corners of a
// polygon of radius 3, unit spread.
func polygon(n, k int, seed uint64) (*mat.Dense, []float64) {
	centres, labels := make([][]float64, k), make([]float64, k)
	for c := range centres {
		a := 2 * math.Pi * float64(c) / float64(k)
		centres[c], labels[c] = []float64{3 * math.Cos(a), 3 * math.Sin(a)}, float64(c+1)
	}
	return blobs(rand.New(rand.NewPCG(seed, 7)), n/k, centres, labels, 1)
}

// The default Fit of a one-vs-rest multi-class task searches one kernel for every class,
// tempers the probabilities, and predicts well (the Bayes rule errs on about 4 % of these
// blobs).
func TestSearchSharesOneKernelAcrossClasses(t *testing.T) {
	x, y := polygon(600, 4, 1)
	xt, yt := polygon(2000, 4, 2)
	p, err := ivm.Fit(x, y, ivm.Config{Decomposition: ivm.OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	ovr := asOVR(p)
	if ovr == nil || len(ovr.Models) != 4 || len(ovr.Traces[0]) != 0 {
		t.Fatalf("kind %+v: want 4 one-vs-rest models chosen by the search (no Algorithm 2 trace)",
			p.Kind)
	}
	spec := ovr.Models[0].Kernel.(*kern.Sum).String()
	for c, m := range ovr.Models {
		if s := m.Kernel.(*kern.Sum).String(); s != spec {
			t.Errorf("class %d's kernel %s, class 0's %s: want one kernel", c, s, spec)
		}
	}
	if lo, hi := 0.5, 4.0; ovr.Softmax {
		lo, hi = 0.25, 16
		if !(ovr.Sharpness >= lo && ovr.Sharpness <= hi) {
			t.Errorf("softmax temperature %v outside the searched [%v, %v]", ovr.Sharpness, lo, hi)
		}
	} else if !(ovr.Sharpness >= lo && ovr.Sharpness <= hi) {
		t.Errorf("sharpness %v outside the searched [%v, %v]", ovr.Sharpness, lo, hi)
	}
	if acc := accuracy(t, p, xt, yt); acc < 0.93 {
		t.Errorf("test accuracy %.3f, want ≥ 0.93", acc)
	}
	preds, _ := p.PredictRows([][]float64{{3, 0}})
	sum := 0.0
	for _, q := range preds[0].Prob {
		sum += q
	}
	if math.Abs(sum-1) > 1e-12 || preds[0].Label != 1 {
		t.Errorf("probabilities %v (sum %v), label %v: want a distribution favouring class 1",
			preds[0].Prob, sum, preds[0].Label)
	}
}

// The search is a function of the data and the seed: two fits give the same file.
func TestSearchIsDeterministic(t *testing.T) {
	x, y := polygon(300, 2, 3)
	var files [2]bytes.Buffer
	for i := range files {
		p, err := ivm.Fit(x, y, ivm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Save(&files[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0].Bytes(), files[1].Bytes()) {
		t.Error("two searches on the same data gave different model files")
	}
}

// On a regression with noise variance 25 the learnt kernel predicts about that well, and the
// predictive variance it reports (tempered by Sharpness) covers the test targets about as
// it says: with every row active by the exact GP's marginal likelihood, with fewer by the
// held-out search.
func TestSearchRegressionErrorBars(t *testing.T) {
	for _, d := range []int{0, 100} {
		t.Run(fmt.Sprint("d=", d), func(t *testing.T) { testRegressionErrorBars(t, d) })
	}
}

func testRegressionErrorBars(t *testing.T, d int) {
	rng := rand.New(rand.NewPCG(4, 4))
	make1 := func(n int) (*mat.Dense, []float64) {
		x := mat.NewDense(n, 1, nil)
		y := make([]float64, n)
		for i := range y {
			v := rng.Float64()*6 - 3
			x.Set(i, 0, v)
			y[i] = 100 + 50*math.Sin(2*v) + 5*rng.NormFloat64()
		}
		return x, y
	}
	x, y := make1(300)
	xt, yt := make1(1000)
	p, err := ivm.Fit(x, y, ivm.Config{ActiveSize: d})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := p.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	mse, covered := 0.0, 0
	for i, pr := range preds {
		e := yt[i] - pr.Mean
		mse += e * e / float64(len(yt))
		if math.Abs(e) <= 1.96*math.Sqrt(pr.Var) {
			covered++
		}
	}
	if mse > 1.3*25 {
		t.Errorf("test MSE %.1f; the noise variance is 25", mse)
	}
	if c := float64(covered) / float64(len(yt)); c < 0.92 || c > 0.98 {
		t.Errorf("95 %% intervals cover %.3f of the test targets", c)
	}
}

// A model file keeps the sharpness; a file without one (written before it) reads as 1,
// and a negative one is refused.
func TestSharpnessInModelFiles(t *testing.T) {
	x, y := polygon(200, 3, 6)
	// one-vs-one's sharpness is per pair
	p, err := ivm.Fit(x, y, ivm.Config{Decomposition: ivm.OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	q, err := ivm.Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if asOVR(q).Sharpness != asOVR(p).Sharpness || asOVR(p).Sharpness == 1 {
		t.Errorf("sharpness %v read back as %v (want a searched value ≠ 1, kept)",
			asOVR(p).Sharpness, asOVR(q).Sharpness)
	}
	bad := bytes.Replace(b.Bytes(), []byte(`"sharpness": `), []byte(`"sharpness": -`), 1)
	if _, err := ivm.Load(bytes.NewReader(bad)); err == nil ||
		!strings.Contains(err.Error(), "sharpness") {
		t.Errorf("a negative sharpness: %v, want an error naming it", err)
	}
	asOVR(p).Sharpness = 1
	b.Reset()
	p.Save(&b)
	if bytes.Contains(b.Bytes(), []byte("sharpness")) {
		t.Error("sharpness 1 is written; files without it must mean 1")
	}
	if q, err := ivm.Load(&b); err != nil || asOVR(q).Sharpness != 1 {
		t.Errorf("a file without sharpness: %v, %v", q, err)
	}
}

// A model file keeps the label noise and its predictions; an impossible one, or one on a
// regression model, is refused with a message naming it.
func TestLabelNoiseInModelFiles(t *testing.T) {
	x, y := polygon(120, 3, 7)
	p, err := ivm.Fit(x, y, ivm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	asOVO(p).LabelNoise = 0.03
	want, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range want {
		for _, v := range pr.Prob {
			if v < 0.03/3*(1-1e-12) {
				t.Fatalf("probability %v below ε/K = 0.01 with label noise 0.03", v)
			}
		}
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	q, err := ivm.Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for c := range want[i].Prob {
			if math.Float64bits(got[i].Prob[c]) != math.Float64bits(want[i].Prob[c]) {
				t.Fatalf("row %d class %d: %v after a round trip, %v before",
					i, c, got[i].Prob[c], want[i].Prob[c])
			}
		}
	}
	for _, v := range []string{"1", "-0.1", "1e9"} {
		bad := bytes.Replace(b.Bytes(), []byte(`"label_noise": 0.03`),
			[]byte(`"label_noise": `+v), 1)
		if _, err := ivm.Load(bytes.NewReader(bad)); err == nil ||
			!strings.Contains(err.Error(), "label_noise") {
			t.Errorf("label_noise %s: %v, want an error naming it", v, err)
		}
	}
}

// Past ten rows per active point the default final selection chooses SearchActiveSize
// points from SearchCandidates rows; the model still names its active points by their
// training rows, and predicts well. (A binary task of that size is otherwise a projected
// model: Task Binary, the CLI's -noise probit, keeps the probit IVM.)
func TestFitChoosesFromCandidatePool(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: fits a model of 16 000 rows")
	}
	x, y := polygon(16000, 2, 3)
	xt, yt := polygon(2000, 2, 4)
	n, _ := x.Dims()
	d := ivm.SearchActiveSize(n, 1)
	if pool := ivm.SearchCandidates(n, d); pool >= n {
		t.Fatalf("%d rows, d = %d: pool of %d, want fewer than the rows", n, d, pool)
	}
	p, err := ivm.Fit(x, y, ivm.Config{Task: ivm.Binary})
	if err != nil {
		t.Fatal(err)
	}
	m := asSingle(p).Model
	if m.Size() != d {
		t.Fatalf("%d active points, want SearchActiveSize = %d", m.Size(), d)
	}
	xs, err := asSingle(p).Scaler.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for i, r := range m.Active {
		if r < 0 || r >= n || seen[r] {
			t.Fatalf("active point %d names row %d: outside the %d rows or repeated", i, r, n)
		}
		seen[r] = true
		if !slices.Equal(m.XActive.RawRowView(i), xs.RawRowView(r)) {
			t.Fatalf("active point %d is not training row %d", i, r)
		}
	}
	if acc := accuracy(t, p, xt, yt); acc < 0.97 {
		t.Errorf("test accuracy %.3f, want ≥ 0.97", acc)
	}
}

// Where the search's models already predict their held-out rows right and confidently
// (well separated blobs), the final model keeps the size the search scored at
// (DefaultActiveSize) instead of growing to SearchActiveSize; where the classes overlap it
// grows. 1 200 rows: the default d is 277, the grown one every row. Task Binary keeps the
// probit IVM: with TaskAuto the overlapping blobs' full model fails the constant
// predictor's guard (its held-out log loss is 0.89) and Fit widens to a projected model.
func TestSearchKeepsSizeWhereNothingIsLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: searches two binary tasks of 1 200 rows")
	}
	const n = 1200
	for _, tc := range []struct {
		name   string
		centre float64
		want   int
	}{
		{"separated", 4, ivm.DefaultActiveSize(n, 1)},
		{"overlapping", 0.7, ivm.SearchActiveSize(n, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			x, y := blobs(rng, n/2, [][]float64{{-tc.centre, 0}, {tc.centre, 0}},
				[]float64{-1, 1}, 1)
			p, err := ivm.Fit(x, y, ivm.Config{Task: ivm.Binary})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(modelsOf(p)[0].Active); got != tc.want {
				t.Errorf("%d active points, want %d", got, tc.want)
			}
		})
	}
	if ivm.DefaultActiveSize(n, 1) >= ivm.SearchActiveSize(n, 1) {
		t.Fatal("the test needs a size the search grows")
	}
}
