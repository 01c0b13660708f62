package projected_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/projected"
)

// Fit a projected model of two classes, one on each side of x₀ = 0, through 20 centres,
// and ask it for the class scores of a new row.
func ExampleFit() {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200
	x := mat.NewDense(n, 2, nil)
	cls := make([]int, n)
	for i := range n {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		if x.At(i, 0) > 0 {
			cls[i] = 1
		}
	}
	t, err := projected.ClassTargets(cls, 2)
	if err != nil {
		panic(err)
	}
	// Inputs as they are, the search starting from γ = 1/2 (two inputs of variance 1).
	res, err := projected.Fit(x, t, []projected.Scaling{{StartGamma: 0.5}},
		projected.Options{Centres: 20}, nil)
	if err != nil {
		panic(err)
	}
	m, _ := res.Model.Centres.Dims()
	z := res.Model.Scores(res.Model.Latents(mat.NewDense(1, 2, []float64{2, 0})).RawRowView(0))
	fmt.Println(m, "centres; beats the constant predictor:", res.Baseline.Beaten())
	fmt.Println("class 1 scores higher at x₀ = 2:", z[1] > z[0])
	// Output:
	// 20 centres; beats the constant predictor: true
	// class 1 scores higher at x₀ = 2: true
}
