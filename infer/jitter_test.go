package infer

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Jitter is a reported fallback: none for a positive definite matrix, the smallest that
// works (10⁻⁶ of the mean diagonal, ×10 per retry) for a singular one, and an error — not a
// silent result — for a matrix no jitter within the limit can repair.
func TestFactorizeJitter(t *testing.T) {
	var c mat.Cholesky
	pd := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	if j, err := FactorizeJitter(&c, pd, "A"); err != nil || j != 0 {
		t.Errorf("positive definite: jitter %g, error %v; want 0, nil", j, err)
	}
	singular := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	j, err := FactorizeJitter(&c, singular, "A")
	if err != nil || !(j > 0) || j > 1e-5 {
		t.Errorf("singular: jitter %g, error %v; want a small positive jitter", j, err)
	}
	if d := singular.At(0, 0); d != 1+j {
		t.Errorf("singular: diagonal %g after factorising, want 1 + jitter = %g", d, 1+j)
	}
	indefinite := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	if _, err := FactorizeJitter(&c, indefinite, "A"); err == nil ||
		!strings.Contains(err.Error(), "A is not positive definite") {
		t.Errorf("indefinite: error %v, want one naming A", err)
	}
}
