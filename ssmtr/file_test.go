package ssmtr

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// toyData draws tasks y = a_i sin(x1) + 0.3 x2 + noise on inputs of scale ~ 10 (so
// that scaling matters): labelled rows, unlabelled rows (NaN), and test rows outside the
// training data with their true noiseless targets.
func toyData(seed uint64, tasks, l, u, nt int) (x *mat.Dense, y []float64, task []string,
	xt *mat.Dense, ft []float64, tt []string) {
	rng := rand.New(rand.NewPCG(seed, 9))
	var rows, trows []float64
	for i := 0; i < tasks; i++ {
		a := 1 + 0.15*float64(i)
		name := string(rune('p' + i))
		draw := func() (float64, float64, float64) {
			x1, x2 := 6*rng.Float64()-3, rng.NormFloat64()
			return 10 * x1, 10 * x2, a*math.Sin(x1) + 0.3*x2
		}
		for j := 0; j < l+u; j++ {
			r1, r2, f := draw()
			rows = append(rows, r1, r2)
			target := f + 0.05*rng.NormFloat64()
			if j >= l {
				target = math.NaN()
			}
			y, task = append(y, target), append(task, name)
		}
		for j := 0; j < nt; j++ {
			r1, r2, f := draw()
			trows = append(trows, r1, r2)
			ft, tt = append(ft, f), append(tt, name)
		}
	}
	if nt > 0 {
		xt = mat.NewDense(len(ft), 2, trows)
	}
	return mat.NewDense(len(y), 2, rows), y, task, xt, ft, tt
}

func quick(m Method) Config {
	return Config{Method: m, OuterIters: 3, InnerIters: 40, Workers: 2}
}

// Inductive prediction: new rows outside the graph are predicted close to the noiseless
// truth, with a predictive sd that covers the errors, for every method.
func TestInductivePrediction(t *testing.T) {
	x, y, task, xt, ft, tt := toyData(1, 3, 25, 40, 50)
	n, _ := x.Dims()
	cfg := quick(SSTR)
	cfg.Pairs = []Pair{{U: 30, V: 31}, {U: 0, V: 40}} // task p: rows 0..64
	for _, meth := range []Method{SSTR, SMTR, SSMTR, SSMTRPI} {
		cfg.Method = meth
		m, err := Fit(x, y, task, cfg)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		if meth.graph() && m.Tasks[0].Rows() != 65 || !meth.graph() && m.Tasks[0].Rows() != 25 {
			t.Errorf("%v: task built on %d rows", meth, m.Tasks[0].Rows())
		}
		preds, err := m.Predict(xt, tt)
		if err != nil {
			t.Fatal(err)
		}
		var sse, vf, z2 float64
		for i, p := range preds {
			d := p.Mean - ft[i]
			sse += d * d
			vf += ft[i] * ft[i]
			z2 += d * d / p.Var
			if p.Label != p.Mean || !(p.Var > 0) {
				t.Fatalf("%v: prediction %+v", meth, p)
			}
		}
		nmse, z2 := sse/vf, z2/float64(len(preds))
		t.Logf("%v: nMSE on new rows %.4f, mean z² %.3f (%d training rows)", meth, nmse, z2, n)
		if nmse > 0.1 {
			t.Errorf("%v: nMSE %.4f on new rows, want < 0.1", meth, nmse)
		}
		if z2 > 3 {
			t.Errorf("%v: mean squared z-score %.3f: the variance does not cover the errors",
				meth, z2)
		}
	}
}

