package reproduce

import (
	"os"
	"slices"
	"testing"

	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/multitask"
)

func readSineFixture(t *testing.T) []multitask.Task {
	t.Helper()
	f, err := os.Open(reftest.Path("data", "mtivm_toysine.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tasks, err := ReadSine(f)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// TestSineReference reproduces the reference toolbox's multi-task selection on the sine toy
// (testdata/ref/runs/mtivm_toysine_log.txt): the task of every inclusion and each task's
// active set, in order.
func TestSineReference(t *testing.T) {
	tasks := readSineFixture(t)
	if len(tasks) != 3 {
		t.Fatalf("%d tasks, want 3", len(tasks))
	}
	for _, tk := range tasks {
		if n, _ := tk.X.Dims(); n != 30 {
			t.Fatalf("task %s has %d points, want 30", tk.Name, n)
		}
	}
	r, err := RunSine(tasks, 15, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []int{1, 1, 2, 3, 3, 3, 3, 3, 2, 3, 2, 3, 3, 3, 3}
	var order []int
	from3 := 0
	for _, st := range r.Steps {
		order = append(order, st.Task+1)
		if st.Task == 2 {
			from3++
		}
	}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("task order %v, want %v", order, wantOrder)
	}
	if from3 < 9 {
		t.Errorf("%d of 15 points from task 3, want at least 9", from3)
	}
	wantActive := [][]int{{1, 16}, {1, 3, 21}, {1, 2, 4, 5, 22, 13, 11, 15, 6, 10}}
	for m, act := range r.PerTask {
		got := make([]int, len(act))
		for i, a := range act {
			got[i] = a + 1
		}
		if !slices.Equal(got, wantActive[m]) {
			t.Errorf("task %d active (1-based) %v, want %v", m+1, got, wantActive[m])
		}
	}
	// The first ten scores tie at 9.96579 bits (½ log₂(1 + 1/σ²)).
	for i, st := range r.Steps[:10] {
		if d := st.Delta - 9.96579; d > 5e-6 || d < -5e-6 {
			t.Errorf("step %d: Δ = %.6f bits, want 9.96579", i+1, st.Delta)
		}
	}
}
