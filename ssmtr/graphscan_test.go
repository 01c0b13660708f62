package ssmtr

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// WithGraphWeight at α → 0 gives back the SMTR model's predictions and evidence; at α > 0
// its evidence is the exact GP evidence under the eq. 6 kernel, which an SSMTR fit
// evaluates through a different path (the fitter's task evaluation).
func TestWithGraphWeight(t *testing.T) {
	tasks := synthTasks(3, 8, 30, 11)
	m, err := Fit(tasks, Options{Method: SMTR, Targets: None, OuterIters: 2, InnerIters: 20})
	if err != nil {
		t.Fatal(err)
	}
	g0, err := m.WithGraphWeight(tasks, GraphOptions{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, tk := range tasks {
		u, _ := tk.U.Dims()
		a, b := make([]float64, u), make([]float64, u)
		if err := m.Predict(i, tk.U, a, nil); err != nil {
			t.Fatal(err)
		}
		if err := g0.Predict(i, tk.U, b, nil); err != nil {
			t.Fatal(err)
		}
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-8*(1+math.Abs(a[j])) {
				t.Fatalf("task %d point %d: α = 0 predicts %v, SMTR %v", i, j, b[j], a[j])
			}
		}
		if d := g0.Tasks[i].NegLogEvidence - m.Tasks[i].NegLogEvidence; math.Abs(d) > 1e-8 {
			t.Errorf("task %d: −ln p at α = 0 differs from SMTR's by %g", i, d)
		}
	}

	const alpha = 0.7
	g, err := m.WithGraphWeight(tasks, GraphOptions{}, alpha)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := testFitter(t, tasks, Options{Method: SSMTR, Targets: m.Targets})
	var sum float64
	for i, tm := range g.Tasks {
		if tm.Alpha != alpha {
			t.Errorf("task %d: α %v, want %v", i, tm.Alpha, alpha)
		}
		h := hyper{theta: m.Tasks[i].Theta, alpha: alpha, sigma2: m.Tasks[i].Sigma * m.Tasks[i].Sigma, eps: 1}
		want, err := f.ts[i].exact(h, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(tm.NegLogEvidence-want) > 1e-8*(1+math.Abs(want)) {
			t.Errorf("task %d: −ln p %v, the fitter's evaluation %v", i, tm.NegLogEvidence, want)
		}
		sum += tm.NegLogEvidence
	}
	if math.Abs(g.Objective-sum) > 1e-9*(1+math.Abs(sum)) {
		t.Errorf("Objective %v, sum of the tasks' %v", g.Objective, sum)
	}
}

func TestWithGraphWeightBadInput(t *testing.T) {
	tasks := synthTasks(2, 6, 10, 3)
	m, err := Fit(tasks, Options{Method: SMTR, OuterIters: 1, InnerIters: 5})
	if err != nil {
		t.Fatal(err)
	}
	other := synthTasks(2, 6, 10, 4)
	cases := []struct {
		name  string
		tasks []Task
		alpha float64
	}{
		{"negative weight", tasks, -1},
		{"NaN weight", tasks, math.NaN()},
		{"infinite weight", tasks, math.Inf(1)},
		{"too few tasks", tasks[:1], 1},
		{"other data", other, 1},
		{"other row count", []Task{{X: mat.NewDense(3, 2, nil), Y: make([]float64, 3)}, tasks[1]}, 1},
	}
	for _, c := range cases {
		if _, err := m.WithGraphWeight(c.tasks, GraphOptions{}, c.alpha); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	pi := &Model{Method: SSMTRPI, Tasks: m.Tasks}
	if _, err := pi.WithGraphWeight(tasks, GraphOptions{}, 1); err == nil {
		t.Error("SSMTRPI model: no error")
	}
}

// On one school split the scan reproduces the finding behind bench/RESULTS.md: the evidence
// is largest at the smallest graph weight, and the tiny weight predicts as SMTR does.
func TestGraphWeightScanSchool(t *testing.T) {
	dir := t.TempDir()
	if err := linkSchool(dir); err != nil {
		t.Fatal(err)
	}
	alphas := []float64{1e-8, 1, 10}
	res, err := GraphWeightScan(ExperimentConfig{Data: "school", DataDir: dir, Splits: 1, Seed: 1,
		Options: Options{OuterIters: 5, Workers: 2}}, alphas)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	t.Logf("SMTR %.4f; α %v: nMSE %.4f, −ln p %.2f; per-school best %.4f", r.SMTR, alphas, r.Trans, r.NegLogEvidence, r.PerTaskBest)
	if math.Abs(r.Trans[0]-r.SMTR) > 1e-4 {
		t.Errorf("α = 1e-8 gives %.6f, SMTR %.6f", r.Trans[0], r.SMTR)
	}
	if !(r.NegLogEvidence[0] < r.NegLogEvidence[1] && r.NegLogEvidence[1] < r.NegLogEvidence[2]) {
		t.Errorf("−ln p over α %v: %v, want increasing", alphas, r.NegLogEvidence)
	}
	if !(r.PerTaskBest <= r.Trans[0]+1e-12) {
		t.Errorf("per-school best %.4f above the α = 1e-8 figure %.4f", r.PerTaskBest, r.Trans[0])
	}
	if _, err := GraphWeightScan(ExperimentConfig{Data: "school", DataDir: dir, Splits: 1}, nil); err == nil {
		t.Error("no weights: no error")
	}
}

// linkSchool copies the school data in testdata to dir/school/, where ExperimentConfig
// looks for it.
func linkSchool(dir string) error {
	b, err := os.ReadFile(filepath.Join("testdata", "school_mtl.csv.gz"))
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, SchoolFile)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
