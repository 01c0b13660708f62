package ivm_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
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
	m, err := ivm.NewModel(k, noise.NewProbit(), x, []int{0, 1}, []float64{1, 1}, []float64{1, 1e20}, []float64{1, 1e20})
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
