package infer

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussSites is a Gaussian likelihood y_i ~ N(f_i, s²) on every latent value, whose
// Laplace mode is the exact GP posterior mean K(K + s²I)⁻¹y.
type gaussSites struct {
	ell      float64
	grad, wf []float64
	cols     []SparseCol
}

func (g *gaussSites) LogLik() float64 { return g.ell }
func (g *gaussSites) Grad() []float64 { return g.grad }
func (g *gaussSites) WF() []float64   { return g.wf }
func (g *gaussSites) V() []SparseCol  { return g.cols }

func gaussian(y []float64, s2 float64) func(f []float64) (Sites, error) {
	return func(f []float64) (Sites, error) {
		g := &gaussSites{grad: make([]float64, len(f)), wf: make([]float64, len(f))}
		for i := range f {
			d := y[i] - f[i]
			g.ell -= 0.5 * d * d / s2
			g.grad[i] = d / s2
			g.wf[i] = f[i] / s2
			g.cols = append(g.cols, SparseCol{Idx: []int{i}, Val: []float64{1 / math.Sqrt(s2)}})
		}
		return g, nil
	}
}

func rbfMatrix(x []float64) *mat.Dense {
	n := len(x)
	k := mat.NewDense(n, n, nil)
	for i := range x {
		for j := range x {
			d := x[i] - x[j]
			k.Set(i, j, math.Exp(-0.5*d*d))
		}
	}
	return k
}

func TestLaplaceModeGaussianIsExact(t *testing.T) {
	x := []float64{-2, -1, -0.5, 0, 0.7, 1.5, 2.5}
	y := []float64{0.3, -0.2, 0.5, 1, 0.1, -0.7, 0.4}
	const s2 = 0.1
	k := rbfMatrix(x)
	_, f, st, err := LaplaceMode(k, gaussian(y, s2), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(x)
	c := mat.NewDense(n, n, nil)
	c.Copy(k)
	for i := 0; i < n; i++ {
		c.Set(i, i, c.At(i, i)+s2)
	}
	var alpha mat.VecDense
	if err := alpha.SolveVec(c, mat.NewVecDense(n, y)); err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(k, &alpha)
	for i := range f {
		if math.Abs(f[i]-want.AtVec(i)) > 1e-9 {
			t.Errorf("f[%d] = %v, exact posterior mean %v", i, f[i], want.AtVec(i))
		}
	}
	if len(st.V()) != n {
		t.Errorf("sites at the mode have %d columns", len(st.V()))
	}
	// A warm start at the mode converges at once to the same point.
	a, _, _, _ := LaplaceMode(k, gaussian(y, s2), nil)
	_, f2, _, err := LaplaceMode(k, gaussian(y, s2), a)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f {
		if math.Abs(f2[i]-f[i]) > 1e-12 {
			t.Errorf("warm start: f[%d] = %v, cold %v", i, f2[i], f[i])
		}
	}
}

// A likelihood whose domain excludes every point reports its error, and Solved passes
// gonum's ill-conditioning warning only.
func TestLaplaceModeErrors(t *testing.T) {
	bad := errors.New("outside")
	_, _, _, err := LaplaceMode(rbfMatrix([]float64{0, 1}),
		func([]float64) (Sites, error) { return nil, bad }, nil)
	if !errors.Is(err, bad) {
		t.Errorf("error %v, want the likelihood's", err)
	}
	if Solved(mat.Condition(1e17)) != nil {
		t.Error("mat.Condition is a warning, not an error")
	}
	if Solved(bad) != bad {
		t.Error("another error is passed on")
	}
}
