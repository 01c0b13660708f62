package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// ivm update adds a file's rows to a trained model: the updated model predicts the test
// rows better than the model trained on 100 rows, its file records the update (ivm info
// shows it) and the file it read is left as it was.
func TestUpdateCommand(t *testing.T) {
	dir := t.TempDir()
	_, rest, model := trainedOn100(t, dir)
	updated := filepath.Join(dir, "u.json")
	before, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "update", "-d", "40", model, rest, updated)
	if !strings.Contains(out, "updated with 400 rows") {
		t.Errorf("summary %q", out)
	}
	if after, _ := os.ReadFile(model); string(after) != string(before) {
		t.Error("ivm update changed the model it read")
	}
	acc := func(path string) string {
		return strings.TrimSpace(mustRun(t, "predict", refData+"class_test_2000.csv.gz", path))
	}
	if a, b := acc(model), acc(updated); b <= a { // "Accuracy = 9x.y%" compare as text
		t.Errorf("trained on 100 rows: %s; updated with 400: %s", a, b)
	}
	info := mustRun(t, "info", updated)
	if !strings.Contains(info, "updated:     rest.csv, 400 rows") ||
		!strings.Contains(info, "ivm update -d 40") {
		t.Errorf("ivm info does not show the update:\n%s", info)
	}
}

// ivm update -relearn learns the kernel again: a model of 100 rows whose kernel is far too
// narrow predicts the test rows better updated with -relearn than with its kernel kept, and
// ivm info shows the relearnt kernel and the update's command.
func TestUpdateRelearn(t *testing.T) {
	dir := t.TempDir()
	first, rest := splitCSV(t, dir, refData+"class_train_500.csv.gz", 100)
	model := filepath.Join(dir, "m.json")
	mustRun(t, "train", "-quiet", "-scale", "none", "-iters", "0", "-d", "20", "-kernel",
		"rbf(gamma=100,variance=1)+bias+white(variance=0.01)", first, model)
	kept, relearnt := filepath.Join(dir, "kept.json"), filepath.Join(dir, "relearnt.json")
	mustRun(t, "update", "-quiet", "-d", "60", model, rest, kept)
	mustRun(t, "update", "-quiet", "-relearn", "-d", "60", model, rest, relearnt)
	acc := func(path string) string {
		return strings.TrimSpace(mustRun(t, "predict", refData+"class_test_2000.csv.gz", path))
	}
	if a, b := acc(kept), acc(relearnt); b <= a { // "Accuracy = 9x.y%" compare as text
		t.Errorf("kernel kept: %s; relearnt: %s", a, b)
	}
	info := mustRun(t, "info", relearnt)
	if strings.Contains(info, "; kernel rbf(gamma=100,") ||
		!strings.Contains(info, "ivm update -quiet -relearn") {
		t.Errorf("ivm info does not show the relearnt kernel and the update:\n%s", info)
	}
}

// ivm info says that the held-out figure of a default model is the model's as trained, once
// the model has been updated.
func TestInfoHeldOutBeforeUpdates(t *testing.T) {
	dir := t.TempDir()
	first, rest := splitCSV(t, dir, refData+"class_train_500.csv.gz", 100)
	model, updated := filepath.Join(dir, "m.json"), filepath.Join(dir, "u.json")
	mustRun(t, "train", "-quiet", first, model)
	mustRun(t, "update", "-quiet", model, rest, updated)
	if info := mustRun(t, "info", model); !strings.Contains(info, "held out:") ||
		strings.Contains(info, "before its") {
		t.Errorf("ivm info of the model trained:\n%s", info)
	}
	if info := mustRun(t, "info", updated); !strings.Contains(info,
		"the model as trained, before its 1 update(s)") {
		t.Errorf("ivm info of the model updated:\n%s", info)
	}
}

// splitCSV writes the first n rows of the data file src and the rest as first.csv and
// rest.csv in dir.
func splitCSV(t *testing.T, dir, src string, n int) (first, rest string) {
	t.Helper()
	d, err := dataset.ReadFile(src, dataset.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, dim := d.X.Dims()
	first, rest = filepath.Join(dir, "first.csv"), filepath.Join(dir, "rest.csv")
	for path, r := range map[string][2]int{first: {0, n}, rest: {n, rows}} {
		part := &dataset.Data{X: mat.DenseCopyOf(d.X.Slice(r[0], r[1], 0, dim)),
			Y: d.Y[r[0]:r[1]]}
		var b bytes.Buffer
		if err := dataset.WriteCSV(&b, part); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return first, rest
}

// ivm update refuses, by name and without writing OUT: a label the model has no class for,
// a model file that is not a single-task IVM's, OUT the same as MODEL.
func TestUpdateCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	first, _, model := trainedOn100(t, dir)
	out := filepath.Join(dir, "u.json")
	three := filepath.Join(dir, "three.csv")
	os.WriteFile(three, []byte("0.5,0.5,1\n0.1,0.2,3\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{model, three, out}, "new row 1 has label 3, not one of the model's classes"},
		{[]string{first, first, out}, first},
		{[]string{model, first, model}, "m.json"},
	} {
		code, _, errs := runCLI(t, append([]string{"update"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("ivm update %v: exit %d, %q; want an error saying %q", c.args, code, errs,
				c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("ivm update %v wrote %s", c.args, out)
		}
	}
}

// trainedOn100 trains dir/m.json with the reference kernel fixed on the first 100 rows of
// the reference's classification set, and returns the files of those rows and of the others,
// and the model's.
func trainedOn100(t *testing.T, dir string) (first, rest, model string) {
	t.Helper()
	first, rest = splitCSV(t, dir, refData+"class_train_500.csv.gz", 100)
	model = filepath.Join(dir, "m.json")
	mustRun(t, "train", "-quiet", "-scale", "none", "-iters", "0", "-d", "20", "-kernel",
		refKernel, first, model)
	return first, rest, model
}
