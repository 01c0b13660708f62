package rowdot

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// SolveBlock is the width of the column blocks SolveUpperRight solves at once: a multiple
// of the assembly kernel's blocks (4 rows by 3), so that no product has an edge.
const SolveBlock = 96

// SolveUpperRight overwrites z (n×d) with z·U⁻¹ for the upper triangular, non-singular d×d
// matrix u. The solve goes by blocks of columns: block J of
// the solution is (Z_J − Z_{<J}·U_{<J,J})·U_JJ⁻¹, the product being most of the work and
// computed by ABt at several times the speed of gonum's unblocked triangular solve.
// buf is scratch, grown as needed (SolveBlock·(d + n) floats) and returned for reuse.
func SolveUpperRight(z blas64.General, u blas64.Triangular, buf []float64) []float64 {
	if u.Uplo != blas.Upper || u.N != z.Cols {
		panic("rowdot: SolveUpperRight needs an upper triangular matrix of z's width")
	}
	n, d := z.Rows, z.Cols
	if need := SolveBlock * (d + n); cap(buf) < need {
		buf = make([]float64, need)
	}
	buf = buf[:cap(buf)]
	for j0 := 0; j0 < d; j0 += SolveBlock {
		w := min(SolveBlock, d-j0)
		block := blas64.General{Rows: n, Cols: w, Stride: z.Stride, Data: z.Data[j0:]}
		if j0 > 0 {
			// U_{<J,J}ᵀ, so that the product is of rows, and Z_{<J}·U_{<J,J}.
			packed, prod := buf[:w*j0], buf[SolveBlock*d:SolveBlock*d+n*w]
			for q := range w {
				for p := range j0 {
					packed[q*j0+p] = u.Data[p*u.Stride+j0+q]
				}
			}
			ABt(blas64.General{Rows: n, Cols: w, Stride: w, Data: prod},
				blas64.General{Rows: n, Cols: j0, Stride: z.Stride, Data: z.Data},
				blas64.General{Rows: w, Cols: j0, Stride: j0, Data: packed})
			for i := range n {
				row := block.Data[i*block.Stride : i*block.Stride+w]
				for q, v := range prod[i*w : (i+1)*w] {
					row[q] -= v
				}
			}
		}
		diag := blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: w, Stride: u.Stride, Data: u.Data[j0*u.Stride+j0:]}
		blas64.Trsm(blas.Right, blas.NoTrans, 1, diag, block)
	}
	return buf
}
