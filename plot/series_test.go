package plot

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/engine"
	"gonum.org/v1/plot/vg"
)

func TestTrace(t *testing.T) {
	tr := []engine.IterTrace{
		{Iter: 0, HeldOut: -0.5, KernelBefore: 100, KernelAfter: 80, KernelSteps: 10},
		{Iter: 1, HeldOut: -0.4, KernelBefore: 82, KernelAfter: 79, KernelSteps: 5,
			NoiseBefore: 50, NoiseAfter: 45, NoiseSteps: 3},
		{Iter: 2, HeldOut: -0.45, KernelBefore: 79, KernelAfter: 78, Rejected: true},
		{Final: true, HeldOut: -0.4},
	}
	fig, err := Trace(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 3 {
		t.Fatalf("%d panels, want kernel, noise and held-out", len(fig.Panels))
	}
	got := map[string][]float64{}
	for _, s := range fig.Series {
		got[s.Name] = s.Y
	}
	if fmt.Sprint(got["kernel after"]) != "[80 79 78]" ||
		fmt.Sprint(got["noise before"]) != "[50]" ||
		fmt.Sprint(got["held-out"]) != "[-0.5 -0.4 -0.45]" ||
		fmt.Sprint(got["held-out final"]) != "[-0.4]" {
		t.Errorf("series %v", got)
	}
	checkFiles(t, fig, 10*vg.Centimeter, 12*vg.Centimeter)
	if _, err := Trace(nil, Options{}); err == nil {
		t.Error("empty trace accepted")
	}
	if _, err := Trace([]engine.IterTrace{{Final: true, HeldOut: math.NaN()}},
		Options{}); err == nil {
		t.Error("trace without values accepted")
	}
}

func TestCurves(t *testing.T) {
	s := []Series{{Name: "IVM", X: []float64{1, 10, 100}, Y: []float64{0.5, 0.1, 0.01}},
		{Name: "random", X: []float64{1, 10, 100}, Y: []float64{0.6, 0.3, 0.1}}}
	fig, err := Curves(s, Options{Title: "KL against time", XLabel: "seconds", YLabel: "KL",
		LogX: true, LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Series) != 2 || fig.Plot.X.Label.Text != "seconds" {
		t.Errorf("figure %+v", fig)
	}
	checkFiles(t, fig, 12*vg.Centimeter, 8*vg.Centimeter)
	// Error bars, on a log axis where Y − YErr is negative (the lower end is clipped).
	s[0].YErr = []float64{0.2, 0.3, 0}
	fig, err = Curves(s, Options{LogX: true, LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fig.Series[0].YErr; len(got) != 3 || got[1] != 0.3 {
		t.Errorf("error bars %v, want %v", got, s[0].YErr)
	}
	checkFiles(t, fig, 12*vg.Centimeter, 8*vg.Centimeter)
	// One point below 1 on both log axes: drawn without a range (gonum would widen it by
	// ±1, below 0, and panic).
	one := []Series{{Name: "one", X: []float64{0.25}, Y: []float64{0.004}, YErr: []float64{0.001}}}
	fig, err = Curves(one, Options{LogX: true, LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, fig, 12*vg.Centimeter, 8*vg.Centimeter)
	for _, bad := range [][]Series{nil, {{Name: "a", X: []float64{1}, Y: nil}},
		{{Name: "a", X: []float64{1}, Y: []float64{math.NaN()}}},
		{{Name: "a", X: []float64{0}, Y: []float64{1}}},
		{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, YErr: []float64{1}}},
		{{Name: "a", X: []float64{1}, Y: []float64{1}, YErr: []float64{-1}}},
		{{Name: "a", X: []float64{1}, Y: []float64{1}, YErr: []float64{math.NaN()}}}} {
		if _, err := Curves(bad, Options{LogX: true}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestMultiTask(t *testing.T) {
	var tasks []Task
	for k := 0; k < 3; k++ {
		var task Task
		for i := 0; i < 10; i++ {
			x := float64(i) + float64(k)
			task.X = append(task.X, x)
			task.Y = append(task.Y, math.Sin(x/2))
		}
		task.Active = []int{1, 5}
		for i := 0; i <= 20; i++ {
			x := float64(i) * 12 / 20
			task.GridX = append(task.GridX, x)
			task.Mean = append(task.Mean, math.Sin(x/2))
			task.SD = append(task.SD, 0.1)
		}
		tasks = append(tasks, task)
	}
	fig, err := MultiTask(tasks, Options{Title: "three sine tasks"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 3 || fig.Plot != nil {
		t.Fatalf("%d panels", len(fig.Panels))
	}
	checkFiles(t, fig, 12*vg.Centimeter, 15*vg.Centimeter)
	tasks[1].Active = []int{10}
	if _, err := MultiTask(tasks, Options{}); err == nil ||
		!strings.Contains(err.Error(), "task 2") {
		t.Errorf("bad active index: %v", err)
	}
}

// The log axes' ticks: labels at 1, 2 and 5 times the powers of ten inside the range,
// unlabelled marks at the other multiples.
func TestLogTicks(t *testing.T) {
	var labels []string
	marks := 0
	for _, tk := range (logTicks{}).Ticks(1.6, 72) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		} else {
			marks++
		}
		if tk.Value < 1.6 || tk.Value > 72 {
			t.Errorf("tick %g outside [1.6, 72]", tk.Value)
		}
	}
	if got := strings.Join(labels, " "); got != "2 5 10 20 50" {
		t.Errorf("labels %q, want \"2 5 10 20 50\"", got)
	}
	if marks != 10 { // 3, 4, 6, 7, 8, 9, 30, 40, 60, 70
		t.Errorf("%d unlabelled marks, want 10", marks)
	}
	if ts := (logTicks{}).Ticks(0, 1); ts != nil {
		t.Errorf("ticks %v for a range starting at 0", ts)
	}
}
