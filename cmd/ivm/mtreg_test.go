package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mtregRows draws perTask rows of each of three related tasks, named 10, 20 and 30, and
// hands them to row in order.
func mtregRows(perTask int, seed uint64, row func(task int, x1, x2, y float64)) {
	rng := rand.New(rand.NewPCG(seed, 2))
	for task := 1; task <= 3; task++ {
		a := 1 + 0.2*float64(task)
		for i := 0; i < perTask; i++ {
			x1, x2 := 2*rng.NormFloat64(), rng.NormFloat64()
			row(10*task, x1, x2, 10+a*math.Sin(0.6*x1)+0.3*x2+0.05*rng.NormFloat64())
		}
	}
}

// mtregWriteCSV writes mtregRows as "task,x1,x2,y"; every unlabelledEvery-th row has
// target "?" when unlabelledEvery > 0.
func mtregWriteCSV(t *testing.T, path string, perTask, unlabelledEvery int, seed uint64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("school,x1,x2,score\n")
	r := 0
	mtregRows(perTask, seed, func(task int, x1, x2, y float64) {
		target := strconv.FormatFloat(y, 'g', -1, 64)
		if unlabelledEvery > 0 && r%unlabelledEvery == 0 {
			target = "?"
		}
		fmt.Fprintf(&b, "%d,%g,%g,%s\n", task, x1, x2, target)
		r++
	})
	writeTestFile(t, path, b.String())
}

// writeTestFile writes text to path.
func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mtregFigure parses the number after prefix on its line of out.
func mtregFigure(t *testing.T, out, prefix string) float64 {
	t.Helper()
	i := strings.Index(out, prefix)
	if i < 0 {
		t.Fatalf("no %q in the output:\n%s", prefix, out)
	}
	rest := out[i+len(prefix):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
	if err != nil {
		t.Fatalf("%q: %v", prefix, err)
	}
	return v
}

// mtregFiles writes into a new directory the training file of the mtreg and SSMTR tests
// (30 rows per task, every third unlabelled), a test file (40 labelled rows per task) and
// two pairwise constraints.
func mtregFiles(t *testing.T) (dir, train, test, pairs string) {
	t.Helper()
	dir = t.TempDir()
	train, test = filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	mtregWriteCSV(t, train, 30, 3, 1)
	mtregWriteCSV(t, test, 40, 0, 2)
	pairs = filepath.Join(dir, "pairs.csv")
	// Rows 1 and 2 are task 10 (row 1 unlabelled); rows 31..60 task 20.
	writeTestFile(t, pairs, "# u,v,d\n1,2,-5\n32,34,0.1\n")
	return dir, train, test, pairs
}

func TestMtreg(t *testing.T) {
	dir, train, test, pairs := mtregFiles(t)
	preds := filepath.Join(dir, "pred.csv")
	for _, m := range []string{"sstr", "smtr", "ssmtr", "ssmtrpi"} {
		out := mustRun(t, "mtreg", "-quiet", "-method", m, "-iters", "3", "-kiters", "40",
			"-pairs", pairs, "-out", preds, train, test)
		if !strings.Contains(out, "on 3 tasks (60 labelled, 30 unlabelled rows)") {
			t.Errorf("%s: summary missing:\n%s", m, out)
		}
		v := mtregFigure(t, out, "nMSE (per task, averaged) = ")
		if v > 0.2 {
			t.Errorf("%s: nMSE %v, want < 0.2 on smooth tasks", m, v)
		}
		// The labelled mean scores about 1 (it is each task's prior mean).
		if ref := mtregFigure(t, out,
			"(each task's prior mean; a model that learnt nothing) = "); !(ref > 0.8 && ref < 1.5) {
			t.Errorf("%s: labelled-mean nMSE %v, want about 1", m, ref)
		}
		data, err := os.ReadFile(preds)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 120 || !strings.HasPrefix(lines[0], "10,") ||
			!strings.HasPrefix(lines[119], "30,") {
			t.Errorf("%s: %d prediction lines, first %q", m, len(lines), lines[0])
		}
	}
	// The graph weights are reported; -alpha-prior puts them under the common prior.
	for _, flags := range [][]string{nil, {"-alpha-prior"}} {
		args := append([]string{"mtreg", "-quiet", "-method", "ssmtr", "-iters", "2",
			"-kiters", "30"}, flags...)
		out := mustRun(t, append(args, train, test)...)
		if !strings.Contains(out, "graph weight α: geometric mean") ||
			!strings.Contains(out, "over 3 tasks") {
			t.Errorf("%v: no α summary:\n%s", flags, out)
		}
		if hasAlpha := strings.Contains(out, "ln alpha"); hasAlpha != (flags != nil) {
			t.Errorf("%v: prior names ln alpha: %v, want %v:\n%s", flags, hasAlpha, flags != nil,
				out)
		}
	}
	// Without TEST the unlabelled training rows are predicted.
	mustRun(t, "mtreg", "-quiet", "-iters", "2", "-out", preds, train)
	data, _ := os.ReadFile(preds)
	if n := len(strings.Split(strings.TrimSpace(string(data)), "\n")); n != 30 {
		t.Errorf("%d predictions for 30 unlabelled rows", n)
	}
}

func TestMtregErrors(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	mtregWriteCSV(t, train, 10, 0, 1)
	bad := filepath.Join(dir, "pairs.csv")
	os.WriteFile(bad, []byte("1,15,0\n"), 0o644) // rows of different tasks
	for _, args := range [][]string{
		{"mtreg", "-method", "gp", train},
		{"mtreg", "-pairs", bad, "-method", "ssmtrpi", train},
		{"mtreg", "-task-col", "4", train},
		{"mtreg", "-kernel", "rbf+white", train},
		{"mtreg", filepath.Join(dir, "missing.csv")},
	} {
		if code, _, _ := runCLI(t, args...); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
	}
	if code, _, _ := runCLI(t, "mtreg"); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
}

// mtreg reads libsvm through the shared data flags (tasks from task:NAME tokens) and takes
// -task-col as train does: first, last or a column number.
func TestMtregLibsvmAndTaskCol(t *testing.T) {
	dir := t.TempDir()
	svm, csv := filepath.Join(dir, "train.svm"), filepath.Join(dir, "train.csv")
	ssmtrWriteLibsvm(t, svm, 20, 4)
	out := mustRun(t, "mtreg", "-quiet", "-method", "smtr", "-iters", "2", "-kiters", "30",
		svm, svm)
	if !strings.Contains(out, "SMTR on 3 tasks (60 labelled, 0 unlabelled rows)") ||
		mtregFigure(t, out, "nMSE (per task, averaged) = ") > 0.2 {
		t.Errorf("libsvm:\n%s", out)
	}
	mtregWriteCSV(t, csv, 20, 4, 5)
	var ref float64
	for i, tc := range []string{"1", "first"} {
		out := mustRun(t, "mtreg", "-quiet", "-method", "sstr", "-task-col", tc, "-iters", "2",
			"-kiters", "30", csv, csv)
		v := mtregFigure(t, out, "nMSE (per task, averaged) = ")
		if i == 0 {
			ref = v
		} else if v != ref {
			t.Errorf("-task-col %s: nMSE %v, -task-col 1 %v", tc, v, ref)
		}
	}
}
