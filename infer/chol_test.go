package infer

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Chol agrees with gonum's mat.Cholesky on ln|B|, B⁻¹x, B⁻¹ and L, and refuses a
// matrix that is not positive definite.
func TestCholFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 37
	a := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var b mat.SymDense
	b.SymOuterK(1, a)
	for i := range n {
		b.SetSym(i, i, b.At(i, i)+1)
	}
	var ref mat.Cholesky
	if !ref.Factorize(&b) {
		t.Fatal("reference factorisation failed")
	}
	raw := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			raw[i*n+j] = b.At(i, j)
		}
	}
	var c Chol
	if !c.Factorize(blas64.Symmetric{N: n, Stride: n, Data: raw, Uplo: blas.Upper}) {
		t.Fatal("factorize refused a positive definite matrix")
	}
	if got, want := c.LogDet(), ref.LogDet(); math.Abs(got-want) > 1e-10*math.Abs(want) {
		t.Errorf("logDet %v, want %v", got, want)
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	var want mat.VecDense
	if err := ref.SolveVecTo(&want, mat.NewVecDense(n, append([]float64(nil), x...))); err != nil {
		t.Fatal(err)
	}
	c.SolveVec(x)
	for i := range x {
		if math.Abs(x[i]-want.AtVec(i)) > 1e-10*(1+math.Abs(want.AtVec(i))) {
			t.Fatalf("solveVec[%d] = %v, want %v", i, x[i], want.AtVec(i))
		}
	}
	var inv mat.SymDense
	if err := ref.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	got := mat.NewDense(n, n, nil)
	c.Inverse(got)
	var l mat.TriDense
	ref.LTo(&l)
	lo := c.Lower()
	for i := range n {
		for j := range n {
			if math.Abs(got.At(i, j)-inv.At(i, j)) > 1e-10*(1+math.Abs(inv.At(i, j))) {
				t.Fatalf("inverse[%d,%d] = %v, want %v", i, j, got.At(i, j), inv.At(i, j))
			}
			if math.Abs(lo.At(i, j)-l.At(i, j)) > 1e-12*(1+math.Abs(l.At(i, j))) {
				t.Fatalf("lower[%d,%d] = %v, want %v", i, j, lo.At(i, j), l.At(i, j))
			}
		}
	}
	bad := []float64{1, 2, 0, 1} // [[1 2] [2 1]]: indefinite
	if c.Factorize(blas64.Symmetric{N: 2, Stride: 2, Data: bad, Uplo: blas.Upper}) {
		t.Error("factorize accepted an indefinite matrix")
	}
}
