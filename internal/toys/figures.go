package toys

// Toy problems only the figures use: the IVM paper's polar ordinal toy (Fig. 4 right) and a
// 1-D sine. The null category model's interlocking classes are Interlocking.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// PolarOrdinal returns the IVM paper's second ordinal toy (Fig. 4 right), ordered
// categories in polar coordinates: category k (0 … C−1) has angle θ ~ N(0, 1) and radius
// r ~ 15 + 3(k − (C−1)/2) + N(0, 1), and the point is (r sin θ, r cos θ), so the category
// boundaries are arcs around the origin.
func PolarOrdinal(perClass, categories int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	if perClass < 1 || categories < 3 {
		return nil, nil, fmt.Errorf("%d points of %d categories: want at least 1 and 3",
			perClass, categories)
	}
	n := perClass * categories
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for k := 0; k < categories; k++ {
		for i := 0; i < perClass; i++ {
			row := k*perClass + i
			theta := rng.NormFloat64()
			r := 15 + OrdinalSpacing*(float64(k)-float64(categories-1)/2) + rng.NormFloat64()
			x.Set(row, 0, r*math.Sin(theta))
			x.Set(row, 1, r*math.Cos(theta))
			y[row] = float64(k)
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
