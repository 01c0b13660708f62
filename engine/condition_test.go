package engine_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// An active-set matrix too ill-conditioned for gonum to vouch for its solve is a recorded
// warning, not a failure: the model is built, says so, and predicts finite values.
func TestIllConditionedModelIsAWarning(t *testing.T) {
	k, err := kern.Parse("rbf(gamma=1,variance=1e-20)", 1)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(2, 1, []float64{0, 30})
	m, err := engine.NewModel(k, noise.NewProbit(), x, []int{0, 1}, []float64{1, 1},
		[]float64{1, 1e20}, []float64{1, 1e20})
	if err != nil {
		t.Fatalf("ill-conditioned model refused: %v", err)
	}
	if m.Condition < 1e16 {
		t.Errorf("condition number %g recorded, want the warning's (> 1e16)", m.Condition)
	}
	mu, vs := m.Latent(mat.NewDense(1, 1, []float64{0.5}), nil, nil)
	if math.IsNaN(mu[0]) || math.IsNaN(vs[0]) || math.IsInf(mu[0], 0) {
		t.Errorf("prediction %g, %g", mu[0], vs[0])
	}
}

// The eq. 32 kernel objective must stay defined when a null-category site's precision
// has been floored near machine epsilon (1/β ≈ 10¹⁵ on the diagonal of K_II + B⁻¹, a
// condition number gonum warns about): its value must agree with the same objective
// computed in the well-conditioned form ½ ln|B⁻¹| + ½ ln|I + B^½KB^½| + ½ m̃ᵀ(I + B^½KB^½)⁻¹m̃,
// m̃ = B^½m, and its gradient with finite differences. (Before, the warning made the
// objective undefined at the parameters a selection had just used, and learning stopped.)
func TestActiveSetObjectiveWithTinySitePrecision(t *testing.T) {
	k, err := kern.Parse("rbf(gamma=0.5,variance=2)+white(variance=1e-5)", 2)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(5, 2, []float64{0, 0, 1, 0.2, -0.3, 1, 2, -1, 0.5, 0.5})
	m := []float64{0.3, -1.2, 0.8, 2.0, -0.4}
	beta := []float64{2.5, 1e-16, 0.7, 2.2e-16, 1.3}
	free := make([]float64, k.NumFree())
	k.Free(free)
	grad := make([]float64, len(free))
	f, err := engine.ActiveSetObjective(k, x, m, beta, grad)
	if err != nil || math.IsNaN(f) {
		t.Fatalf("objective %v, %v", f, err)
	}
	// The well-conditioned form.
	n := len(m)
	kd := mat.NewDense(n, n, nil)
	k.K(kd, x, nil)
	b := mat.NewSymDense(n, nil)
	mt := mat.NewVecDense(n, nil)
	want := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := math.Sqrt(beta[i]) * kd.At(i, j) * math.Sqrt(beta[j])
			if i == j {
				v++
			}
			b.SetSym(i, j, v)
		}
		mt.SetVec(i, math.Sqrt(beta[i])*m[i])
		want -= 0.5 * math.Log(beta[i])
	}
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		t.Fatal("I + B^½KB^½ not positive definite")
	}
	var sol mat.VecDense
	if err := ch.SolveVecTo(&sol, mt); err != nil {
		t.Fatal(err)
	}
	want += 0.5*ch.LogDet() + 0.5*mat.Dot(mt, &sol)
	if math.Abs(f-want) > 1e-9*math.Abs(want) {
		t.Errorf("objective %.12g, well-conditioned form %.12g", f, want)
	}
	for p := range free {
		h := 1e-5
		xp := append([]float64(nil), free...)
		xp[p] += h
		if err := k.SetFree(xp); err != nil {
			t.Fatal(err)
		}
		fp, _ := engine.ActiveSetObjective(k, x, m, beta, nil)
		xp[p] -= 2 * h
		if err := k.SetFree(xp); err != nil {
			t.Fatal(err)
		}
		fm, _ := engine.ActiveSetObjective(k, x, m, beta, nil)
		fd := (fp - fm) / (2 * h)
		if math.Abs(fd-grad[p]) > 1e-5*(1+math.Abs(fd)) {
			t.Errorf("gradient %d: analytic %.8g, finite differences %.8g", p, grad[p], fd)
		}
	}
}
