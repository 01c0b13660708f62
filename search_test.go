package ivm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// blobs returns n rows of 2 inputs in k classes (labels 1..k) around the corners of a
// polygon, with label noise flip (a fraction of rows get a random label).
func blobs(n, k int, flip float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		c := i % k
		a := 2 * math.Pi * float64(c) / float64(k)
		x.Set(i, 0, 3*math.Cos(a)+rng.NormFloat64())
		x.Set(i, 1, 3*math.Sin(a)+rng.NormFloat64())
		if rng.Float64() < flip {
			c = rng.IntN(k)
		}
		y[i] = float64(c + 1)
	}
	return x, y
}

func accuracy(t *testing.T, p *Predictor, x mat.Matrix, y []float64) float64 {
	t.Helper()
	preds, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i, pr := range preds {
		if pr.Label == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}

// The default Fit of a multi-class task searches one kernel for every class, tempers the
// probabilities, and predicts well (the Bayes rule errs on about 4 % of these blobs).
func TestSearchSharesOneKernelAcrossClasses(t *testing.T) {
	x, y := blobs(600, 4, 0, 1)
	xt, yt := blobs(2000, 4, 0, 2)
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Models) != 4 || len(p.Traces[0]) != 0 {
		t.Fatalf("%d models, trace %v: want 4 one-vs-rest models chosen by the search (no Algorithm 2 trace)", len(p.Models), p.Traces[0])
	}
	spec := p.Models[0].Kernel.(*kern.Sum).String()
	for c, m := range p.Models {
		if s := m.Kernel.(*kern.Sum).String(); s != spec {
			t.Errorf("class %d's kernel %s, class 0's %s: want one kernel", c, s, spec)
		}
	}
	if !(p.Sharpness >= 0.5 && p.Sharpness <= 4) {
		t.Errorf("sharpness %v outside the searched [0.5, 4]", p.Sharpness)
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
		t.Errorf("probabilities %v (sum %v), label %v: want a distribution favouring class 1", preds[0].Prob, sum, preds[0].Label)
	}
}

// The search is a function of the data and the seed: two fits give the same file.
func TestSearchIsDeterministic(t *testing.T) {
	x, y := blobs(300, 2, 0.1, 3)
	var files [2]bytes.Buffer
	for i := range files {
		p, err := Fit(x, y, Config{})
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

// On a noiseless regression the search chooses a small noise variance, and the predictive
// variance it reports (tempered by Sharpness) covers the test targets about as it says.
func TestSearchRegressionErrorBars(t *testing.T) {
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
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := p.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	mse, covered := 0.0, 0
	for i, pr := range preds {
		e := yt[i] - pr.Mean[0]
		mse += e * e / float64(len(yt))
		if math.Abs(e) <= 1.96*math.Sqrt(pr.Var[0]) {
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

// sharpen tempers probabilities in log space: q^a normalised, tiny values included.
func TestSharpen(t *testing.T) {
	q := []float64{0.2, 0.6, 0.2}
	sharpen(q, 2)
	want := []float64{0.04 / 0.44, 0.36 / 0.44, 0.04 / 0.44}
	for i := range q {
		if math.Abs(q[i]-want[i]) > 1e-15 {
			t.Errorf("sharpen: %v, want %v", q, want)
		}
	}
	tiny := []float64{1e-300, 1e-310}
	sharpen(tiny, 3)
	if !(tiny[0] > 0.99999 && tiny[0] <= 1 && tiny[1] > 0) {
		t.Errorf("sharpen of tiny values: %v", tiny)
	}
	zero := []float64{0, 0}
	sharpen(zero, 2)
	if zero[0] != 0 || zero[1] != 0 {
		t.Errorf("sharpen of zeros: %v, want them left", zero)
	}
}

func TestGoldenMin(t *testing.T) {
	x := goldenMin(func(v float64) float64 { return (v - 0.3) * (v - 0.3) }, -2, 2, 1e-6)
	if math.Abs(x-0.3) > 1e-5 {
		t.Errorf("goldenMin = %v, want 0.3", x)
	}
}

// Folds are stratified: every class is dealt evenly over them.
func TestDealFoldsStratifies(t *testing.T) {
	y := make([]float64, 90)
	for i := range y {
		y[i] = float64(i % 3)
		if i < 30 {
			y[i] = 5 // a class of 30 rows
		}
	}
	assign := dealFolds(y, true, rand.New(rand.NewPCG(1, 1)))
	count := map[[2]float64]int{}
	for i, f := range assign {
		count[[2]float64{y[i], float64(f)}]++
	}
	for key, n := range count {
		total := 0
		for i := range y {
			if y[i] == key[0] {
				total++
			}
		}
		if math.Abs(float64(n)-float64(total)/searchFolds) > 1 {
			t.Errorf("class %v has %d of its %d rows in fold %v", key[0], n, total, key[1])
		}
	}
}

func TestDefaultActiveSize(t *testing.T) {
	for _, c := range []struct{ n, problems, want int }{
		{150, 3, 150}, {1000, 1, 1000}, {1000, 3, 253}, {7291, 10, 683}, {60000, 10, 1250},
	} {
		if got := DefaultActiveSize(c.n, c.problems); got != c.want {
			t.Errorf("DefaultActiveSize(%d, %d) = %d, want %d", c.n, c.problems, got, c.want)
		}
	}
}

// With exact sites (Gaussian noise) the posterior does not depend on the order of the
// inclusions, so IncludeAll and a greedy Select of every point give the same model.
func TestIncludeAllMatchesSelectingEveryPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 60
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		y[i] = math.Sin(x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	var mus [2][]float64
	for i := range mus {
		k, err := kern.Parse("rbf(gamma=0.5)+bias+white(variance=0.01)", 2)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSelector(x, y, k, noise.NewGaussian(0), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			err = s.IncludeAll()
		} else {
			err = s.Select(n)
		}
		if err != nil {
			t.Fatal(err)
		}
		mus[i] = append([]float64(nil), s.Mean()...)
	}
	for i := range mus[0] {
		if math.Abs(mus[0][i]-mus[1][i]) > 1e-8 {
			t.Fatalf("posterior mean %d: %v in index order, %v in greedy order", i, mus[0][i], mus[1][i])
		}
	}
}

// A model file keeps the sharpness; a file without one (written before it) reads as 1,
// and a negative one is refused.
func TestSharpnessInModelFiles(t *testing.T) {
	x, y := blobs(200, 3, 0, 6)
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	q, err := Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if q.Sharpness != p.Sharpness || p.Sharpness == 1 {
		t.Errorf("sharpness %v read back as %v (want a searched value ≠ 1, kept)", p.Sharpness, q.Sharpness)
	}
	bad := bytes.Replace(b.Bytes(), []byte(`"sharpness": `), []byte(`"sharpness": -`), 1)
	if _, err := Load(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "sharpness") {
		t.Errorf("a negative sharpness: %v, want an error naming it", err)
	}
	p.Sharpness = 1
	b.Reset()
	p.Save(&b)
	if bytes.Contains(b.Bytes(), []byte("sharpness")) {
		t.Error("sharpness 1 is written; files without it must mean 1")
	}
	if q, err := Load(&b); err != nil || q.Sharpness != 1 {
		t.Errorf("a file without sharpness: %v, %v", q, err)
	}
}
