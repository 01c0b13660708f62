package multitask

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/noise"
)

// fitData makes n rows of 2 inputs in three tasks: labels 0 and 5 from a linear rule
// (classify) or a smooth function plus noise.
func fitData(n int, classify bool, seed uint64) (*mat.Dense, []float64, []string) {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	task := make([]string, n)
	for i := 0; i < n; i++ {
		a, b := 10+3*rng.NormFloat64(), rng.NormFloat64()
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		t := i % 3
		task[i] = "t" + strconv.Itoa(t)
		f := (a-10)/3 + b + 0.3*float64(t)
		if classify {
			if f+0.2*rng.NormFloat64() > 0 {
				y[i] = 5
			}
		} else {
			y[i] = math.Sin(f) + 0.05*rng.NormFloat64()
		}
	}
	return x, y, task
}

// samePredictions fails unless a and b are equal bit for bit.
func samePredictions(t *testing.T, a, b []noise.Prediction) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d predictions, then %d", len(a), len(b))
	}
	same := func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) }
	for i := range a {
		if !same(a[i].Label, b[i].Label) || !same(a[i].Mean, b[i].Mean) ||
			!same(a[i].Var, b[i].Var) || len(a[i].Prob) != len(b[i].Prob) {
			t.Fatalf("row %d: %+v, then %+v", i, a[i], b[i])
		}
		for k := range a[i].Prob {
			if !same(a[i].Prob[k], b[i].Prob[k]) {
				t.Fatalf("row %d: %+v, then %+v", i, a[i], b[i])
			}
		}
	}
}

