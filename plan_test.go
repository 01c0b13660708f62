package ivm

import (
	"math"
	"testing"
)

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
		{"algorithm 2", Config{Learning: Algorithm2}, 300, three, MultiClass, OneVsRest,
			Algorithm2},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := c.cfg.Plan(c.n, 4, c.y)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Task != c.task || pl.Decomposition != c.dc || pl.Learning != c.lr ||
				!(pl.Bytes > 8*float64(c.n)*4) {
				t.Errorf("Plan = %+v, want task %v, %v, %v and more bytes than the inputs",
					pl, c.task, c.dc, c.lr)
			}
		})
	}
	if _, err := (Config{}).Plan(2, 1, []float64{1, 1}); err == nil {
		t.Error("Plan of one label: no error")
	}
}

// Plan's d is the one Fit uses: a d above the rows reduced to them, the defaults where it
// is 0, and the memory estimate of a reduced d that of d = N.
func TestPlanActiveSize(t *testing.T) {
	y := make([]float64, 300)
	for i := range y {
		y[i] = float64(i % 2)
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"given", Config{ActiveSize: 40}, 40},
		{"above the rows", Config{ActiveSize: 900}, 300},
		{"search default", Config{}, SearchActiveSize(300, 1)},
		{"algorithm 2 default", Config{Learning: Algorithm2}, DefaultActiveSize(300, 1)},
		{"projected", Config{Decomposition: Projected, ActiveSize: 900}, 300},
	} {
		pl, err := c.cfg.Plan(300, 4, y)
		if err != nil {
			t.Fatal(err)
		}
		if pl.ActiveSize != c.want {
			t.Errorf("%s: ActiveSize %d, want %d", c.name, pl.ActiveSize, c.want)
		}
	}
	above, _ := Config{ActiveSize: 900}.Plan(300, 4, y)
	all, _ := Config{ActiveSize: 300}.Plan(300, 4, y)
	if above.Bytes != all.Bytes {
		t.Errorf("bytes for d = 900 on 300 rows %g, for d = 300 %g", above.Bytes, all.Bytes)
	}
}

// ProbitTask reads two labels as binary, more integer labels as classes up to TaskAuto's
// limit, and refuses other targets.
func TestProbitTask(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		y      []float64
		task   Task
		labels int
		ok     bool
	}{
		{[]float64{-1, 1, 1, nan}, Binary, 2, true},
		{[]float64{3, 3}, Binary, 1, true},
		{[]float64{0, 1, 2, 2}, MultiClass, 3, true},
		{[]float64{0, 1, 2.5}, Binary, 3, false},
		{func() []float64 {
			y := make([]float64, maxAutoClasses+1)
			for i := range y {
				y[i] = float64(i)
			}
			return y
		}(), Binary, maxAutoClasses + 1, false},
	} {
		task, labels, ok := ProbitTask(c.y)
		if task != c.task || labels != c.labels || ok != c.ok {
			t.Errorf("ProbitTask(%v) = %v, %d, %v; want %v, %d, %v", c.y, task, labels, ok, c.task,
				c.labels, c.ok)
		}
	}
}
