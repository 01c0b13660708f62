package archipelago_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/plot"
)

// clusters returns two well-separated Gaussian clusters of n rows each around (−3, 0)
// (label 10) and (3, 0) (label 20), with the first labelled rows of each labelled and the
// others NaN (unlabelled).
func clusters(n, labelled int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(2*n, 2, nil)
	y := make([]float64, 2*n)
	for c, centre := range []float64{-3, 3} {
		for i := 0; i < n; i++ {
			r := c*n + i
			x.Set(r, 0, centre+0.5*rng.NormFloat64())
			x.Set(r, 1, 0.5*rng.NormFloat64())
			y[r] = math.NaN()
			if i < labelled {
				y[r] = float64(10 * (c + 1))
			}
		}
	}
	return x, y
}

// quick is a short chain: enough for the clusters, cheap for the tests.
func quick(m archipelago.Method) archipelago.Config {
	return archipelago.Config{Method: m, Sweeps: 60, Burn: 30, Samples: 10, Seed: 3}
}

func ExampleFit() {
	x, y := clusters(12, 6, 1) // 24 rows, 6 labelled per class, the others NaN
	m, err := archipelago.Fit(x, y, archipelago.Config{Sweeps: 60, Burn: 30, Samples: 10, Seed: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	newRows := mat.NewDense(2, 2, []float64{-3, 0.2, 2.8, -0.1})
	pred, err := m.Predict(newRows)
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer
	if err := m.Save(&file); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := archipelago.Load(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := loaded.Predict(newRows)
	for i, p := range pred {
		fmt.Printf("row %d: class %g (p > 0.8: %v), same after loading: %v\n", i+1, p.Label,
			p.Prob[classIndex(m, p.Label)] > 0.8, again[i].Prob[0] == p.Prob[0])
	}
	fmt.Println(len(loaded.Samples), "posterior samples of", loaded.Method)
	// Output:
	// row 1: class 10 (p > 0.8: true), same after loading: true
	// row 2: class 20 (p > 0.8: true), same after loading: true
	// 10 posterior samples of archipelago
}

func classIndex(m *archipelago.Model, label float64) int {
	for k, c := range m.Classes {
		if c == label {
			return k
		}
	}
	return -1
}

// Two well-separated clusters with eight labels each (and seven unlabelled rows): new rows
// at the clusters are classified right with confident probabilities, by both methods; rows
// between them are less certain than rows at the clusters.
func TestPosteriorPredictive(t *testing.T) {
	x, y := clusters(15, 8, 2)
	test := mat.NewDense(5, 2, []float64{-3.5, 0, -2.5, 0.4, 3.2, -0.3, 2.6, 0.1, 0, 0})
	want := []float64{10, 10, 20, 20}
	for _, method := range []archipelago.Method{archipelago.Archipelago, archipelago.SoftmaxGP} {
		m, err := archipelago.Fit(x, y, quick(method))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Samples) != 10 || m.Chain.Thin != 3 {
			t.Errorf("%v: %d samples thinned by %d, want 10 by 3",
				method, len(m.Samples), m.Chain.Thin)
		}
		pred, err := m.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			p := pred[i]
			if p.Label != w || p.Prob[classIndex(m, w)] < 0.8 {
				t.Errorf("%v: row %d predicted %v with p %v, want %v confidently",
					method, i+1, p.Label, p.Prob, w)
			}
			if s := p.Prob[0] + p.Prob[1]; math.Abs(s-1) > 1e-12 {
				t.Errorf("%v: probabilities sum to %v", method, s)
			}
		}
		if mid := math.Max(pred[4].Prob[0], pred[4].Prob[1]); mid >= math.Min(pred[0].Prob[0],
			pred[2].Prob[1]) {
			t.Errorf("%v: the midpoint is as certain (%v) as the clusters", method, pred[4].Prob)
		}
		// A row's probabilities do not depend on the rows predicted with it.
		one, err := m.Predict(mat.NewDense(1, 2, test.RawRowView(2)))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(one[0].Prob[0]-pred[2].Prob[0]) > 1e-12 {
			t.Errorf("%v: row alone %v, among others %v", method, one[0].Prob, pred[2].Prob)
		}
	}
}

// Save → Load → Predict gives bit-identical probabilities, and saving the loaded model
// gives the same bytes, for both methods and with a scaler.
func TestRoundTrip(t *testing.T) {
	x, y := clusters(10, 2, 4)
	test := mat.NewDense(3, 2, []float64{-3, 0, 3, 0, 0.5, 1})
	for _, cfg := range []archipelago.Config{
		quick(archipelago.Archipelago), quick(archipelago.SoftmaxGP),
		{Sweeps: 20, Burn: 10, Samples: 3, Scaling: dataset.ScaleStd, ARD: true},
	} {
		m, err := archipelago.Fit(x, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Training = dataset.Provenance{File: "train.csv", Rows: 20, Args: []string{"train"}}
		var b1 bytes.Buffer
		if err := m.Save(&b1); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b1.String(), `{"format":"ivm-archipelago/1",`) {
			t.Fatalf("file starts %.40q", b1.String())
		}
		l, err := archipelago.Load(bytes.NewReader(b1.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		p1, err := m.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := l.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			for k := range p1[i].Prob {
				if math.Float64bits(p1[i].Prob[k]) != math.Float64bits(p2[i].Prob[k]) ||
					p1[i].Label != p2[i].Label {
					t.Fatalf("%v: row %d: %v before saving, %v after", cfg.Method, i, p1[i], p2[i])
				}
			}
		}
		var b2 bytes.Buffer
		if err := l.Save(&b2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Errorf("%v: saving the loaded model gives other bytes", cfg.Method)
		}
		if l.Training.File != "train.csv" ||
			(cfg.Scaling == dataset.ScaleStd) != (l.Scaler != nil) {
			t.Errorf("provenance %+v, scaler %v", l.Training, l.Scaler)
		}
	}
}

// Fit and Predict refuse bad input with errors.
func TestFitErrors(t *testing.T) {
	x, y := clusters(4, 2, 5)
	nan := math.NaN()
	for name, c := range map[string]struct {
		x   *mat.Dense
		y   []float64
		cfg archipelago.Config
	}{
		"no data":     {nil, nil, archipelago.Config{}},
		"label count": {x, y[1:], archipelago.Config{}},
		"one class":   {x, []float64{1, 1, nan, nan, 1, nan, nan, nan}, archipelago.Config{}},
		"infinite label": {x, []float64{1, 2, nan, nan, math.Inf(1), nan, nan, nan},
			archipelago.Config{}},
		"NaN input": {mat.NewDense(2, 1, []float64{0, nan}), []float64{1, 2},
			archipelago.Config{}},
		"bad method":      {x, y, archipelago.Config{Method: 7}},
		"negative sample": {x, y, archipelago.Config{Samples: -1}},
		"burn ≥ sweeps":   {x, y, archipelago.Config{Sweeps: 10, Burn: 10}},
		"bad scaling":     {x, y, archipelago.Config{Scaling: 9, Sweeps: 4}},
		"anneal":          {x, y, archipelago.Config{Anneal: -2}},
	} {
		if _, err := archipelago.Fit(c.x, c.y, c.cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	m, err := archipelago.Fit(x, y, archipelago.Config{Sweeps: 6, Burn: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(mat.NewDense(1, 3, nil)); err == nil {
		t.Error("three columns accepted by a model of two")
	}
	if _, err := m.Predict(mat.NewDense(1, 2, []float64{0, nan})); err == nil {
		t.Error("NaN input predicted")
	}
	if p, err := m.Predict(nil); err != nil || p != nil {
		t.Errorf("no rows: %v, %v", p, err)
	}
	if _, err := new(archipelago.Model).Predict(x); err == nil {
		t.Error("an empty model predicted")
	}
}

// Load refuses other formats and versions, and files whose fields are inconsistent.
func TestLoadErrors(t *testing.T) {
	x, y := clusters(4, 2, 6)
	m, err := archipelago.Fit(x, y, archipelago.Config{Sweeps: 6, Burn: 2, Samples: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	for name, c := range map[string]struct{ old, new, msg string }{
		"version": {`"ivm-archipelago/1"`, `"ivm-archipelago/2"`,
			`"ivm-archipelago/2" is not supported by this version (it reads "ivm-archipelago/1")`},
		"other format": {`"ivm-archipelago/1"`, `"ivm-model/1"`, "not an Archipelago model file"},
		"method":       {`"method":"archipelago"`, `"method":"svm"`, "unknown method"},
		"one class":    {`"classes":[10,20]`, `"classes":[10]`, "classes"},
		"classes":      {`"classes":[10,20]`, `"classes":[20,10]`, "ascending"},
		"inputs":       {`"inputs":2`, `"inputs":3`, "input values"},
		"nugget":       {`"nugget":`, `"nugget":-`, "nugget"},
		"rows":         {`"rows":`, `"rows":1`, "training rows"},
		"data":         {`"data":[`, `"data":[1,`, "input values for"},
		"rejections":   {`"rejections":`, `"rejections":1`, "rejections"},
		"theta":        {`"theta":[`, `"theta":[1e300,`, "hyperparameters"},
		"huge":         {`"theta":[`, `"theta":[1e999,`, "reading model"},
		"sweeps":       {`"sweeps":6`, `"sweeps":0`, "chain of 0 sweeps"},
		"truncated":    {good, good[:len(good)/2], "reading model"},
		"no samples":   {`"samples":[`, `"samples":[],"x":[`, "no posterior samples"},
	} {
		bad := strings.Replace(good, c.old, c.new, 1)
		if bad == good {
			t.Fatalf("%s: %q not in the file", name, c.old)
		}
		if _, err := archipelago.Load(strings.NewReader(bad)); err == nil ||
			!strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.msg)
		}
	}
}

// Load never panics, and a model it accepts predicts a row or says why not.
func FuzzLoad(f *testing.F) {
	x, y := clusters(3, 1, 7)
	for _, cfg := range []archipelago.Config{
		{Sweeps: 4, Burn: 2, Samples: 1},
		{Method: archipelago.SoftmaxGP, Sweeps: 4, Burn: 2, Samples: 2,
			Scaling: dataset.ScaleMinMax},
	} {
		m, err := archipelago.Fit(x, y, cfg)
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"format":"ivm-archipelago/1"}`))
	f.Add([]byte(`{"format":"ivm-archipelago/1","method":"softmax","classes":[0,1],"inputs":1,` +
		`"nugget":1e-6,"chain":{"sweeps":2,"burn":1,"thin":1,"labelled":2},` +
		`"rows":2,"data":[0,1],"samples":[{"theta":[0,0],"x":[],"g":[1,2,3,4]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := archipelago.Load(bytes.NewReader(b))
		if err != nil {
			return
		}
		row := make([]float64, m.Inputs)
		if m.Inputs > 64 {
			return
		}
		pred, err := m.Predict(mat.NewDense(1, m.Inputs, row))
		if err != nil {
			return
		}
		var s float64
		for _, p := range pred[0].Prob {
			if math.IsNaN(p) || p < 0 {
				t.Fatalf("probability %v", p)
			}
			s += p
		}
		if math.Abs(s-1) > 1e-9 {
			t.Fatalf("probabilities sum to %v", s)
		}
	})
}

// Method names parse, print and round-trip as text; unknown names are errors.
func TestMethodNames(t *testing.T) {
	for _, m := range []archipelago.Method{archipelago.Archipelago, archipelago.SoftmaxGP} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back archipelago.Method
		if err := back.UnmarshalText(b); err != nil || back != m || m.String() != string(b) {
			t.Errorf("%v: %q → %v, %v", m, b, back, err)
		}
	}
	if _, err := archipelago.ParseMethod("svm"); err == nil {
		t.Error("svm parsed")
	}
	if _, err := archipelago.Method(5).MarshalText(); err == nil {
		t.Error("method 5 marshalled")
	}
}

// The predictive mode and entropy maps of plot.ClassMap draw a fitted model: modes are
// class indices, entropies within [0, ln 2].
func TestClassMapOfModel(t *testing.T) {
	x, y := clusters(6, 2, 8)
	m, err := archipelago.Fit(x, y, archipelago.Config{Sweeps: 10, Burn: 5, Samples: 2})
	if err != nil {
		t.Fatal(err)
	}
	predict := func(g *mat.Dense) ([][]float64, error) {
		pred, err := m.Predict(g)
		out := make([][]float64, len(pred))
		for i, p := range pred {
			out[i] = p.Prob
		}
		return out, err
	}
	labels := make([]int, len(y))
	for i, v := range y {
		labels[i] = classIndex(m, v)
	}
	fig, err := plot.ClassMap(predict, "clusters", x, labels, 2, plot.Options{Grid: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range fig.Surfaces[1].Z {
		if md := fig.Surfaces[0].Z[i]; md != 0 && md != 1 {
			t.Fatalf("mode %v", md)
		}
		if !(h >= 0 && h <= math.Ln2+1e-12) {
			t.Fatalf("entropy %v outside [0, ln 2]", h)
		}
	}
}