// Save → Load → Predict gives the same bits as the fitted model, and saving the loaded
// model gives the same file.
func TestRoundTrip(t *testing.T) {
	x, y, task, xt, _, tt := toyData(2, 2, 15, 20, 10)
	for _, meth := range []Method{SSTR, SMTR, SSMTR, SSMTRPI} {
		cfg := quick(meth)
		cfg.Pairs = []Pair{{U: 3, V: 20, D: 0.1}}
		cfg.Quads = []Quad{{U: 1, V: 2, W: 21, Z: 22}}
		if meth == SMTR {
			cfg.Scaling, cfg.Targets = dataset.ScaleMinMax, Pooled
		}
		if meth == SSMTR {
			cfg.Scaling, cfg.Graph.Laplacian, cfg.AlphaPrior = dataset.ScaleNone, Unnormalized, true
		}
		m, err := Fit(x, y, task, cfg)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		m.Training = dataset.Provenance{File: "toy.csv", Rows: 70}
		var b1, b2 bytes.Buffer
		if err := m.Save(&b1); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b1.String(), `{"format":"ivm-ssmtr/1",`) {
			t.Errorf("%v: file starts %.40q", meth, b1.String())
		}
		l, err := Load(bytes.NewReader(b1.Bytes()))
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		if err := l.Save(&b2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Errorf("%v: saving the loaded model gives another file", meth)
		}
		p1, err := m.Predict(xt, tt)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := l.Predict(xt, tt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if math.Float64bits(p1[i].Mean) != math.Float64bits(p2[i].Mean) ||
				math.Float64bits(p1[i].Var) != math.Float64bits(p2[i].Var) {
				t.Fatalf("%v row %d: %+v before saving, %+v after loading", meth, i, p1[i], p2[i])
			}
		}
		if l.Training.File != "toy.csv" || l.Method != meth || (meth != SSTR) != (l.Prior != nil) {
			t.Errorf("%v: loaded %v, training %+v, prior %v",
				meth, l.Method, l.Training, l.Prior != nil)
		}
	}
}

// A loaded SMTR model fits a new task under its prior (paper §2.2).
func TestAddTaskAfterLoad(t *testing.T) {
	x, y, task, _, _, _ := toyData(3, 3, 20, 0, 0)
	m, err := Fit(x, y, task, quick(SMTR))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	l, err := Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	nx, ny, _, xt, ft, _ := toyData(4, 1, 8, 0, 30)
	nx, ny = nx.Slice(0, 8, 0, 2).(*mat.Dense), ny[:8]
	if err := l.AddTask("new", nx, ny, 0); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(ft))
	for i := range names {
		names[i] = "new"
	}
	preds, err := l.Predict(xt, names)
	if err != nil {
		t.Fatal(err)
	}
	var sse, vf float64
	for i, p := range preds {
		sse += (p.Mean - ft[i]) * (p.Mean - ft[i])
		vf += ft[i] * ft[i]
	}
	if sse/vf > 0.3 {
		t.Errorf("new task from 8 labels: nMSE %.3f", sse/vf)
	}
	if err := l.AddTask("new", nx, ny, 0); err == nil {
		t.Error("a second task named new: no error")
	}
	s, _ := Fit(x, y, task, quick(SSTR))
	if err := s.AddTask("new", nx, ny, 0); err == nil {
		t.Error("SSTR model has no prior: no error")
	}
}

func TestFitBadInput(t *testing.T) {
	x, y, task, _, _, _ := toyData(5, 2, 6, 4, 0)
	n, _ := x.Dims()
	nanX := mat.DenseCopyOf(x)
	nanX.Set(3, 1, math.NaN())
	infY := append([]float64(nil), y...)
	infY[2] = math.Inf(1)
	unlabelled := append([]float64(nil), y...)
	for i := 10; i < 16; i++ {
		unlabelled[i] = math.NaN()
	}
	pi := func(p ...Pair) Config { return Config{Method: SSMTRPI, Pairs: p} }
	cases := []struct {
		name string
		x    *mat.Dense
		y    []float64
		task []string
		cfg  Config
	}{
		{"nil x", nil, y, task, Config{}},
		{"NaN input", nanX, y, task, Config{}},
		{"NaN input unscaled", nanX, y, task, Config{Scaling: dataset.ScaleNone}},
		{"infinite target", x, infY, task, Config{}},
		{"short y", x, y[:n-1], task, Config{}},
		{"short task", x, y, task[:n-1], Config{}},
		{"task without labels", x, unlabelled, task, Config{}},
		{"pair across tasks", x, y, task, pi(Pair{U: 0, V: 12})},
		{"pair outside x", x, y, task, pi(Pair{U: 0, V: n})},
		{"negative row", x, y, task, pi(Pair{U: -1, V: 2})},
		{"pair on one row", x, y, task, pi(Pair{U: 2, V: 2})},
		{"NaN offset", x, y, task, pi(Pair{U: 1, V: 2, D: math.NaN()})},
		{"quad across tasks", x, y, task, Config{Method: SSMTRPI, Quads: []Quad{{0, 1, 2, 15}}}},
		{"unknown method", x, y, task, Config{Method: Method(9)}},
		{"unknown scaling", x, y, task, Config{Scaling: dataset.Scaling(9)}},
		{"unknown targets", x, y, task, Config{Targets: TargetScaling(9)}},
		{"unknown Laplacian", x, y, task, Config{Graph: GraphOptions{Laplacian: Laplacian(5)}}},
		{"white kernel", x, y, task, Config{Kernel: "rbf+white"}},
		{"kernel of other inputs", x, y, task, Config{Kernel: "lin(variances=[1,1,1])"}},
	}
	for _, c := range cases {
		if _, err := Fit(c.x, c.y, c.task, c.cfg); err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.HasPrefix(err.Error(), "ssmtr") {
			t.Errorf("%s: error %q does not name the package", c.name, err)
		}
	}
	m, err := Fit(x, y, task, quick(SMTR))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		x    *mat.Dense
		task []string
	}{
		"unknown task":  {mat.NewDense(1, 2, nil), []string{"zz"}},
		"three columns": {mat.NewDense(1, 3, nil), []string{"p"}},
		"short task":    {mat.NewDense(2, 2, nil), []string{"p"}},
		"NaN input":     {mat.NewDense(1, 2, []float64{math.NaN(), 0}), []string{"p"}},
		"nil":           {nil, nil},
	} {
		if _, err := m.Predict(c.x, c.task); err == nil {
			t.Errorf("Predict, %s: no error", name)
		}
	}
}

