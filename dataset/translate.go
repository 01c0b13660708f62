package dataset

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Translate shifts every row of x, read as an h×w image stored row by row (pixel (r, c) in
// column r·w + c), by dy rows down and dx columns right, and returns the shifted images.
// Pixels shifted in from outside the image take the value fill (the virtual-informative-
// vector construction of the IVM extensions paper §6 uses min(X), the background of the
// USPS digits). Any h×w works; x must have h·w columns.
func Translate(x mat.Matrix, h, w, dy, dx int, fill float64) (*mat.Dense, error) {
	n, dim := x.Dims()
	if h < 1 || w < 1 || h*w != dim {
		return nil, fmt.Errorf("dataset: %d×%d images need %d columns, the data have %d",
			h, w, h*w, dim)
	}
	out := mat.NewDense(n, dim, nil)
	for i := 0; i < n; i++ {
		dst := out.RawRowView(i)
		for r := 0; r < h; r++ {
			for c := 0; c < w; c++ {
				sr, sc := r-dy, c-dx
				if sr < 0 || sr >= h || sc < 0 || sc >= w {
					dst[r*w+c] = fill
					continue
				}
				dst[r*w+c] = x.At(i, sr*w+sc)
			}
		}
	}
	return out, nil
}

// OneShifts returns x followed by its four one-pixel translations (up, down, left, right,
// in that order, each block as many rows as x) and the targets repeated to match: the
// augmented set from which the extensions paper reselects with virtual informative
// vectors. Vacated pixels take fill.
func OneShifts(x mat.Matrix, y []float64, h, w int, fill float64) (*mat.Dense, []float64, error) {
	n, dim := x.Dims()
	if len(y) != n {
		return nil, nil, fmt.Errorf("dataset: %d targets for %d rows", len(y), n)
	}
	out := mat.NewDense(5*n, dim, nil)
	ys := make([]float64, 0, 5*n)
	for b, s := range [][2]int{{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
		t, err := Translate(x, h, w, s[0], s[1], fill)
		if err != nil {
			return nil, nil, err
		}
		out.Slice(b*n, (b+1)*n, 0, dim).(*mat.Dense).Copy(t)
		ys = append(ys, y...)
	}
	return out, ys, nil
}
