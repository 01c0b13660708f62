// Package rowdot computes matrices of inner products between the rows of two matrices,
// C = A·Bᵀ, the product behind every kernel matrix of vectors (rbf, linear, polynomial).
//
// Both operands keep their inner dimension contiguous, so each entry is a dot product of
// two rows. On amd64 with AVX2 and FMA an assembly kernel computes a 4×3 block of entries
// at a time with twelve vector accumulators; on Fashion-MNIST's shape (10 572 × 510 × 784)
// it runs at ~50 GFlop/s on one core where gonum's Dgemm reaches ~10.5 (BenchmarkABt).
// Elsewhere gonum's Dgemm computes the product.
//
// Where the assembly runs, every entry is summed in one fixed order (see dot), so C[i][j]
// has the same bits whichever block it falls in and whatever the shapes: a row predicted
// alone gets the bits it gets in a batch, and a matrix's product with itself is exactly
// symmetric.
package rowdot

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The block the assembly kernel computes: blockRows rows of A against blockCols rows of B.
const (
	blockRows = 4
	blockCols = 3
	lanes     = 4 // float64s per vector register
)

// parallelWork is the number of multiply–adds above which ABt splits its rows across
// goroutines.
const parallelWork = 1 << 23

// ABt sets c (a.Rows × b.Rows) to a·bᵀ. a and b must have the same number of columns.
func ABt(c, a, b blas64.General) {
	if a.Cols != b.Cols || c.Rows != a.Rows || c.Cols != b.Rows {
		panic("rowdot: dimension mismatch")
	}
	if c.Rows == 0 || c.Cols == 0 {
		return
	}
	if !useAsm {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, c)
		return
	}
	parts := 1
	if work := a.Rows * b.Rows * a.Cols; work >= parallelWork {
		parts = min(runtime.GOMAXPROCS(0), a.Rows/blockRows)
	}
	if parts <= 1 {
		rowsABt(c, a, b, 0, a.Rows)
		return
	}
	// Each part takes whole blocks of rows, so the blocks, and so the bits, do not depend
	// on the number of parts.
	blocks := (a.Rows + blockRows - 1) / blockRows
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*blocks/parts*blockRows, min(a.Rows, (p+1)*blocks/parts*blockRows)
		wg.Go(func() { rowsABt(c, a, b, lo, hi) })
	}
	wg.Wait()
}

// rowsABt sets rows [lo, hi) of c = a·bᵀ.
func rowsABt(c, a, b blas64.General, lo, hi int) {
	k := a.Cols
	k4 := k &^ (lanes - 1)
	n3 := b.Rows - b.Rows%blockCols
	var acc [blockRows * blockCols * lanes]float64
	i := lo
	for ; i+blockRows <= hi; i += blockRows {
		for j := 0; j < n3; j += blockCols {
			dot4x3(&a.Data[i*a.Stride], a.Stride, &b.Data[j*b.Stride], b.Stride, k4, &acc)
			for r := range blockRows {
				ai := a.Data[(i+r)*a.Stride : (i+r)*a.Stride+k]
				for s := range blockCols {
					bj := b.Data[(j+s)*b.Stride : (j+s)*b.Stride+k]
					c.Data[(i+r)*c.Stride+j+s] = finish(acc[(r*blockCols+s)*lanes:], ai, bj, k4)
				}
			}
		}
		for r := range blockRows {
			edgeRow(c, a, b, i+r, n3)
		}
	}
	for ; i < hi; i++ {
		edgeRow(c, a, b, i, 0)
	}
}

// edgeRow sets entries [from, b.Rows) of row i of c, outside the assembly kernel's blocks.
func edgeRow(c, a, b blas64.General, i, from int) {
	k := a.Cols
	ai := a.Data[i*a.Stride : i*a.Stride+k]
	for j := from; j < b.Rows; j++ {
		c.Data[i*c.Stride+j] = dot(ai, b.Data[j*b.Stride:j*b.Stride+k])
	}
}

// dot returns Σ x_k y_k summed as the assembly kernel sums it: lane l accumulates the
// products of the elements l, l+lanes, … below the last multiple of lanes by fused
// multiply–adds, the lanes are added pairwise, and the remaining elements follow.
func dot(x, y []float64) float64 {
	k4 := len(x) &^ (lanes - 1)
	var acc [lanes]float64
	for k := 0; k < k4; k += lanes {
		for l := range lanes {
			acc[l] = math.FMA(x[k+l], y[k+l], acc[l])
		}
	}
	return finish(acc[:], x, y, k4)
}

// finish adds the lanes of acc pairwise and then the products of x and y from k4 on.
func finish(acc, x, y []float64, k4 int) float64 {
	s := (acc[0] + acc[1]) + (acc[2] + acc[3])
	for k := k4; k < len(x); k++ {
		s = math.FMA(x[k], y[k], s)
	}
	return s
}
