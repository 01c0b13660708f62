package dataset

import (
	"math"
	"strings"
	"testing"
)

// With LabelOptional, rows without a label read as unlabelled: a CSV file of Dim columns
// (with or without a header), libsvm rows that start with a feature; files with labels
// read as before.
func TestLabelOptional(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		labels     []float64 // NaN: unlabelled
	}{
		{"csv without labels", "1,2\n3,4\n", []float64{math.NaN(), math.NaN()}},
		{"csv header without labels", "a,b\n1,2\n", []float64{math.NaN()}},
		{"csv with labels", "1,2,0\n3,4,?\n", []float64{0, math.NaN()}},
		{"libsvm without labels", "1:1 2:2\n2:4\n", []float64{math.NaN(), math.NaN()}},
		{"libsvm mixed", "1 1:1 2:2\n? 2:4\n1:3\n", []float64{1, math.NaN(), math.NaN()}},
	} {
		d, err := Read(strings.NewReader(tc.text), ReadOptions{Dim: 2, LabelOptional: true})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r, c := d.X.Dims(); r != len(tc.labels) || c != 2 {
			t.Errorf("%s: %d×%d inputs", tc.name, r, c)
		}
		for i, want := range tc.labels {
			if got := d.Y[i]; got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%s: row %d label %v, want %v", tc.name, i, got, want)
			}
		}
	}
	if _, err := Read(strings.NewReader("1,2\n"), ReadOptions{Dim: 2}); err == nil {
		t.Error("a CSV file without labels read without LabelOptional")
	}
}
