package dataset

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A 2×3 image moved one pixel each way, and the five-block augmented set.
func TestTranslate(t *testing.T) {
	// 1 2 3
	// 4 5 6
	x := mat.NewDense(1, 6, []float64{1, 2, 3, 4, 5, 6})
	for _, c := range []struct {
		dy, dx int
		want   []float64
	}{
		{0, 0, []float64{1, 2, 3, 4, 5, 6}},
		{1, 0, []float64{-1, -1, -1, 1, 2, 3}},  // down
		{-1, 0, []float64{4, 5, 6, -1, -1, -1}}, // up
		{0, 1, []float64{-1, 1, 2, -1, 4, 5}},   // right
		{0, -1, []float64{2, 3, -1, 5, 6, -1}},  // left
		{2, 0, []float64{-1, -1, -1, -1, -1, -1}},
	} {
		got, err := Translate(x, 2, 3, c.dy, c.dx, -1)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range c.want {
			if got.At(0, j) != v {
				t.Fatalf("shift (%d, %d): %v, want %v", c.dy, c.dx, got.RawRowView(0), c.want)
			}
		}
	}
	if _, err := Translate(x, 2, 2, 1, 0, 0); err == nil {
		t.Error("a 2×2 image of 6 columns was accepted")
	}
	aug, y, err := OneShifts(x, []float64{7}, 2, 3, -1)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := aug.Dims(); r != 5 || len(y) != 5 || y[4] != 7 {
		t.Fatalf("%d rows, targets %v", r, y)
	}
	if aug.At(1, 0) != 4 || aug.At(2, 3) != 1 || aug.At(3, 0) != 2 || aug.At(4, 1) != 1 {
		t.Errorf("augmented rows %v", aug.RawMatrix().Data)
	}
}
