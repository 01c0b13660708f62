package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// ToyInterlocking draws the semi-supervised toy of the IVM extensions paper §4.4: two
// interlocking class densities in 2-D (crescents of radius 1: class +1 the upper arc
// centred on (0, −0.25), class −1 the lower arc centred on (1, 0.25), each with Gaussian
// noise of standard deviation 0.15), classes alternating. It returns the inputs, the true
// labels and the observed ones: each point keeps its label with probability pLabel and is
// unlabelled (NaN) otherwise; the first two points (one per class) are always labelled, so
// both classes are seen.
func ToyInterlocking(n int, pLabel float64, rng *rand.Rand) (x *mat.Dense, truth, observed []float64, err error) {
	if n < 2 || !(pLabel >= 0 && pLabel <= 1) {
		return nil, nil, nil, fmt.Errorf("dataset: %d points labelled with probability %g", n, pLabel)
	}
	x = mat.NewDense(n, 2, nil)
	truth, observed = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		t := math.Pi * rng.Float64()
		cx, cy, c := math.Cos(t), math.Sin(t)-0.25, 1.0
		if i%2 == 1 {
			cx, cy, c = 1-math.Cos(t), 0.25-math.Sin(t), -1
		}
		x.Set(i, 0, cx+0.15*rng.NormFloat64())
		x.Set(i, 1, cy+0.15*rng.NormFloat64())
		truth[i] = c
		observed[i] = math.NaN()
		if i < 2 || rng.Float64() < pLabel {
			observed[i] = c
		}
	}
	return x, truth, observed, nil
}
