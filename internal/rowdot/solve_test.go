package rowdot

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// SolveUpperRight agrees with gonum's triangular solve across several column blocks, the
// last one partial, with strided operands; and buf is reused when large enough.
func TestSolveUpperRight(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][2]int{{1, 1}, {7, 96}, {50, 97}, {130, 250}} {
		n, d := shape[0], shape[1]
		u := randGeneral(r, d, d, d+3)
		for i := 0; i < d; i++ {
			u.Data[i*u.Stride+i] = 2 + r.Float64() // well conditioned
			for j := 0; j < i; j++ {
				u.Data[i*u.Stride+j] = math.NaN() // the lower triangle must not be read
			}
		}
		for i := 0; i < d; i++ {
			for j := i + 1; j < d; j++ {
				u.Data[i*u.Stride+j] /= float64(d)
			}
		}
		tri := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: u.Stride,
			Data: u.Data}
		z := randGeneral(r, n, d, d+2)
		want := blas64.General{Rows: n, Cols: d, Stride: z.Stride,
			Data: append([]float64(nil), z.Data...)}
		gonum.Implementation{}.Dtrsm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, n, d, 1,
			u.Data, u.Stride, want.Data, want.Stride)
		buf := SolveUpperRight(z, tri, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				g, w := z.Data[i*z.Stride+j], want.Data[i*want.Stride+j]
				if math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
					t.Fatalf("n %d, d %d: z[%d][%d] = %v, gonum %v", n, d, i, j, g, w)
				}
			}
		}
		if again := SolveUpperRight(z, tri, buf); &again[0] != &buf[0] {
			t.Errorf("n %d, d %d: a large enough buf was not reused", n, d)
		}
	}
}
