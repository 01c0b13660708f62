// Package toydata generates the toy problems the figures need that package dataset does not
// provide: the IVM paper's polar ordinal toy (Fig. 4 right), interlocking classes for the
// null category model (extensions paper Fig. 5) and a 1-D sine.
package toydata

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// PolarOrdinal returns the IVM paper's second ordinal toy (Fig. 4 right), ordered
// categories in polar coordinates: category k (0 … C−1) has angle θ ~ N(0, 1) and radius
// r ~ 15 + 3(k − (C−1)/2) + N(0, 1), and the point is (r sin θ, r cos θ), so the category
// boundaries are arcs around the origin.
func PolarOrdinal(perClass, categories int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	if perClass < 1 || categories < 3 {
		return nil, nil, fmt.Errorf("%d points of %d categories: want at least 1 and 3", perClass, categories)
	}
	n := perClass * categories
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for k := 0; k < categories; k++ {
		for i := 0; i < perClass; i++ {
			row := k*perClass + i
			theta := rng.NormFloat64()
			r := 15 + dataset.ToyOrdinalSpacing*(float64(k)-float64(categories-1)/2) + rng.NormFloat64()
			x.Set(row, 0, r*math.Sin(theta))
			x.Set(row, 1, r*math.Cos(theta))
			y[row] = float64(k)
		}
	}
	return x, y, nil
}

// Interlocking returns n points of two interlocking crescents (class +1 above, −1 below,
// each an arc of radius 1 with Gaussian noise of standard deviation 0.15), each labelled
// with probability pLabel and unlabelled (NaN) otherwise; at least one point of each class
// is labelled.
func Interlocking(n int, pLabel float64, rng *rand.Rand) (*mat.Dense, []float64, error) {
	if n < 4 || !(pLabel > 0 && pLabel <= 1) {
		return nil, nil, fmt.Errorf("%d points labelled with probability %g", n, pLabel)
	}
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		t := math.Pi * rng.Float64()
		cx, cy, c := math.Cos(t), math.Sin(t)-0.25, 1.0
		if i%2 == 1 {
			cx, cy, c = 1-math.Cos(t), 0.25-math.Sin(t), -1
		}
		x.Set(i, 0, cx+0.15*rng.NormFloat64())
		x.Set(i, 1, cy+0.15*rng.NormFloat64())
		y[i] = math.NaN()
		if i < 2 || rng.Float64() < pLabel {
			y[i] = c
		}
	}
	return x, y, nil
}

// Sine1D returns n inputs uniform on [−5, 5] with targets sin(x) + N(0, 0.1²).
func Sine1D(n int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		v := -5 + 10*rng.Float64()
		x.Set(i, 0, v)
		y[i] = math.Sin(v) + 0.1*rng.NormFloat64()
	}
	return x, y, nil
}
