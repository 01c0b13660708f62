package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// CheckFinite names the first value that is NaN or infinite, in a dense matrix (read row by
// row from its raw data), in a view of one and in any other matrix alike, and passes large
// finite values.
func TestCheckFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		x := mat.NewDense(5, 7, nil)
		for i := range 35 {
			x.RawMatrix().Data[i] = float64(i%5) - 1e308*float64(i%2)
		}
		if err := CheckFinite(x); err != nil {
			t.Fatalf("finite rows: %v", err)
		}
		x.Set(3, 4, bad)
		x.Set(4, 0, bad)
		for _, c := range []struct {
			m      mat.Matrix
			at     string
			kindOf string
		}{
			{x, "row 3 column 4", "dense"},
			{x.Slice(1, 5, 2, 7), "row 2 column 2", "view"},
			{struct{ mat.Matrix }{x}, "row 3 column 4", "other"},
		} {
			err := CheckFinite(c.m)
			want := fmt.Sprintf("%s is %v", c.at, bad)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s with %v: %v, want %q", c.kindOf, bad, err, want)
			}
		}
	}
}
