package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// Rows read while the model decodes (readModelAndRows) are the rows readTest reads once the
// model is known, with the same warning or the same error: libsvm files of the model's
// width, narrower (widened with zeros) and wider (read again, the extra features dropped),
// without labels, starting with a lone label, gzipped, failing on a line or passing the
// value limit only at the model's width; CSV files with and without labels, as a pool
// (labels optional) and as a test file, read ahead where their fields give the model's
// width and again where not, and failing.
func TestReadModelAndRowsSameAsReadTest(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.svm")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%d 1:%g 2:%g 3:%g 4:%g 5:%g\n", 2*(i%2)-1, float64(i%7)/7,
			float64(i%5)/5, float64(i%2), float64(i%3)/3, float64(i%11)/11)
	}
	writeTestFile(t, train, b.String())
	model := filepath.Join(dir, "model.json")
	mustRun(t, "train", "-quiet", "-iters", "0", "-d", "10", train, model)

	files := map[string]string{
		"full":      "1 1:0.5 2:0.25 5:1\n-1 3:2 4:-1\n",
		"narrow":    "1 1:0.5 2:0.25\n-1 3:2\n? 1:1\n",
		"wide":      "1 1:0.5 7:3\n-1 2:1 5:2 6:1\n",
		"unlabeled": "1:0.5 2:0.25 5:1\n3:2 4:-1\n",
		"lone":      "1\n-1 2:1 5:3\n",
		"bad":       "1 1:0.5 5:1\n-1 2:1\n1 3:x\n",
		"limit":     "1 1:1\n1 2:1\n1 3:1\n1 1:1\n1 2:1\n1 3:1\n1 1:1\n1 2:1\n",
		"csv":       "0.1,0.2,0.3,0.4,0.5,1\n0.5,0.4,0.3,0.2,0.1,-1\n",
		"csvbare":   "0.1,0.2,0.3,0.4,0.5\n0.5,0.4,0.3,0.2,0.1\n",
		"csvbad":    "0.1,0.2,0.3,0.4,0.5\n0.5,0.4,x,0.2,0.1\n",
	}
	for name, text := range files {
		writeTestFile(t, filepath.Join(dir, name), text)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(files["narrow"]))
	zw.Close()
	writeTestFile(t, filepath.Join(dir, "narrow.gz"), gz.String())

	names := []string{"full", "narrow", "wide", "unlabeled", "lone", "bad", "limit", "csv",
		"csvbare", "csvbad", "narrow.gz"}
	for _, c := range append(names, "labels:full", "labels:csv", "labels:csvbare") {
		name, labels := strings.CutPrefix(c, "labels:")
		path := filepath.Join(dir, name)
		opt := dataset.ReadOptions{LabelOptional: !labels, MaxValues: 1 << 20}
		if name == "limit" {
			opt.MaxValues = 30 // 8 rows × 3 read ahead pass, 8 × 5 do not
		}
		var seqErr, aheadErr bytes.Buffer
		mf, err := readModel(model, defaultMaxMem)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := readTest(path, opt, mf.single.InputDim(), &seqErr)
		_, got, gotErr := readModelAndRows(model, path, opt, defaultMaxMem, &aheadErr)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || seqErr.String() != aheadErr.String() {
			t.Errorf("%s: error %v, stderr %q; want %v, %q", c, gotErr, aheadErr.String(),
				wantErr, seqErr.String())
			continue
		}
		if (wantErr != nil) != (name == "bad" || name == "limit" || name == "csvbad" ||
			c == "labels:csvbare") {
			t.Errorf("%s: readTest gave %v", c, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if !mat.Equal(got.X, want.X) || !sameLabels(got.Y, want.Y) ||
			got.MaxIndex != want.MaxIndex || got.Format != want.Format {
			t.Errorf("%s: read ahead %v %v %d, want %v %v %d", c, mat.Formatted(got.X),
				got.Y, got.MaxIndex, mat.Formatted(want.X), want.Y, want.MaxIndex)
		}
	}
}

// The width a file is read at before the model is known: none for libsvm, a CSV line's
// fields less the task and (where labels are not optional) label columns; standard input and
// a lone label first are not read ahead.
func TestAheadOptions(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text string
		opt  dataset.ReadOptions
		ok   bool
		dim  int
		what string
	}{
		{"1 3:4\n", dataset.ReadOptions{}, true, 0, "libsvm"},
		{"1,2,3,4\n", dataset.ReadOptions{}, true, 3, "CSV with labels"},
		{"1,2,3,4\n", dataset.ReadOptions{LabelOptional: true}, true, 4, "a CSV pool"},
		{"t,2,3,4\n", dataset.ReadOptions{TaskCol: dataset.TaskFirst}, true, 2, "tasks"},
		{"4\n", dataset.ReadOptions{}, false, 0, "a lone label"},
		{"4\n", dataset.ReadOptions{Format: dataset.CSV}, false, 0, "one CSV column"},
	} {
		path := filepath.Join(dir, "rows")
		writeTestFile(t, path, c.text)
		got, ok := aheadOptions(path, c.opt)
		if ok != c.ok || ok && got.Dim != c.dim {
			t.Errorf("%s: %v, width %d; want %v, %d", c.what, ok, got.Dim, c.ok, c.dim)
		}
	}
	if _, ok := aheadOptions(stdinPath, dataset.ReadOptions{}); ok {
		t.Error("standard input read ahead")
	}
}

// fitAhead widens rows read without a dimension to the model's and refuses them where the
// reading at the model's width differs: features beyond it, the value limit passed, or a
// CSV file read at another width.
func TestFitAhead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.svm")
	writeTestFile(t, path, "1 1:2 3:4\n-1 2:5\n")
	read := func() *dataset.Data {
		d, err := readInput(path, dataset.ReadOptions{}, false)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := fitAhead(read(), 0, 5, dataset.ReadOptions{})
	want := mat.NewDense(2, 5, []float64{2, 0, 4, 0, 0, 0, 5, 0, 0, 0})
	if d == nil || !mat.Equal(d.X, want) {
		t.Fatalf("widened to 5: %v", d)
	}
	if d := fitAhead(read(), 0, 2, dataset.ReadOptions{}); d != nil {
		t.Errorf("a feature beyond 2 kept: %v", mat.Formatted(d.X))
	}
	if d := fitAhead(read(), 0, 5, dataset.ReadOptions{MaxValues: 9}); d != nil {
		t.Errorf("2 rows × 5 passed a limit of 9 values: %v", mat.Formatted(d.X))
	}
	if d := fitAhead(nil, 0, 5, dataset.ReadOptions{}); d != nil {
		t.Errorf("no rows read ahead gave %v", d)
	}
	csv := filepath.Join(t.TempDir(), "rows.csv")
	writeTestFile(t, csv, "1,2,3\n4,5,6\n")
	d, err := readInput(csv, dataset.ReadOptions{Dim: 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	if fitAhead(d, 2, 2, dataset.ReadOptions{}) != d || fitAhead(d, 2, 3, dataset.ReadOptions{}) !=
		nil {
		t.Error("CSV rows kept at another width than the model's, or not kept at its own")
	}
}

// sameLabels compares labels, NaN (unlabelled) equal to NaN.
func sameLabels(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	})
}
