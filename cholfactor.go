package ivm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// cholFactor is the upper Cholesky factor U of a symmetric positive definite matrix,
// B = UᵀU, factorised by LAPACK's potrf directly. mat.Cholesky does the same and then
// estimates the condition number (pocon, a chain of unblocked triangular solves): in the
// EP objective that estimate was 40 % of every factorisation (CPU profile of the
// multi-task regression experiment) and its value was never read, since B = I + S½KS½ ⪰ I
// is well conditioned by construction.
type cholFactor struct {
	u blas64.Triangular
}

// factorize factorises the upper triangle of b in place (b's storage becomes U) and
// reports whether b is positive definite.
func (c *cholFactor) factorize(b blas64.Symmetric) bool {
	b.Uplo = blas.Upper
	u, ok := lapack64.Potrf(b)
	c.u = u
	return ok
}

// logDet returns ln|B| = 2 Σ ln U_ii.
func (c *cholFactor) logDet() float64 {
	s := 0.0
	for i := 0; i < c.u.N; i++ {
		s += math.Log(c.u.Data[i*c.u.Stride+i])
	}
	return 2 * s
}

// solveVec overwrites x with B⁻¹x.
func (c *cholFactor) solveVec(x []float64) {
	v := blas64.Vector{N: len(x), Inc: 1, Data: x}
	blas64.Trsv(blas.Trans, c.u, v)
	blas64.Trsv(blas.NoTrans, c.u, v)
}

// inverse writes B⁻¹ into dst (n×n, full storage; both triangles set).
func (c *cholFactor) inverse(dst *mat.Dense) {
	n := c.u.N
	raw := dst.RawMatrix()
	for i := 0; i < n; i++ {
		copy(raw.Data[i*raw.Stride+i:i*raw.Stride+n], c.u.Data[i*c.u.Stride+i:i*c.u.Stride+n])
	}
	inv := blas64.Triangular{N: n, Stride: raw.Stride, Data: raw.Data, Uplo: blas.Upper, Diag: blas.NonUnit}
	lapack64.Potri(inv) // U⁻¹U⁻ᵀ into the upper triangle
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
}

// lower returns L = Uᵀ as a new lower triangular matrix (B = LLᵀ).
func (c *cholFactor) lower() *mat.TriDense {
	n := c.u.N
	l := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			l.SetTri(j, i, c.u.Data[i*c.u.Stride+j])
		}
	}
	return l
}
