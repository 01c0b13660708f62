package rowdot

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack/gonum"
)

// randSPD returns a well-conditioned symmetric positive definite n×n matrix with the
// given stride (both triangles set).
func randSPD(r *rand.Rand, n, stride int) blas64.Symmetric {
	g := randGeneral(r, n, n, n)
	a := make([]float64, max(0, (n-1)*stride+n))
	for i := range n {
		for j := range n {
			a[i*stride+j] = dot(g.Data[i*n:(i+1)*n], g.Data[j*n:(j+1)*n])
		}
		a[i*stride+i] += float64(n)
	}
	return blas64.Symmetric{N: n, Stride: stride, Data: a}
}

// Cholesky agrees with gonum's Dpotrf on both triangles, across block edges and with
// strides, leaves the other triangle as documented, and refuses a matrix that is not
// positive definite.
func TestCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var buf []float64
	// 800: ABt splits its rows across goroutines
	for _, n := range []int{1, 5, cholBlock, cholBlock + 1, 97, 200, 301, 800} {
		for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
			a := randSPD(r, n, n+2)
			a.Uplo = uplo
			want := append([]float64(nil), a.Data...)
			if !(gonum.Implementation{}).Dpotrf(uplo, n, want, a.Stride) {
				t.Fatalf("n %d: gonum refused", n)
			}
			orig := append([]float64(nil), a.Data...)
			var ok bool
			if buf, ok = Cholesky(a, buf); !ok {
				t.Fatalf("n %d, %c: refused", n, uplo)
			}
			for i := range n {
				for j := range n {
					g, w, o := a.Data[i*a.Stride+j], want[i*a.Stride+j], orig[i*a.Stride+j]
					switch {
					case uplo == blas.Upper && j >= i, uplo == blas.Lower && j <= i:
						if math.Abs(g-w) > 1e-10*math.Max(1, math.Abs(w)) {
							t.Fatalf("n %d, %c: [%d][%d] = %v, gonum %v", n, uplo, i, j, g, w)
						}
					case uplo == blas.Upper: // the lower triangle holds Uᵀ
						if g != a.Data[j*a.Stride+i] {
							t.Fatalf("n %d: lower [%d][%d] = %v, not Uᵀ's %v",
								n, i, j, g, a.Data[j*a.Stride+i])
						}
					default: // the upper triangle is left alone
						if g != o {
							t.Fatalf("n %d: upper [%d][%d] changed from %v to %v", n, i, j, o, g)
						}
					}
				}
			}
		}
	}
	a := randSPD(r, 120, 120)
	a.Data[100*120+100] = -1 // no longer positive definite
	a.Uplo = blas.Upper
	if _, ok := Cholesky(a, nil); ok {
		t.Error("a matrix with a negative diagonal element was factorised")
	}
}

// On an ill-conditioned kernel matrix (rbf Gram matrix of 300 close points plus 10⁻⁸ I)
// the factor reproduces the matrix to rounding (entries within 10⁻¹⁴, or 4× gonum's error;
// measured 4.6·10⁻¹⁵ against gonum's 1.7·10⁻¹⁵).
func TestCholeskyIllConditioned(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n := 300
	x := make([]float64, n)
	for i := range x {
		x[i] = r.Float64()
	}
	a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	for i := range n {
		for j := range n {
			a.Data[i*n+j] = math.Exp(-(x[i] - x[j]) * (x[i] - x[j]) / 0.5)
		}
		a.Data[i*n+i] += 1e-8
	}
	orig := append([]float64(nil), a.Data...)
	backward := func(u []float64) float64 {
		worst := 0.0
		for i := range n {
			for j := i; j < n; j++ {
				s := 0.0
				for k := 0; k <= i; k++ {
					s += u[k*n+i] * u[k*n+j]
				}
				worst = math.Max(worst, math.Abs(s-orig[i*n+j]))
			}
		}
		return worst
	}
	want := append([]float64(nil), orig...)
	if !(gonum.Implementation{}).Dpotrf(blas.Upper, n, want, n) {
		t.Fatal("gonum refused")
	}
	if _, ok := Cholesky(a, nil); !ok {
		t.Fatal("refused")
	}
	got, ref := backward(a.Data), backward(want)
	if got > max(4*ref, 1e-14) {
		t.Errorf("backward error %g, gonum's %g", got, ref)
	}
}

func BenchmarkCholesky700(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	a := randSPD(r, 700, 700)
	a.Uplo = blas.Upper
	w := blas64.Symmetric{N: 700, Stride: 700, Uplo: blas.Upper, Data: make([]float64, len(a.Data))}
	var buf []float64
	b.Run("rowdot", func(b *testing.B) {
		for b.Loop() {
			copy(w.Data, a.Data)
			buf, _ = Cholesky(w, buf)
		}
	})
	b.Run("gonum", func(b *testing.B) {
		blas64.Use(BLAS{})
		defer blas64.Use(gonumblas.Implementation{})
		for b.Loop() {
			copy(w.Data, a.Data)
			(gonum.Implementation{}).Dpotrf(blas.Upper, 700, w.Data, 700)
		}
	})
}