// Save → Load → Predict gives the same predictions bit for bit, and the model loaded saves
// to the same bytes; labels 0 and 5 come back as 0 and 5.
func TestFitSaveLoadRoundTrip(t *testing.T) {
	for _, classify := range []bool{true, false} {
		x, y, task := fitData(90, classify, 1)
		cfg := Config{Kernel: "rbf+bias+white", Scaling: dataset.ScaleStd,
			ActiveSize: 20, Iters: 1, KernelIters: 5, Workers: 1}
		var progress int
		cfg.Progress = func(p Progress) {
			if p.Iters != 1 || p.Kernel == "" {
				t.Errorf("progress %+v", p)
			}
			progress++
		}
		m, err := Fit(x, y, task, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if progress != 2 || len(m.Trace) != 2 {
			t.Errorf("%d progress reports, %d trace records; "+
				"want 2 (one iteration, the final selection)", progress, len(m.Trace))
		}
		m.Training = dataset.Provenance{File: "train.csv", Rows: 90,
			Args: []string{"train", "-method", "mtivm"}}
		xt, _, tt := fitData(30, classify, 2)
		want, err := m.Predict(xt, tt)
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		if err := m.Save(&file); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(file.Bytes(), []byte("{\n \"format\": \"ivm-mtmodel/1\",")) {
			t.Errorf("the file does not start with its format:\n%.80s", file.String())
		}
		back, err := Load(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := back.Predict(xt, tt)
		if err != nil {
			t.Fatal(err)
		}
		samePredictions(t, want, got)
		var again bytes.Buffer
		if err := back.Save(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(file.Bytes(), again.Bytes()) {
			t.Error("the model loaded saves to other bytes")
		}
		if back.Training.File != "train.csv" || back.Scaler.Method() != dataset.ScaleStd {
			t.Errorf("provenance %+v, scaler %+v", back.Training, back.Scaler)
		}
		if classify {
			if c := back.Classes(); len(c) != 2 || c[0] != 0 || c[1] != 5 {
				t.Errorf("classes %v, want [0 5]", c)
			}
			for _, p := range got {
				if (p.Label != 0 && p.Label != 5) || len(p.Prob) != 2 {
					t.Fatalf("prediction %+v: want label 0 or 5 and two probabilities", p)
				}
			}
		} else if back.Classes() != nil {
			t.Errorf("regression with classes %v", back.Classes())
		}
	}
}

// Files written before Fit, Save and Load existed (testdata/README.md) still load, predict
// what ivm predict printed then, and save to the same bytes.
func TestLoadVersion1(t *testing.T) {
	for _, name := range []string{"cls", "reg"} {
		b, err := os.ReadFile("testdata/mtmodel_" + name + "_v1.json")
		if err != nil {
			t.Fatal(err)
		}
		m, err := Load(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := dataset.ReadFile("testdata/mtmodel_"+name+"_test.csv",
			dataset.ReadOptions{TaskCol: dataset.TaskFirst})
		if err != nil {
			t.Fatal(err)
		}
		preds, mu, vs, err := m.PredictLatent(data.X, data.Task)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("testdata/mtmodel_" + name + "_v1_pred.txt")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(want)), "\n")[1:]
		if len(lines) != len(preds) {
			t.Fatalf("%s: %d predictions, %d then", name, len(preds), len(lines))
		}
		for i, l := range lines {
			var got []float64
			if name == "cls" {
				got = []float64{preds[i].Label, preds[i].Prob[1], mu[i], vs[i]}
			} else {
				got = []float64{preds[i].Mean, preds[i].Var}
			}
			for k, f := range strings.Fields(l) {
				v, _ := strconv.ParseFloat(f, 64)
				if math.Abs(got[k]-v) > 1e-12*(1+math.Abs(v)) {
					t.Errorf("%s row %d column %d: %v, then %v", name, i+1, k+1, got[k], v)
				}
			}
		}
		var again bytes.Buffer
		if err := m.Save(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, again.Bytes()) {
			t.Errorf("%s: the version 1 file loaded saves to other bytes", name)
		}
	}
	if m, _ := Load(strings.NewReader(
		mustRead(t, "testdata/mtmodel_cls_v1.json"))); m.Training.File != "cls_train.csv" ||
		m.Training.Rows != 60 {
		t.Errorf("provenance %+v", m.Training)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Another version of the format is refused with a message naming both.
func TestLoadOtherVersion(t *testing.T) {
	s := strings.Replace(mustRead(t, "testdata/mtmodel_reg_v1.json"),
		"ivm-mtmodel/1", "ivm-mtmodel/2", 1)
	_, err := Load(strings.NewReader(s))
	if err == nil || !strings.Contains(err.Error(), "ivm-mtmodel/2") ||
		!strings.Contains(err.Error(), "ivm-mtmodel/1") {
		t.Errorf("version 2: %v", err)
	}
}

// Unlabelled rows are NaN: the null category model uses them, the others refuse them.
func TestFitUnlabelled(t *testing.T) {
	x, y, task := fitData(90, true, 4)
	for i := range y {
		y[i] = 2*y[i]/5 - 1 // −1 and +1
		if i%4 == 0 {
			y[i] = math.NaN()
		}
	}
	cfg := Config{Kernel: "rbf+bias+white", ActiveSize: 20, FixedKernel: true}
	if _, err := Fit(x, y, task, cfg); err == nil ||
		!strings.Contains(err.Error(), "row 1 is unlabelled") {
		t.Errorf("NaN target with probit: %v", err)
	}
	cfg.Noise = NoiseNCNM
	m, err := Fit(x, y, task, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Tasks[0].Noise.Name() != "ncnm" {
		t.Errorf("noise %s", m.Tasks[0].Noise.Name())
	}
	y[1] = 0
	if _, err := Fit(x, y, task, cfg); err == nil ||
		!strings.Contains(err.Error(), "row 2 has label 0") {
		t.Errorf("label 0 with ncnm (NaN marks unlabelled rows): %v", err)
	}
}

func TestFitErrors(t *testing.T) {
	x, y, task := fitData(30, true, 5)
	cfg := Config{FixedKernel: true, ActiveSize: 5}
	ints := make([]float64, len(y))
	for i := range ints {
		ints[i] = float64(i % 4)
	}
	inf := append([]float64(nil), y...)
	inf[3] = math.Inf(1)
	fitWith := func(c Config) error { _, err := Fit(x, y, task, c); return err }
	for name, f := range map[string]func() error{
		"no inputs":       func() error { _, err := Fit(nil, y, task, cfg); return err },
		"short targets":   func() error { _, err := Fit(x, y[1:], task, cfg); return err },
		"no tasks":        func() error { _, err := Fit(x, y, nil, cfg); return err },
		"four integers":   func() error { _, err := Fit(x, ints, task, cfg); return err },
		"infinite target": func() error { _, err := Fit(x, inf, task, cfg); return err },
		"bad kernel":      func() error { return fitWith(Config{Kernel: "nope"}) },
		"bad noise":       func() error { return fitWith(Config{Noise: Noise(9)}) },
		"bad transform":   func() error { return fitWith(Config{Transform: Transform(9)}) },
		"bad optimizer":   func() error { return fitWith(Config{Optimizer: Optimizer(9)}) },
		"negative d":      func() error { return fitWith(Config{ActiveSize: -1}) },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	m, err := Fit(x, y, task, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(x, task[1:]); err == nil {
		t.Error("Predict with a task name missing: no error")
	}
	if _, err := m.Predict(mat.NewDense(1, 3, nil), []string{"t0"}); err == nil {
		t.Error("Predict on 3 inputs with a model of 2: no error")
	}
	if _, err := m.Predict(mat.NewDense(1, 2, nil), []string{"nope"}); err == nil ||
		!strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown task: %v", err)
	}
}

// The enums parse their names, print them, and travel through JSON by name.
func TestConfigEnums(t *testing.T) {
	cfg := Config{Noise: NoiseOrdinal, Transform: TransformExp, Criterion: CriterionExpected,
		Optimizer: OptimizerLBFGS, Objective: FixedSites, Scaling: dataset.ScaleMinMax}
	b, err := json.Marshal(struct {
		Noise     Noise
		Transform Transform
		Criterion Criterion
		Optimizer Optimizer
		Objective Objective
		Scaling   dataset.Scaling
	}{cfg.Noise, cfg.Transform, cfg.Criterion, cfg.Optimizer, cfg.Objective, cfg.Scaling})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Noise":"ordinal","Transform":"exp","Criterion":"expected",` +
		`"Optimizer":"lbfgs","Objective":"fixed","Scaling":"minmax"}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back struct {
		Noise     Noise
		Transform Transform
		Criterion Criterion
		Optimizer Optimizer
		Objective Objective
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Noise != NoiseOrdinal ||
		back.Transform != TransformExp || back.Criterion != CriterionExpected ||
		back.Optimizer != OptimizerLBFGS || back.Objective != FixedSites {
		t.Errorf("read back %+v, %v", back, err)
	}
	for _, s := range []string{"auto", "probit", "gaussian", "ordinal", "ncnm"} {
		if n, err := ParseNoise(s); err != nil || n.String() != s {
			t.Errorf("ParseNoise(%q) = %v, %v", s, n, err)
		}
	}
	if _, err := ParseNoise("poisson"); err == nil {
		t.Error("ParseNoise(poisson): no error")
	}
	if _, err := Noise(7).MarshalText(); err == nil {
		t.Error("Noise(7) marshalled")
	}
	if c, err := ParseCriterion(""); err != nil || c != CriterionAuto {
		t.Errorf("ParseCriterion(\"\") = %v, %v", c, err)
	}
}
