package kern

import (
	"errors"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/rowdot"
)

// Inner holds the inner products x_i·x_j of every pair of rows of one input matrix X: the
// part of a kernel column that depends on the inputs alone. Columns made with it
// (NewInnerColumns) read a column's inner products from here instead of computing them, so
// that the many kernels and problems fitted on the same rows (a kernel search: every
// candidate kernel, every class, every fold) compute them once, as one compute-bound matrix
// product, where each column would otherwise take a memory-bound pass over X, a large share
// of a search's training time on wide inputs.
//
// It takes 8·N² bytes (InnerBytes), so it suits the few thousand rows of a search's folds,
// not a large training set. It is read-only once made and may be shared by goroutines.
type Inner struct {
	x *mat.Dense
	n int
	g []float64 // n×n row-major, exactly symmetric
}

// NewInner computes the inner products of the rows of x, which must not change while the
// Inner is in use.
func NewInner(x *mat.Dense) *Inner {
	n, _ := x.Dims()
	g := make([]float64, n*n)
	a := x.RawMatrix()
	// rowdot sums every entry in one fixed order, so the product is exactly symmetric and
	// two identical rows have exactly the same products (their distance is exactly 0).
	rowdot.ABt(blas64.General{Rows: n, Cols: n, Stride: n, Data: g}, a, a)
	return &Inner{x: x, n: n, g: g}
}

// InnerBytes is the memory an Inner of n rows takes.
func InnerBytes(n int) float64 { return 8 * float64(n) * float64(n) }

// X returns the matrix whose rows' inner products the Inner holds.
func (in *Inner) X() *mat.Dense { return in.x }

// row returns the inner products of row i with every row.
func (in *Inner) row(i int) []float64 { return in.g[i*in.n : (i+1)*in.n] }

// NewInnerColumns is NewColumns on the rows of in.X(), taking the unweighted inner
// products from in. Columns of ARD components, whose products are weighted, are computed
// as NewColumns computes them.
func NewInnerColumns(k Kernel, in *Inner) (*Columns, error) {
	if in == nil || in.x == nil {
		return nil, errors.New("kern: no inner products")
	}
	return newColumns(k, in.x, in), nil
}
