package calib

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FitLogistic recovers the map that generated the labels.
func TestFitLogistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	n := 20000
	mu, lab := make([]float64, n), make([]float64, n)
	for i := range mu {
		mu[i] = rng.NormFloat64()
		lab[i] = -1
		if rng.Float64() < 1/(1+math.Exp(-(2*mu[i]+0.5))) {
			lab[i] = 1
		}
	}
	lg, loss, err := FitLogistic(mu, lab, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lg.Slope-2) > 0.1 || math.Abs(lg.Offset-0.5) > 0.06 ||
		!(loss > 0 && loss < math.Ln2) {
		t.Errorf("fitted slope %v, offset %v, loss %v; generated with 2, 0.5",
			lg.Slope, lg.Offset, loss)
	}
	for i := range lab {
		lab[i] = -lab[i] // outputs that fall as the labels rise
	}
	if _, _, err := FitLogistic(mu, lab, 0.001); err != ErrNoLogistic {
		t.Errorf("labels reversed: %v, want ErrNoLogistic", err)
	}
}
