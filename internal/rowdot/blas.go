package rowdot

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS is gonum's BLAS with Dgemm's larger products computed by ABt, the rest (and every
// product where the assembly kernel does not run) by gonum itself. Installed with
// blas64.Use it speeds up what gonum's LAPACK builds on Dgemm: the blocked Cholesky
// factorisation (Dpotrf's panel updates are products of columns, Aᵀ·B) and so loading a
// model, whose active-set matrices are factorised afresh.
//
// Operands that are not rows of the product (Aᵀ, or B not transposed) are first copied
// transposed, k·(m+n) copies against the product's m·n·k multiply–adds; below minPacked
// rows or columns that copy does not pay and gonum computes the product, but for A·B of
// fewer than minPacked columns, which narrowProduct computes with gonum's bits.
type BLAS struct{ gonum.Implementation }

// minPacked is the smallest m and n for which Dgemm goes through ABt.
const minPacked = 16

var _ blas.Float64 = BLAS{}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C, as blas.Float64's Dgemm.
func (impl BLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	if tA == blas.NoTrans && tB == blas.NoTrans && m > 0 && n > 0 && n < minPacked &&
		alpha != 0 {
		checkGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		narrowProduct(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if !useAsm || m < minPacked || n < minPacked || k < lanes || alpha == 0 {
		impl.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// gonum's Dgemm checks the arguments; calling it on an empty product with the same
	// dimensions and strides would not check the slices' lengths, so check them here.
	checkGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
	// C = op(A)·op(B) = A'·B'ᵀ with A' = op(A) (m×k) and B' = op(B)ᵀ (n×k).
	rowsA, freeA := asRows(isTrans(tA), m, k, a, lda)
	rowsB, freeB := asRows(!isTrans(tB), n, k, b, ldb)
	defer freeA()
	defer freeB()
	if alpha == 1 && beta == 0 {
		ABt(blas64.General{Rows: m, Cols: n, Stride: ldc, Data: c}, rowsA, rowsB)
		return
	}
	tmp := getScratch(m * n)
	defer putScratch(tmp)
	ABt(blas64.General{Rows: m, Cols: n, Stride: n, Data: *tmp}, rowsA, rowsB)
	for i := range m {
		ci, ti := c[i*ldc:i*ldc+n], (*tmp)[i*n:(i+1)*n]
		if beta == 0 { // BLAS: C's old values, NaN included, are not read
			for j, v := range ti {
				ci[j] = alpha * v
			}
			continue
		}
		for j, v := range ti {
			ci[j] = alpha*v + beta*ci[j]
		}
	}
}

// asRows returns the rows×k matrix whose rows are op(x)'s: x itself (rows×k, stride ld)
// when transposed is false, else a copy of xᵀ (x is k×rows), with a function that
// returns the copy's storage.
func asRows(transposed bool, rows, k int, x []float64, ld int) (blas64.General, func()) {
	if !transposed {
		return blas64.General{Rows: rows, Cols: k, Stride: ld, Data: x}, func() {}
	}
	s := getScratch(rows * k)
	// By tiles, so that the strided writes of a tile stay in cache.
	const tile = 32
	for p0 := 0; p0 < k; p0 += tile {
		for i0 := 0; i0 < rows; i0 += tile {
			for p := p0; p < min(p0+tile, k); p++ {
				xp := x[p*ld+i0 : p*ld+min(i0+tile, rows)]
				for i, v := range xp {
					(*s)[(i0+i)*k+p] = v
				}
			}
		}
	}
	return blas64.General{Rows: rows, Cols: k, Stride: k, Data: *s}, func() { putScratch(s) }
}

// checkGemm panics, as gonum's Dgemm does, on slices too short for their dimensions.
func checkGemm(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int,
	c []float64, ldc int) {
	rowsA, colsA := m, k
	if isTrans(tA) {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if isTrans(tB) {
		rowsB, colsB = n, k
	}
	switch {
	case lda < max(1, colsA):
		panic("rowdot: bad lda")
	case ldb < max(1, colsB):
		panic("rowdot: bad ldb")
	case ldc < max(1, n):
		panic("rowdot: bad ldc")
	case len(a) < lda*(rowsA-1)+colsA:
		panic("rowdot: short A")
	case len(b) < ldb*(rowsB-1)+colsB:
		panic("rowdot: short B")
	case len(c) < ldc*(m-1)+n:
		panic("rowdot: short C")
	}
}

func isTrans(t blas.Transpose) bool { return t == blas.Trans || t == blas.ConjTrans }

var scratch = sync.Pool{New: func() any { return new([]float64) }}

func getScratch(n int) *[]float64 {
	s := scratch.Get().(*[]float64)
	if cap(*s) < n {
		*s = make([]float64, n)
	}
	*s = (*s)[:n]
	return s
}

func putScratch(s *[]float64) { scratch.Put(s) }
