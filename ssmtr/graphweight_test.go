package ssmtr

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// flatten lays tasks out as Fit takes them: task i (named "t<i>") has its labelled rows,
// then its unlabelled rows with target NaN.
func flatten(tasks []taskData) (*mat.Dense, []float64, []string) {
	var rows [][]float64
	var y []float64
	var names []string
	for i, t := range tasks {
		for k, m := range []*mat.Dense{t.X, t.U} {
			if m == nil {
				continue
			}
			r, _ := m.Dims()
			for j := 0; j < r; j++ {
				rows = append(rows, m.RawRowView(j))
				names = append(names, "t"+strconv.Itoa(i))
				if k == 0 {
					y = append(y, t.Y[j])
				} else {
					y = append(y, math.NaN())
				}
			}
		}
	}
	x := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	return x, y, names
}

// taskNames returns n copies of task i's name in flatten.
func taskNames(i, n int) []string {
	out := make([]string, n)
	for j := range out {
		out[j] = "t" + strconv.Itoa(i)
	}
	return out
}

// GraphWeights at α → 0 gives back the SMTR model's predictions and evidence; at α > 0
// its evidence is the exact GP evidence under the eq. 6 kernel, which an SSMTR fit
// evaluates through a different path (the fitter's task evaluation).
func TestGraphWeights(t *testing.T) {
	tasks := synthTasks(3, 8, 30, 11)
	x, y, names := flatten(tasks)
	m, err := Fit(x, y, names, Config{Method: SMTR, Targets: Unscaled, Scaling: dataset.ScaleNone,
		OuterIters: 2, InnerIters: 20})
	if err != nil {
		t.Fatal(err)
	}
	const alpha = 0.7
	gs, err := m.GraphWeights(x, y, names, []float64{0, alpha})
	if err != nil {
		t.Fatal(err)
	}
	g0, g := gs[0], gs[1]
	for i, tk := range tasks {
		u, _ := tk.U.Dims()
		a, err := m.Predict(tk.U, taskNames(i, u))
		if err != nil {
			t.Fatal(err)
		}
		b, err := g0.Predict(tk.U, taskNames(i, u))
		if err != nil {
			t.Fatal(err)
		}
		for j := range a {
			if math.Abs(a[j].Mean-b[j].Mean) > 1e-8*(1+math.Abs(a[j].Mean)) {
				t.Fatalf("task %d point %d: α = 0 predicts %v, SMTR %v",
					i, j, b[j].Mean, a[j].Mean)
			}
		}
		if d := g0.Tasks[i].NegLogEvidence - m.Tasks[i].NegLogEvidence; math.Abs(d) > 1e-8 {
			t.Errorf("task %d: −ln p at α = 0 differs from SMTR's by %g", i, d)
		}
	}
	f, _ := testFitter(t, tasks, Config{Method: SSMTR, Targets: m.Targets})
	var sum float64
	for i, tm := range g.Tasks {
		if tm.Alpha != alpha {
			t.Errorf("task %d: α %v, want %v", i, tm.Alpha, alpha)
		}
		h := hyper{theta: m.Tasks[i].Theta, alpha: alpha,
			sigma2: m.Tasks[i].Sigma * m.Tasks[i].Sigma, eps: 1}
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

func TestGraphWeightsBadInput(t *testing.T) {
	tasks := synthTasks(2, 6, 10, 3)
	x, y, names := flatten(tasks)
	m, err := Fit(x, y, names, Config{Method: SMTR, OuterIters: 1, InnerIters: 5})
	if err != nil {
		t.Fatal(err)
	}
	ox, oy, _ := flatten(synthTasks(2, 6, 10, 4))
	n, _ := x.Dims()
	cases := []struct {
		name  string
		x     *mat.Dense
		y     []float64
		task  []string
		alpha float64
	}{
		{"negative weight", x, y, names, -1},
		{"NaN weight", x, y, names, math.NaN()},
		{"infinite weight", x, y, names, math.Inf(1)},
		{"too few tasks", x, y, taskNames(0, n), 1},
		{"other data", ox, oy, names, 1},
		{"other row count", x.Slice(1, n, 0, 2).(*mat.Dense), y[1:], names[1:], 1},
	}
	for _, c := range cases {
		if _, err := m.GraphWeights(c.x, c.y, c.task, []float64{c.alpha}); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	pi := &Model{Method: SSMTRPI, Tasks: m.Tasks, Names: m.Names, Dim: m.Dim}
	if _, err := pi.GraphWeights(x, y, names, []float64{1}); err == nil {
		t.Error("SSMTRPI model: no error")
	}
}
