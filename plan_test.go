package ivm

import "testing"

// TestPlan checks that Plan resolves what Fit does: the task from the targets, the search
// by default, the decomposition by size, and memory that grows with the data.
func TestPlan(t *testing.T) {
	binary := make([]float64, 6000)
	three := make([]float64, 300)
	for i := range binary {
		binary[i] = float64(i % 2)
	}
	for i := range three {
		three[i] = float64(i % 3)
	}
	for _, c := range []struct {
		name string
		cfg  Config
		n    int
		y    []float64
		task Task
		dc   Decomposition
		lr   Learning
	}{
		{"small binary", Config{}, 300, binary[:300], Binary, OneVsRest, Search},
		{"large binary", Config{}, 6000, binary, Binary, Projected, Search},
		{"large probit", Config{Task: Binary}, 6000, binary, Binary, OneVsRest, Search},
		{"three classes", Config{}, 300, three, MultiClass, OneVsOne, Search},
		{"algorithm 2", Config{Learning: Algorithm2}, 300, three, MultiClass, OneVsRest, Algorithm2},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := c.cfg.Plan(c.n, 4, c.y)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Task != c.task || pl.Decomposition != c.dc || pl.Learning != c.lr || !(pl.Bytes > 8*float64(c.n)*4) {
				t.Errorf("Plan = %+v, want task %v, %v, %v and more bytes than the inputs", pl, c.task, c.dc, c.lr)
			}
		})
	}
	if _, err := (Config{}).Plan(2, 1, []float64{1, 1}); err == nil {
		t.Error("Plan of one label: no error")
	}
}
