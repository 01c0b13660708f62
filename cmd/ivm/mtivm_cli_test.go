package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/dataset"
)

// writeTaskFiles writes n rows of three tasks with labels 0 and 5 (two inputs in large
// units) as CSV with the task first, and as libsvm with task:NAME tokens.
func writeTaskFiles(t *testing.T, dir, name string, n int, seed uint64) (csv, libsvm string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	var c, l strings.Builder
	c.WriteString("task,x1,x2,y\n")
	for i := 0; i < n; i++ {
		a, b := 100+30*rng.NormFloat64(), rng.NormFloat64()
		task := "s" + strconv.Itoa(i%3)
		y := 0
		if (a-100)/30+b+0.3*float64(i%3)+0.2*rng.NormFloat64() > 0 {
			y = 5
		}
		fmt.Fprintf(&c, "%s,%g,%g,%d\n", task, a, b, y)
		fmt.Fprintf(&l, "%d task:%s 1:%g 2:%g\n", y, task, a, b)
	}
	csv, libsvm = filepath.Join(dir, name+".csv"), filepath.Join(dir, name+".libsvm")
	writeTestFile(t, csv, c.String())
	writeTestFile(t, libsvm, l.String())
	return csv, libsvm
}

// ivm train -method mtivm → model file → ivm predict on new rows → ivm info, from CSV and
// from libsvm; the predictions are the Go API's (multitask.Load, Predict).
func TestMTIVMTrainPredictInfo(t *testing.T) {
	dir := t.TempDir()
	trainCSV, trainSVM := writeTaskFiles(t, dir, "train", 150, 1)
	testCSV, testSVM := writeTaskFiles(t, dir, "test", 60, 2)
	for _, c := range []struct{ train, test string }{{trainCSV, testCSV}, {trainSVM, testSVM}} {
		model := filepath.Join(dir, filepath.Base(c.train)+".json")
		out := mustRun(t, "train", "-method", "mtivm", "-task-col", "first", "-scale", "std",
			"-d", "30", "-iters", "2", "-kiters", "10", "-workers", "1", c.train, model)
		if !strings.Contains(out, "probit noise") ||
			!strings.Contains(out, "30 active points of 150 in 3 tasks") {
			t.Errorf("train: %q", out)
		}
		pred := filepath.Join(dir, "pred.txt")
		out = mustRun(t, "predict", "-task-col", "first", "-prob", c.test, model, pred)
		var acc float64
		if _, err := fmt.Sscanf(out, "Accuracy = %g%%", &acc); err != nil || acc < 85 {
			t.Errorf("predict: %q, want an accuracy of at least 85 %%", out)
		}
		lines := readLines(t, pred)
		if len(lines) != 61 || lines[0] != "label p(5) latent_mean latent_variance" {
			t.Fatalf("%d lines, header %q", len(lines), lines[0])
		}
		m, _, ok, err := readTaskModel(model)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		data, err := dataset.ReadFile(c.test, dataset.ReadOptions{TaskCol: dataset.TaskFirst})
		if err != nil {
			t.Fatal(err)
		}
		preds, err := m.Predict(data.X, data.Task)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range preds {
			f := strings.Fields(lines[i+1])
			if f[0] != strconv.FormatFloat(p.Label, 'g', -1, 64) ||
				f[1] != strconv.FormatFloat(p.Prob[1], 'g', -1, 64) {
				t.Fatalf("row %d: ivm predict wrote %q, the API predicts %+v", i+1, lines[i+1], p)
			}
		}
		info := mustRun(t, "info", model)
		for _, want := range []string{"(multi-task, ivm-mtmodel/1)",
			"shared by the 3 tasks), 30 active points", "scaled (std)",
			"training:    " + filepath.Base(c.train) + ", 150 rows"} {
			if !strings.Contains(info, want) {
				t.Errorf("info lacks %q:\n%s", want, info)
			}
		}
		if m.Training.SHA256 == "" || len(m.Training.Args) == 0 || m.Training.Args[0] != "train" {
			t.Errorf("provenance %+v", m.Training)
		}
	}
}

// Bad input to the multi-task path is an error that says what is wrong, and no model.
func TestMTIVMBadInput(t *testing.T) {
	dir := t.TempDir()
	train, _ := writeTaskFiles(t, dir, "train", 60, 3)
	model := filepath.Join(dir, "m.json")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeTestFile(t, p, text)
		return p
	}
	unlabelled := write("unl.csv", "task,x,y\na,1,1\na,2,?\nb,3,-1\nb,4,1\n")
	ints := write("ints.csv", "task,x,y\na,1,1\na,2,2\nb,3,3\nb,4,4\n")
	noTasks := write("notasks.csv", "x,y\n1,1\n2,-1\n")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"train", "-method", "mtivm", "-task-col", "first", unlabelled, model},
			"row 2 is unlabelled; only the ncnm noise model uses unlabelled rows"},
		{[]string{"train", "-method", "mtivm", "-task-col", "first", ints, model},
			"4 distinct integer targets"},
		{[]string{"train", "-method", "mtivm", noTasks, model}, "needs a task label on every row"},
		{[]string{"train", "-method", "mtivm", "-task-col", "first", "-scale", "zscore", train,
			model}, `unknown scaling "zscore"`},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 1 || !strings.Contains(errs, c.msg) {
			t.Errorf("ivm %s: exit %d, %q; want %q", strings.Join(c.args, " "), code, errs, c.msg)
		}
		if _, err := os.Stat(model); err == nil {
			t.Fatalf("ivm %s left a model file", strings.Join(c.args, " "))
		}
	}
	mustRun(t, "train", "-quiet", "-method", "mtivm", "-task-col", "first", "-iters", "0",
		"-d", "10", train, model)
	other := write("other.csv", "task,x1,x2,y\nzz,100,0,5\n")
	if code, _, errs := runCLI(t, "predict", "-task-col", "first", other, model); code != 1 ||
		!strings.Contains(errs, `task "zz" is not in the model`) {
		t.Errorf("unknown task: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI(t, "predict", train, model); code != 1 ||
		!strings.Contains(errs, "-task-col") {
		t.Errorf("no task column: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI(t, "predict", "-labels", "-task-col", "first", train,
		model); code != 1 || !strings.Contains(errs, "-labels is for single-task IVM models") {
		t.Errorf("-labels on a multi-task model: exit %d, %q", code, errs)
	}
}
