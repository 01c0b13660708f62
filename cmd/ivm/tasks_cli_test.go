package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The multi-task sine toy through the command line, with the reference's data and fixed
// kernel: the tasks of the 15 inclusions are the reference's, in order
// (REFERENCE-FACTS.md, "Multi-task IVM"), and at least 9 come from task 3.
func TestTrainTasksSineToy(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "mt.json")
	mustRun(t, "train", "-quiet", "-tasks", "-task-col", "first",
		"-kernel", "rbf(gamma=1,variance=1)", "-noise", "gaussian",
		"-d", "15", "-iters", "0", refData+"mtivm_toysine.csv.gz", model)
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Format string `json:"format"`
		Active []struct {
			Task string `json:"task"`
			Row  int    `json:"row"`
		} `json:"active"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var tasks []string
	three := 0
	for _, a := range m.Active {
		tasks = append(tasks, a.Task)
		if a.Task == "3" {
			three++
		}
	}
	if got, want := strings.Join(tasks, " "),
		"1 1 2 3 3 3 3 3 2 3 2 3 3 3 3"; m.Format != "ivm-mtmodel/1" || got != want || three < 9 {
		t.Errorf("format %q, task order %q (want %q), %d from task 3", m.Format, got, want, three)
	}
	out := mustRun(t, "predict", "-task-col", "first", refData+"mtivm_toysine.csv.gz", model)
	if !strings.HasPrefix(out, "Mean squared error = ") {
		t.Errorf("predict: %q", out)
	}
	// Fig. 7 of the extensions paper: one panel per task, the points each task gave circled.
	fig := filepath.Join(dir, "mt.png")
	mustRun(t, "plot", "-quiet", "-task-col", "first", "-o", fig, model,
		refData+"mtivm_toysine.csv.gz")
	if w, h := pngSize(t, fig); w < 400 || h < 400 {
		t.Errorf("multi-task figure: %dx%d", w, h)
	}
	info := mustRun(t, "info", model)
	if !strings.Contains(info, "shared by the 3 tasks), 15 active points") ||
		!strings.Contains(info, "task 3       gaussian noise") {
		t.Errorf("info:\n%s", info)
	}
}

// -niters with -tasks runs the noise step: every task's Gaussian noise model ends with the
// same (tied) bias and variance, moved from the start (variance 1e−6 by default would
// interpolate the sine toy's noisy targets).
func TestTrainTasksNoiseStep(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "mt.json")
	mustRun(t, "train", "-quiet", "-tasks", "-task-col", "first",
		"-kernel", "rbf(gamma=1,variance=1)", "-noise", "gaussian",
		"-d", "15", "-iters", "2", "-kiters", "10", "-niters", "10", "-last-iterate",
		refData+"mtivm_toysine.csv.gz", model)
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Tasks []struct {
			Noise struct {
				Type     string  `json:"type"`
				Bias     float64 `json:"bias"`
				Variance float64 `json:"variance"`
			} `json:"noise"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 3 {
		t.Fatalf("%d tasks, want 3", len(m.Tasks))
	}
	first := m.Tasks[0].Noise
	for i, tk := range m.Tasks {
		if tk.Noise != first {
			t.Errorf("task %d noise %+v, task 0 %+v: not tied", i, tk.Noise, first)
		}
	}
	if first.Type != "gaussian" || !(first.Variance > 1e-4) {
		t.Errorf("noise %+v: the noise step did not move the variance from its start", first)
	}
}
