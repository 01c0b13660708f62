// Package rowdot computes matrices of inner products between the rows of two matrices,
// C = A·Bᵀ, the product behind every kernel matrix of vectors (rbf, linear, polynomial).
//
// Both operands keep their inner dimension contiguous, so each entry is a dot product of
// two rows. On amd64 with AVX2 and FMA an assembly kernel computes a 4×3 block of entries
// at a time with twelve vector accumulators, several times as fast on one core as gonum's
// Dgemm (BenchmarkABt compares them).
// Elsewhere, or built with -tags purego, gonum's Dgemm computes the product.
//
// Where the assembly runs, every entry is summed in one fixed order (see dot), so C[i][j]
// has the same bits whichever block it falls in and whatever the shapes: a row predicted
// alone gets the bits it gets in a batch, and a matrix's product with itself is exactly
// symmetric.
//
// On the same product it builds what would otherwise go through gonum's LAPACK and its
// column-oriented BLAS: a blocked triangular solve (SolveUpperRight) and Cholesky
// factorisation (Cholesky), and gonum's Dgemm replaced by the product (BLAS).
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

// The cache blocking of rowsABt: a's rows in blocks of about aBlockBytes (kept in the
// last-level cache), and for each block b's rows in panels of about panelBytes (kept in the
// per-core cache) that the block's rows pass over. Each of b's panels is read from memory
// once per block of a, and each row of c is written a panel-wide stretch at a time.
// Without the panels, a block of test rows streamed against a model's active inputs, many
// times the cache's size, runs several times slower.
const (
	aBlockBytes = 4 << 20
	panelBytes  = 384 << 10
)

// rowsABt sets rows [lo, hi) of c = a·bᵀ. Rows and columns past the whole blocks are
// covered by one more block that ends at the last of them and overlaps the blocks before
// (edgeRow's scalar sums where fewer than a block's rows remain): every entry has dot's bits
// whichever block computes it, so those computed twice get the same value twice, and a
// goroutine writes only its own rows.
func rowsABt(c, a, b blas64.General, lo, hi int) {
	k := a.Cols
	n3 := b.Rows - b.Rows%blockCols
	rowBytes := 8 * max(k, 1)
	panel := max(blockCols, panelBytes/rowBytes/blockCols*blockCols)
	aBlock := max(blockRows, aBlockBytes/rowBytes/blockRows*blockRows)
	var acc [blockRows * blockCols]float64
	last := hi - (hi-lo)%blockRows // rows [lo, last) in whole blocks
	lastCol := n3                  // columns [0, lastCol) in whole blocks
	if n3 < b.Rows && n3 > 0 {
		lastCol = b.Rows
	}
	for i0 := lo; i0 < last; i0 += aBlock {
		i1 := min(last, i0+aBlock)
		for p0 := 0; p0 < n3; p0 += panel {
			rowsPanel(c, a, b, i0, i1, p0, min(n3, p0+panel), &acc)
		}
		if lastCol > n3 {
			rowsPanel(c, a, b, i0, i1, b.Rows-blockCols, b.Rows, &acc)
		}
	}
	if last < hi && last > lo {
		rowsPanel(c, a, b, hi-blockRows, hi, 0, n3, &acc)
		if lastCol > n3 {
			rowsPanel(c, a, b, hi-blockRows, hi, b.Rows-blockCols, b.Rows, &acc)
		}
	}
	for i := lo; i < hi; i++ {
		switch {
		case i >= last && last == lo:
			edgeRow(c, a, b, i, 0)
		case lastCol == n3:
			edgeRow(c, a, b, i, n3)
		}
	}
}

// rowsPanel sets the entries of c = a·bᵀ in rows [i0, i1) (whole blocks) and columns
// [j0, j1) (whole blocks).
func rowsPanel(c, a, b blas64.General, i0, i1, j0, j1 int, acc *[blockRows * blockCols]float64) {
	k := a.Cols
	for i := i0; i < i1; i += blockRows {
		for j := j0; j < j1; j += blockCols {
			dot4x3(&a.Data[i*a.Stride], a.Stride, &b.Data[j*b.Stride], b.Stride, k, acc)
			for r := range blockRows {
				row := c.Data[(i+r)*c.Stride+j : (i+r)*c.Stride+j+blockCols]
				row[0], row[1], row[2] = acc[r*blockCols], acc[r*blockCols+1], acc[r*blockCols+2]
			}
		}
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
// multiply–adds, the lanes are added as (l0 + l2) + (l1 + l3), and the remaining elements
// follow (tail).
func dot(x, y []float64) float64 {
	k4 := len(x) &^ (lanes - 1)
	var acc [lanes]float64
	for k := 0; k < k4; k += lanes {
		for l := range lanes {
			acc[l] = math.FMA(x[k+l], y[k+l], acc[l])
		}
	}
	return tail((acc[0]+acc[2])+(acc[1]+acc[3]), x, y, k4)
}

// tail adds to s the products of x and y from k4 on, by fused multiply–adds.
func tail(s float64, x, y []float64, k4 int) float64 {
	for k := k4; k < len(x); k++ {
		s = math.FMA(x[k], y[k], s)
	}
	return s
}
