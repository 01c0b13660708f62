package family_test

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/ssmtr"
)

// anyFamilyModels fits a small model of every family and returns each with the rows (and
// tasks) to predict and its own predictions of them.
func anyFamilyModels(t testing.TB) map[string]struct {
	save  func(*bytes.Buffer) error
	x     *mat.Dense
	task  []string
	preds []noise.Prediction
} {
	t.Helper()
	n := 40
	rows, y, yc, task := make([]float64, n), make([]float64, n), make([]float64, n),
		make([]string, n)
	for i := range rows {
		rows[i] = -3 + 6*float64(i)/float64(n-1)
		y[i] = math.Sin(rows[i]) + 0.3*float64(i%2)
		yc[i] = 1
		if rows[i] < 0 {
			yc[i] = 2
		}
		task[i] = fmt.Sprintf("t%d", i%2)
	}
	x := mat.NewDense(n, 1, rows)
	test := mat.NewDense(3, 1, []float64{-1.5, 0.1, 2})
	testTask := []string{"t0", "t1", "t0"}
	out := map[string]struct {
		save  func(*bytes.Buffer) error
		x     *mat.Dense
		task  []string
		preds []noise.Prediction
	}{}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	p, err := ivm.Fit(x, yc, ivm.Config{})
	must(err)
	pr, err := p.Predict(test)
	must(err)
	out[ivm.ModelFormat] = struct {
		save  func(*bytes.Buffer) error
		x     *mat.Dense
		task  []string
		preds []noise.Prediction
	}{func(b *bytes.Buffer) error { return p.Save(b) }, test, nil, pr}

	mt, err := multitask.Fit(x, y, task, multitask.Config{Kernel: "rbf+bias+white(variance=0.01)",
		ActiveSize: 20, FixedKernel: true})
	must(err)
	mp, err := mt.Predict(test, testTask)
	must(err)
	out[multitask.ModelFormat] = struct {
		save  func(*bytes.Buffer) error
		x     *mat.Dense
		task  []string
		preds []noise.Prediction
	}{func(b *bytes.Buffer) error { return mt.Save(b) }, test, testTask, mp}

	sm, err := ssmtr.Fit(x, y, task, ssmtr.Config{Method: ssmtr.SMTR, OuterIters: 2})
	must(err)
	sp, err := sm.Predict(test, testTask)
	must(err)
	out[ssmtr.ModelFormat] = struct {
		save  func(*bytes.Buffer) error
		x     *mat.Dense
		task  []string
		preds []noise.Prediction
	}{func(b *bytes.Buffer) error { return sm.Save(b) }, test, testTask, sp}

	ya := append([]float64(nil), yc...)
	for i := range ya {
		if i%3 != 0 {
			ya[i] = math.NaN()
		}
	}
	am, err := archipelago.Fit(x, ya, archipelago.Config{Sweeps: 30, Burn: 15, Samples: 5, Seed: 1})
	must(err)
	ap, err := am.Predict(test)
	must(err)
	out[archipelago.ModelFormat] = struct {
		save  func(*bytes.Buffer) error
		x     *mat.Dense
		task  []string
		preds []noise.Prediction
	}{func(b *bytes.Buffer) error { return am.Save(b) }, test, nil, ap}
	return out
}

// Load reads every family's model file and predicts exactly what the model did before it
// was saved; saving it again writes the same bytes.
func TestLoadEveryFamily(t *testing.T) {
	for format, c := range anyFamilyModels(t) {
		var b bytes.Buffer
		if err := c.save(&b); err != nil {
			t.Fatal(err)
		}
		m, err := family.Load(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if m.Format() != format {
			t.Errorf("format %q read as %q", format, m.Format())
		}
		got, err := m.Predict(c.x, c.task)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for i, want := range c.preds {
			g := got[i]
			same := math.Float64bits(g.Label) == math.Float64bits(want.Label) &&
				math.Float64bits(g.Mean) == math.Float64bits(want.Mean) &&
				math.Float64bits(g.Var) == math.Float64bits(want.Var) &&
				len(g.Prob) == len(want.Prob)
			for k := range want.Prob {
				same = same && math.Float64bits(g.Prob[k]) == math.Float64bits(want.Prob[k])
			}
			if !same {
				t.Errorf("%s row %d: %+v after Load, %+v before", format, i, g, want)
			}
		}
		var again bytes.Buffer
		if err := m.Save(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), b.Bytes()) {
			t.Errorf("%s: saving the loaded model writes other bytes", format)
		}
	}
}

