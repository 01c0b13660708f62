package rowdot

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// TestBLASDgemm compares BLAS.Dgemm with gonum's on every transposition, scaling and
// stride, including products small enough to be left to gonum.
func TestBLASDgemm(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	trans := []blas.Transpose{blas.NoTrans, blas.Trans}
	for _, sh := range []struct{ m, n, k int }{{5, 7, 3}, {17, 16, 4}, {40, 33, 65},
		{70, 19, 130}} {
		for _, tA := range trans {
			for _, tB := range trans {
				for _, ab := range [][2]float64{{1, 0}, {-1, 1}, {0.5, -2}, {2, 0}} {
					rowsA, colsA := sh.m, sh.k
					if tA == blas.Trans {
						rowsA, colsA = sh.k, sh.m
					}
					rowsB, colsB := sh.k, sh.n
					if tB == blas.Trans {
						rowsB, colsB = sh.n, sh.k
					}
					a := randGeneral(r, rowsA, colsA, colsA+3)
					b := randGeneral(r, rowsB, colsB, colsB+1)
					c := randGeneral(r, sh.m, sh.n, sh.n+2)
					if ab[1] == 0 {
						for i := range c.Data {
							c.Data[i] = math.NaN() // beta = 0: C is not read
						}
					}
					want := blas64.General{Rows: c.Rows, Cols: c.Cols, Stride: c.Stride,
						Data: append([]float64(nil), c.Data...)}
					gonum.Implementation{}.Dgemm(tA, tB, sh.m, sh.n, sh.k, ab[0], a.Data, a.Stride,
						b.Data, b.Stride, ab[1], want.Data, want.Stride)
					BLAS{}.Dgemm(tA, tB, sh.m, sh.n, sh.k, ab[0], a.Data, a.Stride,
						b.Data, b.Stride, ab[1], c.Data, c.Stride)
					for i := range sh.m {
						for j := range sh.n {
							got, w := c.Data[i*c.Stride+j], want.Data[i*want.Stride+j]
							if !(math.Abs(got-w) <= 1e-12*float64(sh.k)*math.Max(1, math.Abs(w))) {
								t.Fatalf("%v %v %v alpha, beta %v: c[%d][%d] = %v, gonum %v",
									sh, tA, tB, ab, i, j, got, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestBLASDgemmNarrow checks the products of few columns (a model's weights of a class or
// ten), which BLAS sums in gonum's order: the same bits as gonum's Dgemm, with zeros in A,
// every scaling and, at 3 000 rows, the rows shared among the cores.
func TestBLASDgemmNarrow(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, sh := range []struct{ m, n, k int }{{1, 1, 1}, {7, 3, 50}, {300, 15, 9},
		{3000, 1, 3000}, {3000, 10, 300}} {
		for _, ab := range [][2]float64{{1, 0}, {-1, 1}, {0.5, -2}, {3, 0}} {
			a := randGeneral(r, sh.m, sh.k, sh.k+2)
			for i := range a.Data {
				if r.IntN(5) == 0 {
					a.Data[i] = 0
				}
			}
			b := randGeneral(r, sh.k, sh.n, sh.n+1)
			c := randGeneral(r, sh.m, sh.n, sh.n+3)
			want := append([]float64(nil), c.Data...)
			gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, sh.m, sh.n, sh.k, ab[0],
				a.Data, a.Stride, b.Data, b.Stride, ab[1], want, c.Stride)
			BLAS{}.Dgemm(blas.NoTrans, blas.NoTrans, sh.m, sh.n, sh.k, ab[0], a.Data, a.Stride,
				b.Data, b.Stride, ab[1], c.Data, c.Stride)
			for i, w := range want {
				if c.Data[i] != w && !(math.IsNaN(w) && math.IsNaN(c.Data[i])) {
					t.Fatalf("%v alpha, beta %v: element %d = %v, gonum %v", sh, ab, i,
						c.Data[i], w)
				}
			}
		}
	}
}

// TestBLASDgemmShortSlice checks that a B slice too short for its dimensions panics, as
// gonum's Dgemm does (and does where the assembly does not run).
func TestBLASDgemmShortSlice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a B slice shorter than its dimensions")
		}
	}()
	a, b, c := make([]float64, 32*32), make([]float64, 32*31), make([]float64, 32*32)
	BLAS{}.Dgemm(blas.NoTrans, blas.Trans, 32, 32, 32, 1, a, 32, b, 32, 0, c, 32)
}

// TestBLASCholesky factorises through gonum's LAPACK with BLAS installed, the use it is
// for, and checks the factor against gonum's own.
func TestBLASCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n = 300
	x := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			x.Set(i, j, r.NormFloat64())
		}
	}
	var s mat.SymDense
	s.SymOuterK(1, x)
	for i := range n {
		s.SetSym(i, i, s.At(i, i)+n)
	}
	var want, got mat.Cholesky
	if !want.Factorize(&s) {
		t.Fatal("gonum could not factorise")
	}
	defer blas64.Use(blas64.Implementation())
	blas64.Use(BLAS{})
	if !got.Factorize(&s) {
		t.Fatal("could not factorise with BLAS installed")
	}
	var uw, ug mat.TriDense
	want.UTo(&uw)
	got.UTo(&ug)
	if !mat.EqualApprox(&uw, &ug, 1e-10) {
		t.Error("factor differs from gonum's own")
	}
}
