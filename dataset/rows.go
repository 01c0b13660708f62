package dataset

import "gonum.org/v1/gonum/mat"

// RowsOf returns a copy of the rows idx of x, in that order, or nil when idx is empty (a
// mat.Dense has at least one row).
func RowsOf(x *mat.Dense, idx []int) *mat.Dense {
	if len(idx) == 0 {
		return nil
	}
	_, d := x.Dims()
	m := mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		m.SetRow(i, x.RawRowView(r))
	}
	return m
}
