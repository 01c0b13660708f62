package toys

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Interlocking draws the semi-supervised toy of the IVM extensions paper §4.4: two
// interlocking class densities in 2-D (crescents of radius 1: class +1 the upper arc
// centred on (0, −0.25), class −1 the lower arc centred on (1, 0.25), each with Gaussian
// noise of standard deviation 0.15), classes alternating. It returns the inputs, the true
// labels and the observed ones: each point keeps its label with probability pLabel and is
// unlabelled (NaN) otherwise; the first two points (one per class) are always labelled, so
// both classes are seen.
func Interlocking(n int, pLabel float64, rng *rand.Rand) (x *mat.Dense, truth,
	observed []float64, err error) {
	if n < 2 || !(pLabel >= 0 && pLabel <= 1) {
		return nil, nil, nil, fmt.Errorf("toys: %d points labelled with probability %g", n, pLabel)
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

// Crescent draws the data of the extensions paper's Fig. 5 as the authors' toolbox
// generates it (its "crescent data"): four parts of part points each, every part a
// Gaussian with standard deviations 2 and 1 along axes rotated by 45°. Class +1 is the
// parts centred on (−4, −4) (long axis along (1, −1)) and (0, −4) (long axis along
// (1, 1)); class −1 the parts centred on (4, 4) (along (1, −1)) and (0, 4) (along (1, 1)):
// two V shapes that face each other. Rows are part by part. Each point keeps its label
// with probability pLabel and is unlabelled (NaN) otherwise; the first point of each
// class (rows 0 and 2·part) is always labelled, so both classes are seen.
func Crescent(part int, pLabel float64, rng *rand.Rand) (x *mat.Dense, truth, observed []float64,
	err error) {
	if part < 1 || !(pLabel >= 0 && pLabel <= 1) {
		return nil, nil, nil, fmt.Errorf("toys: crescent data of %d points per part "+
			"labelled with probability %g", part, pLabel)
	}
	c := math.Sqrt2 / 2
	centres := [4][2]float64{{-4, -4}, {0, -4}, {4, 4}, {0, 4}}
	n := 4 * part
	x = mat.NewDense(n, 2, nil)
	truth, observed = make([]float64, n), make([]float64, n)
	for p, m := range centres {
		label := 1.0
		if p >= 2 {
			label = -1
		}
		for i := 0; i < part; i++ {
			// (z₁, z₂) diag(2, 1) R with R the 45° rotation; R's transpose for the
			// second part of each class.
			a, b := 2*rng.NormFloat64(), rng.NormFloat64()
			u, v := c*(a+b), c*(b-a)
			if p%2 == 1 {
				u, v = c*(a-b), c*(a+b)
			}
			r := p*part + i
			x.Set(r, 0, m[0]+u)
			x.Set(r, 1, m[1]+v)
			truth[r] = label
			observed[r] = math.NaN()
			if i == 0 && p%2 == 0 || rng.Float64() < pLabel {
				observed[r] = label
			}
		}
	}
	return x, truth, observed, nil
}
