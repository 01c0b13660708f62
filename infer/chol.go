package infer

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Chol is the upper Cholesky factor U of a symmetric positive definite matrix, B = UᵀU,
// factorised by LAPACK's potrf directly, with no jitter: a matrix that is not positive definite is
// refused (Factorize reports false) and the caller decides. mat.Cholesky does the same and then
// estimates the condition number (pocon, a chain of unblocked triangular solves), which in the EP
// objective costs a large share of every factorisation for a value never read, since
// B = I + S½KS½ ⪰ I is well conditioned by construction.
type Chol struct {
	// U is the factor; its storage is the factorised matrix's.
	U blas64.Triangular
}

// Factorize factorises the upper triangle of b in place (b's storage becomes U) and
// reports whether b is positive definite.
func (c *Chol) Factorize(b blas64.Symmetric) bool {
	b.Uplo = blas.Upper
	u, ok := lapack64.Potrf(b)
	c.U = u
	return ok
}

// LogDet returns ln|B| = 2 Σ ln U_ii.
func (c *Chol) LogDet() float64 {
	s := 0.0
	for i := 0; i < c.U.N; i++ {
		s += math.Log(c.U.Data[i*c.U.Stride+i])
	}
	return 2 * s
}

// SolveVec overwrites x with B⁻¹x.
func (c *Chol) SolveVec(x []float64) {
	v := blas64.Vector{N: len(x), Inc: 1, Data: x}
	blas64.Trsv(blas.Trans, c.U, v)
	blas64.Trsv(blas.NoTrans, c.U, v)
}

// Inverse writes B⁻¹ into dst (n×n, full storage; both triangles set).
func (c *Chol) Inverse(dst *mat.Dense) {
	n := c.U.N
	raw := dst.RawMatrix()
	for i := 0; i < n; i++ {
		copy(raw.Data[i*raw.Stride+i:i*raw.Stride+n], c.U.Data[i*c.U.Stride+i:i*c.U.Stride+n])
	}
	inv := blas64.Triangular{N: n, Stride: raw.Stride, Data: raw.Data, Uplo: blas.Upper,
		Diag: blas.NonUnit}
	lapack64.Potri(inv) // U⁻¹U⁻ᵀ into the upper triangle
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
}

// Lower returns L = Uᵀ as a new lower triangular matrix (B = LLᵀ).
func (c *Chol) Lower() *mat.TriDense {
	n := c.U.N
	l := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			l.SetTri(j, i, c.U.Data[i*c.U.Stride+j])
		}
	}
	return l
}