// Load refuses other formats and versions by name, and damaged files with an error.
func TestLoadBadFiles(t *testing.T) {
	x, y, task, _, _, _ := toyData(6, 2, 6, 4, 0)
	m, err := Fit(x, y, task, quick(SSMTR))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	for name, c := range map[string]struct{ file, want string }{
		"version 2": {strings.Replace(good, "ivm-ssmtr/1", "ivm-ssmtr/2", 1),
			`"ivm-ssmtr/2" is not supported by this version (it reads "ivm-ssmtr/1")`},
		"other format": {`{"format":"ivm-model/1"}`, `"ivm-model/1"`},
		"not JSON":     {"hello", "not a model file"},
		"bad method": {strings.Replace(good, `"method":"ssmtr"`, `"method":"magic"`, 1),
			"magic"},
		"no tasks":      {strings.Replace(good, `"tasks":[`, `"tasks":[],"x":[`, 1), "no tasks"},
		"bad kernel":    {strings.Replace(good, `"kernel":"rbf(`, `"kernel":"nope(`, 1), "kernel"},
		"short weights": {strings.Replace(good, `"w":[`, `"w":[1,`, 1), "weights"},
		"zero sigma":    {strings.Replace(good, `"sigma":`, `"sigma":0,"x0":`, 1), "σ"},
		"dim":           {strings.Replace(good, `"dim":2`, `"dim":3`, 1), "ssmtr"},
		"bad scaler":    {strings.Replace(good, `"factor":[`, `"factor":[0,`, 1), "ssmtr"},
	} {
		_, err := Load(strings.NewReader(c.file))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", name, err, c.want)
		}
	}
}

// FuzzLoad: Load never panics, and a model it accepts predicts without panicking and saves
// to a file that loads to the same bytes.
func FuzzLoad(f *testing.F) {
	x, y, task, xt, _, tt := toyData(7, 2, 5, 3, 2)
	for _, meth := range []Method{SSTR, SMTR, SSMTR, SSMTRPI} {
		cfg := quick(meth)
		cfg.Pairs = []Pair{{U: 1, V: 6}}
		m, err := Fit(x, y, task, cfg)
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"format":"ivm-ssmtr/1","method":"smtr","kernel":"rbf","dim":1,` +
		`"scaling":"none","tasks":[{"name":"a","theta":[1,1],"sigma":1,"scale":1,` +
		`"x":[[0]],"w":[1],"a":[0.5]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		if m.Dim == 2 {
			m.Predict(xt, tt) // an error is fine (unknown task), a panic is not
		}
		var b1, b2 bytes.Buffer
		if err := m.Save(&b1); err != nil {
			t.Fatalf("a loaded model does not save: %v", err)
		}
		l, err := Load(bytes.NewReader(b1.Bytes()))
		if err != nil {
			t.Fatalf("a saved model does not load: %v", err)
		}
		if err := l.Save(&b2); err != nil || !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatalf("save → load → save changed the file (%v)", err)
		}
	})
}
