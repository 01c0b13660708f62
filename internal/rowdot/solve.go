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
		diag := blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: w, Stride: u.Stride,
			Data: u.Data[j0*u.Stride+j0:]}
		solveDiag(block, diag, buf[:SolveBlock*d], buf[SolveBlock*d:SolveBlock*d+n*w])
	}
	return buf
}

// diagBase is the widest diagonal block solveDiag solves by substitution (solveSmall).
const diagBase = 12

// solveSmall overwrites z with z·U⁻¹ for U of at most diagBase columns: U's inverse by
// substitution on its own columns, then z·U⁻¹ as a product of rows (ABt) in prod. At this
// width substitution along each of z's rows is a loop of a dozen steps per row, several
// times slower than the product even with twice the multiply-adds; the small inverse
// keeps the factorisation's backward error at rounding (TestCholeskyIllConditioned).
func solveSmall(z blas64.General, u blas64.Triangular, prod []float64) {
	w := u.N
	// inv holds (U⁻¹)ᵀ, lower triangular: row q is column q of U⁻¹, the solution of
	// U·x = e_q, whose entries below q are 0.
	var inv [diagBase * diagBase]float64
	for q := range w {
		x := inv[q*w : (q+1)*w]
		for p := q; p >= 0; p-- {
			s := 0.0
			if p == q {
				s = 1
			}
			for r := p + 1; r <= q; r++ {
				s -= u.Data[p*u.Stride+r] * x[r]
			}
			if u.Diag != blas.Unit {
				s /= u.Data[p*u.Stride+p]
			}
			x[p] = s
		}
	}
	n := z.Rows
	ABt(blas64.General{Rows: n, Cols: w, Stride: w, Data: prod}, z,
		blas64.General{Rows: w, Cols: w, Stride: w, Data: inv[:w*w]})
	for i := range n {
		copy(z.Data[i*z.Stride:i*z.Stride+w], prod[i*w:(i+1)*w])
	}
}

// solveDiag overwrites z (n×w) with z·U⁻¹ for a diagonal block U of at most SolveBlock
// columns, halving it down to diagBase columns: gonum's solve, a vector update per row and
// column, costs n·w² and runs many times slower than ABt (it was most of SolveUpperRight's
// time), while each half's update from the other, Z₁·U₁₂, is a product.
// packed (w²/4 floats) and prod (n·w/2) are scratch.
func solveDiag(z blas64.General, u blas64.Triangular, packed, prod []float64) {
	w := u.N
	if w <= diagBase {
		solveSmall(z, u, prod)
		return
	}
	h := (w/2 + diagBase - 1) / diagBase * diagBase
	n, rest := z.Rows, w-h
	left := blas64.General{Rows: n, Cols: h, Stride: z.Stride, Data: z.Data}
	right := blas64.General{Rows: n, Cols: rest, Stride: z.Stride, Data: z.Data[h:]}
	solveDiag(left, blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: h, Stride: u.Stride,
		Data: u.Data}, packed, prod)
	for q := range rest { // U₁₂ᵀ, so that the product is of rows
		for p := range h {
			packed[q*h+p] = u.Data[p*u.Stride+h+q]
		}
	}
	ABt(blas64.General{Rows: n, Cols: rest, Stride: rest, Data: prod}, left,
		blas64.General{Rows: rest, Cols: h, Stride: h, Data: packed})
	for i := range n {
		row := right.Data[i*right.Stride : i*right.Stride+rest]
		for q, v := range prod[i*rest : (i+1)*rest] {
			row[q] -= v
		}
	}
	solveDiag(right, blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: rest, Stride: u.Stride,
		Data: u.Data[h*u.Stride+h:]}, packed, prod)
}