// What Load cannot read it refuses with a message saying what the file is.
func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"format": "ivm-ssmtr/9"}`, `"ivm-ssmtr/9" is not`},
		{`{"format": "ivm-mtmodel/2"}`, `"ivm-mtmodel/2"`},
		{`{"format": "svm-model"}`, "unknown model format"},
		{`{"format": "svm-model"}`,
			"ivm-archipelago/1, ivm-model/1, ivm-mtmodel/1, ivm-part/1, ivm-ssmtr/1"},
		{`{"format": "ivm-ssmtr/9"}`, `(it reads "ivm-ssmtr/1")`},
		{`{"format": "ivm-part/1"}`, "part of a partitioned training"},
		{`{"format": "ivm-part/1"}`, "merge the parts first"},
		{`{"format": "ivm-mod`, "ends early"},
		{`{"rows": 3}`, "format"},
		{`[1, 2]`, "not"},
	} {
		if _, err := family.Load(strings.NewReader(c.file)); err == nil ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): %v, want an error containing %q", c.file, err, c.want)
		}
	}
}

// Load reads a model file of any registered family (IVM, multi-task IVM, SSMTR,
// Archipelago) and gives something that predicts rows.
func ExampleLoad() {
	x := mat.NewDense(6, 1, []float64{-3, -2, -1, 1, 2, 3})
	y := []float64{0, 0, 0, 1, 1, 1}
	p, err := ivm.Fit(x, y, ivm.Config{Kernel: "rbf(gamma=0.5)+bias+white", FixedKernel: true})
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := p.Save(&file); err != nil {
		log.Fatal(err)
	}
	m, err := family.Load(&file)
	if err != nil {
		log.Fatal(err)
	}
	preds, err := m.Predict(mat.NewDense(2, 1, []float64{-2.5, 2.5}), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Format(), preds[0].Label, preds[1].Label)
	// Output:
	// ivm-model/1 0 1
}

// FuzzLoad feeds arbitrary bytes to Load: it must never panic, and whatever it accepts
// must save to bytes that load again to the same bytes. Seeds: a valid file of every
// family.
func FuzzLoad(f *testing.F) {
	for _, c := range anyFamilyModels(f) {
		var b bytes.Buffer
		if err := c.save(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"format":"ivm-archipelago/1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := family.Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		var a bytes.Buffer
		if err := m.Save(&a); err != nil {
			t.Fatalf("a loaded %s model cannot be saved: %v", m.Format(), err)
		}
		again, err := family.Load(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("a saved %s model does not load: %v", m.Format(), err)
		}
		var b bytes.Buffer
		if err := again.Save(&b); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: second round trip differs (%v)", m.Format(), err)
		}
	})
}

// throughLoad fits three blobs with cfg, saves the model, reads it back with Load and
// returns Load's predictions and the fitted model's own; Load's latents must be the fitted
// model's, every model's mean and variance.
func throughLoad(t *testing.T, cfg ivm.Config, seed uint64,
	perClass int) ([]noise.Prediction, []noise.Prediction) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	x, y := blobs(rng, perClass, [][]float64{{0, 0}, {3, 0}, {0, 3}}, []float64{1, 2, 3}, 0.7)
	p, err := ivm.Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	m, err := family.Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Predict(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if !slices.Equal(g.Latent, want[i].Latent) ||
			!slices.Equal(g.LatentVar, want[i].LatentVar) {
			t.Fatalf("row %d: latents %+v after Load, %+v in process", i, g, want[i])
		}
	}
	return got, want
}

// A one-vs-one model's latents are its pairs', not its classes': no model stands for the
// predicted class, and Mean and Var are 0 (Latent holds the pairs').
func TestLoadOneVsOne(t *testing.T) {
	got, want := throughLoad(t, ivm.Config{Decomposition: ivm.OneVsOne}, 5, 20)
	for i, g := range got {
		if len(want[i].Latent) != 3 || g.Label != want[i].Label ||
			!slices.Equal(g.Prob, want[i].Prob) || g.Mean != 0 || g.Var != 0 {
			t.Fatalf("row %d: %+v after Load, %+v in process", i, g, want[i])
		}
	}
}

// A projected model (no latent variances) through Load: the in-process predictions, the
// latent of the most probable class with variance 0.
func TestLoadProjected(t *testing.T) {
	got, want := throughLoad(t, ivm.Config{Decomposition: ivm.Projected}, 3, 25)
	for i, g := range got {
		k := floats.MaxIdx(want[i].Prob)
		if g.Label != want[i].Label || !slices.Equal(g.Prob, want[i].Prob) ||
			g.Mean != want[i].Latent[k] || g.Var != 0 {
			t.Fatalf("row %d: %+v after Load, %+v in process", i, g, want[i])
		}
	}
}

// blobs draws n rows around each centre, labelled by labels, with the given spread.
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
