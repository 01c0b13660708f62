package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `ivm predict -labels` prints the accuracy and writes labels alone: for a binary model the
// same file as without it, for one-vs-rest the largest latent mean's class, which agrees
// with the full prediction but for near ties; with -prob it is refused.
func TestPredictLabelsFlag(t *testing.T) {
	dir := t.TempDir()
	read := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}
	bin := filepath.Join(dir, "bin.json")
	mustRun(t, "train", "-quiet", "-scale", "none", "-iters", "0", "-d", "100",
		"-kernel", refKernel, refData+"class_train_500.csv.gz", bin)
	full, fast := filepath.Join(dir, "full.txt"), filepath.Join(dir, "fast.txt")
	want := mustRun(t, "predict", refData+"class_test_2000.csv.gz", bin, full)
	if got := mustRun(t, "predict", "-labels",
		refData+"class_test_2000.csv.gz", bin, fast); got != want {
		t.Errorf("binary: -labels printed %q, without it %q", got, want)
	}
	if a, b := read(full), read(fast); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Error("binary: -labels wrote other labels than the full prediction")
	}

	train := filepath.Join(dir, "train.csv")
	writeBlobsCSV(t, train, 30, 8)
	ovr := filepath.Join(dir, "ovr.json")
	mustRun(t, "train", "-quiet", "-multiclass", "ovr", "-iters", "0", "-d", "40", train, ovr)
	mustRun(t, "predict", train, ovr, full)
	if out := mustRun(t, "predict", "-labels",
		train, ovr, fast); !strings.HasPrefix(out, "Accuracy = ") {
		t.Errorf("one-vs-rest: -labels printed %q", out)
	}
	a, b := read(full), read(fast)
	if len(a) != len(b) || len(a) != 150 {
		t.Fatalf("one-vs-rest: %d labels with -labels, %d without, want 150", len(b), len(a))
	}
	agree := 0
	for i := range a {
		if a[i] == b[i] {
			agree++
		}
	}
	if agree < 145 {
		t.Errorf("one-vs-rest: %d of 150 labels agree with the full prediction", agree)
	}

	code, _, errs := runCLI(t, "predict", "-labels", "-prob", train, ovr, fast)
	if code != 1 || !strings.Contains(errs, "-labels") {
		t.Errorf("-labels -prob: exit %d, %q", code, errs)
	}
}
