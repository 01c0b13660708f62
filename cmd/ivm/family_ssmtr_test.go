package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ssmtrWriteLibsvm writes mtregRows as libsvm with task:NAME tokens.
func ssmtrWriteLibsvm(t *testing.T, path string, perTask int, seed uint64) {
	t.Helper()
	var b strings.Builder
	mtregRows(perTask, seed, func(task int, x1, x2, y float64) {
		fmt.Fprintf(&b, "%g task:%d 1:%g 2:%g\n", y, task, x1, x2)
	})
	writeTestFile(t, path, b.String())
}

// train → MODEL → predict on new rows → info, for every method, through the command line.
func TestSSMTRTrainPredictInfo(t *testing.T) {
	dir, train, test, pairs := mtregFiles(t)
	for _, m := range []string{"sstr", "smtr", "ssmtr", "ssmtrpi"} {
		model, out := filepath.Join(dir, m+".json"), filepath.Join(dir, m+".out")
		got := mustRun(t, "train", "-method", m, "-task-col", "first", "-iters", "3",
			"-kiters", "40", "-pairs", pairs, train, model)
		if !strings.Contains(got,
			strings.ToUpper(m)+" on 3 tasks (60 labelled, 30 unlabelled rows)") ||
			!strings.Contains(got, "trained on 90 rows of 2 inputs") {
			t.Errorf("%s: train printed\n%s", m, got)
		}
		b, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"format":"ivm-ssmtr/1",`) ||
			!strings.Contains(string(b), `"file":"train.csv"`) {
			t.Errorf("%s: model file starts %.80q", m, b)
		}
		got = mustRun(t, "predict", "-task-col", "first", "-prob", test, model, out)
		if !strings.Contains(got, "Mean squared error = ") {
			t.Errorf("%s: predict printed\n%s", m, got)
		}
		if v := mtregFigure(t, got, "nMSE (per task, averaged) = "); v > 0.2 {
			t.Errorf("%s: nMSE %v on new rows, want < 0.2", m, v)
		}
		lines := readLines(t, out)
		if len(lines) != 121 || lines[0] != "mean variance" {
			t.Fatalf("%s: %d output lines, first %q", m, len(lines), lines[0])
		}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			mu, err1 := strconv.ParseFloat(f[0], 64)
			v, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil || !(v > 0) || math.Abs(mu-10) > 3 {
				t.Fatalf("%s: output line %q", m, l)
			}
		}
		got = mustRun(t, "info", model)
		for _, want := range []string{"(" + strings.ToUpper(m) + ", ivm-ssmtr/1)", "task 10",
			"task 30", "training:    train.csv, 90 rows"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: info lacks %q:\n%s", m, want, got)
			}
		}
	}
	// ivm mtreg gives the numbers of train then predict.
	model := filepath.Join(dir, "ssmtr.json")
	viaPredict := mtregFigure(t, mustRun(t, "predict", "-task-col", "first", test, model),
		"nMSE (per task, averaged) = ")
	viaMtreg := mtregFigure(t, mustRun(t, "mtreg", "-quiet", "-method", "ssmtr", "-iters", "3",
		"-kiters", "40", train, test), "nMSE (per task, averaged) = ")
	if viaPredict != viaMtreg {
		t.Errorf("mtreg nMSE %v, train + predict %v", viaMtreg, viaPredict)
	}
}

// libsvm data with task:NAME tokens, a 1-D plot, and -task-col last.
func TestSSMTRLibsvmPlotTaskCol(t *testing.T) {
	dir := t.TempDir()
	train, model := filepath.Join(dir, "train.svm"), filepath.Join(dir, "m.json")
	ssmtrWriteLibsvm(t, train, 20, 3)
	mustRun(t, "train", "-quiet", "-method", "smtr", "-iters", "2", "-kiters", "30", train, model)
	got := mustRun(t, "predict", train, model)
	if v := mtregFigure(t, got, "nMSE (per task, averaged) = "); v > 0.2 {
		t.Errorf("libsvm: nMSE %v on the training rows", v)
	}
	// One input, the task in the last column: ivm plot draws each task's mean ± 2 sd.
	csv, model1 := filepath.Join(dir, "one.csv"), filepath.Join(dir, "one.json")
	var b strings.Builder
	for i := 0; i < 40; i++ {
		x := float64(i) / 8
		y := "?"
		if i%3 == 0 {
			y = strconv.FormatFloat(math.Sin(x)*float64(1+i%2), 'g', -1, 64)
		}
		fmt.Fprintf(&b, "%g,%s,%c\n", x, y, 'a'+rune(i%2))
	}
	os.WriteFile(csv, []byte(b.String()), 0o644)
	mustRun(t, "train", "-quiet", "-method", "ssmtr", "-task-col", "last", "-label-col", "2",
		"-iters", "2", csv, model1)
	png := filepath.Join(dir, "one.png")
	got = mustRun(t, "plot", "-task-col", "last", "-label-col", "2", "-o", png, model1, csv)
	if !strings.Contains(got, "figure written to") {
		t.Errorf("plot printed %q", got)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("no figure: %v", err)
	}
	// mtreg takes the same -task-col values as train: first, last, N (and N as before).
	for _, tc := range []string{"last", "3"} {
		got := mustRun(t, "mtreg", "-quiet", "-task-col", tc, "-label-col", "2", "-iters", "2",
			csv, csv)
		if !strings.Contains(got, "on 2 tasks") {
			t.Errorf("-task-col %s: %s", tc, got)
		}
	}
}

func TestSSMTRErrors(t *testing.T) {
	dir := t.TempDir()
	train, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "m.json")
	mtregWriteCSV(t, train, 10, 3, 1)
	mustRun(t, "train", "-quiet", "-method", "smtr", "-task-col", "first", "-iters", "1",
		"-kiters", "5", train, model)
	notask := filepath.Join(dir, "notask.csv")
	os.WriteFile(notask, []byte("1,2,3\n4,5,6\n"), 0o644)
	old := filepath.Join(dir, "old.json")
	b, _ := os.ReadFile(model)
	os.WriteFile(old, []byte(strings.Replace(string(b), "ivm-ssmtr/1", "ivm-ssmtr/0", 1)), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"train", "-method", "ssmtr", "-scale", "log", train, model},
			`unknown -scale "log"`},
		{[]string{"train", "-method", "ssmtr", "-targets", "all", train, model}, "all"},
		{[]string{"train", "-method", "ssmtr", "-kernel", "rbf+white", train, model}, "white"},
		{[]string{"train", "-method", "ssmtr", "-optimizer", "newton", train, model}, "newton"},
		{[]string{"predict", notask, model}, "name the task column"},
		{[]string{"predict", "-task-col", "2", train, model}, "is not one of the model's 3 tasks"},
		{[]string{"predict", "-task-col", "first", train, old},
			`"ivm-ssmtr/0" is not supported by this version (it reads "ivm-ssmtr/1")`},
		{[]string{"plot", "-task-col", "first", model, train}, "2 inputs"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 1 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want 1 and %q", c.args, code, errs, c.msg)
		}
	}
	if code, _, _ := runCLI(t, "train", "-method", "ssmtr", train); code != 2 {
		t.Errorf("train without MODEL: exit %d, want 2", code)
	}
}
