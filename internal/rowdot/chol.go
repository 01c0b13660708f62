package rowdot

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// cholBlock is the width of the column blocks Cholesky factorises at once.
const cholBlock = 24

// Cholesky factorises the symmetric positive definite a in place, as LAPACK's Dpotrf with a's own
// triangle: a = UᵀU with U upper triangular where a.Uplo is blas.Upper (only the upper triangle
// is read; the strictly lower triangle is used as scratch and left holding Uᵀ), a = LLᵀ with L
// lower triangular where it is blas.Lower (the upper triangle is left alone). It reports false,
// leaving a's contents undefined, where a is not positive definite. buf is scratch, grown as needed
// and returned for reuse.
//
// The factor is built in the lower triangle a block of columns at a time (left-looking): block J is
// A_{≥J,J} − L_{≥J,<J}·L_{J,<J}ᵀ, a product of rows that ABt computes at several times the
// speed of gonum's blocked factorisation, whose updates and triangular solves go through BLAS calls
// on columns; then the diagonal block's own factor and a triangular solve (SolveUpperRight) for the
// rows below it.
func Cholesky(a blas64.Symmetric, buf []float64) ([]float64, bool) {
	n, s := a.N, a.Stride
	d := a.Data
	if a.Uplo == blas.Upper {
		for i := range n {
			for j := i + 1; j < n; j++ {
				d[j*s+i] = d[i*s+j]
			}
		}
	}
	if need := n*cholBlock + cholBlock*cholBlock + SolveBlock*(n+cholBlock); cap(buf) < need {
		buf = make([]float64, need)
	}
	buf = buf[:cap(buf)]
	prod, diagT, solveBuf := buf[:n*cholBlock], buf[n*cholBlock:n*cholBlock+cholBlock*cholBlock],
		buf[n*cholBlock+cholBlock*cholBlock:]
	for k0 := 0; k0 < n; k0 += cholBlock {
		b := min(cholBlock, n-k0)
		rest := n - k0
		if k0 > 0 {
			ABt(blas64.General{Rows: rest, Cols: b, Stride: b, Data: prod},
				blas64.General{Rows: rest, Cols: k0, Stride: s, Data: d[k0*s:]},
				blas64.General{Rows: b, Cols: k0, Stride: s, Data: d[k0*s:]})
			for i := range rest {
				w := min(b, i+1) // the diagonal block's lower triangle only
				row := d[(k0+i)*s+k0 : (k0+i)*s+k0+w]
				for j, v := range prod[i*b : i*b+w] {
					row[j] -= v
				}
			}
		}
		if !cholSmall(d[k0*s+k0:], s, b) {
			return buf, false
		}
		if rest > b {
			for i := range b { // L_JJᵀ, upper
				for j := range b {
					diagT[i*b+j] = d[(k0+j)*s+k0+i]
				}
			}
			below := blas64.General{Rows: rest - b, Cols: b, Stride: s, Data: d[(k0+b)*s+k0:]}
			u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: b, Stride: b,
				Data: diagT}
			solveBuf = SolveUpperRight(below, u, solveBuf)
		}
	}
	if a.Uplo == blas.Upper {
		for i := range n {
			for j := i + 1; j < n; j++ {
				d[i*s+j] = d[j*s+i]
			}
		}
	}
	return buf, true
}

// cholSmall factorises the b×b block at d (stride s) in place as LLᵀ, lower triangle, by
// rows; false where it is not positive definite.
func cholSmall(d []float64, s, b int) bool {
	for j := range b {
		rj := d[j*s : j*s+j]
		v := d[j*s+j] - dot(rj, rj)
		if !(v > 0) || math.IsInf(v, 0) {
			return false
		}
		ljj := math.Sqrt(v)
		d[j*s+j] = ljj
		for i := j + 1; i < b; i++ {
			d[i*s+j] = (d[i*s+j] - dot(d[i*s:i*s+j], rj)) / ljj
		}
	}
	return true
}
