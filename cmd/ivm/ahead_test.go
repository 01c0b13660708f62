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
// value limit only at the model's width; CSV files, which are never read ahead.
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
	}
	for name, text := range files {
		writeTestFile(t, filepath.Join(dir, name), text)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(files["narrow"]))
	zw.Close()
	writeTestFile(t, filepath.Join(dir, "narrow.gz"), gz.String())

	for _, name := range []string{"full", "narrow", "wide", "unlabeled", "lone", "bad", "limit",
		"csv", "csvbare", "narrow.gz"} {
		path := filepath.Join(dir, name)
		opt := dataset.ReadOptions{LabelOptional: true, MaxValues: 1 << 20}
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
			t.Errorf("%s: error %v, stderr %q; want %v, %q", name, gotErr, aheadErr.String(),
				wantErr, seqErr.String())
			continue
		}
		if (wantErr != nil) != (name == "bad" || name == "limit") {
			t.Errorf("%s: readTest gave %v", name, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if !mat.Equal(got.X, want.X) || !sameLabels(got.Y, want.Y) ||
			got.MaxIndex != want.MaxIndex || got.Format != want.Format {
			t.Errorf("%s: read ahead %v %v %d, want %v %v %d", name, mat.Formatted(got.X),
				got.Y, got.MaxIndex, mat.Formatted(want.X), want.Y, want.MaxIndex)
		}
	}
}

// fitAhead widens rows read without a dimension to the model's and refuses them where the
// reading at the model's width differs: features beyond it, or the value limit passed.
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
	d := fitAhead(read(), 5, dataset.ReadOptions{})
	want := mat.NewDense(2, 5, []float64{2, 0, 4, 0, 0, 0, 5, 0, 0, 0})
	if d == nil || !mat.Equal(d.X, want) {
		t.Fatalf("widened to 5: %v", d)
	}
	if d := fitAhead(read(), 2, dataset.ReadOptions{}); d != nil {
		t.Errorf("a feature beyond 2 kept: %v", mat.Formatted(d.X))
	}
	if d := fitAhead(read(), 5, dataset.ReadOptions{MaxValues: 9}); d != nil {
		t.Errorf("2 rows × 5 passed a limit of 9 values: %v", mat.Formatted(d.X))
	}
	if d := fitAhead(nil, 5, dataset.ReadOptions{}); d != nil {
		t.Errorf("no rows read ahead gave %v", d)
	}
}

// sameLabels compares labels, NaN (unlabelled) equal to NaN.
func sameLabels(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	})
}
