package engine_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// A binary classifier with a fixed kernel on a 1-D problem: points left of 0 are class −1,
// right of it +1.
func ExampleFitFixed() {
	const n = 200
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		v := float64(i)/20 - 5
		x.Set(i, 0, v)
		y[i] = math.Copysign(1, v)
	}
	k, err := kern.Parse("rbf(gamma=1,variance=1)+bias+white", 1)
	if err != nil {
		panic(err)
	}
	model, err := engine.FitFixed(x, y, k, noise.NewProbit(), 20, engine.Options{})
	if err != nil {
		panic(err)
	}
	test := mat.NewDense(3, 1, []float64{-2, 0.05, 2})
	for i, p := range model.Predict(test) {
		fmt.Printf("x = %5.2f  label %+.0f  p(y=+1) = %.3f\n", test.At(i, 0), p.Label, p.Prob[1])
	}
	// Output:
	// x = -2.00  label -1  p(y=+1) = 0.067
	// x =  0.05  label +1  p(y=+1) = 0.623
	// x =  2.00  label +1  p(y=+1) = 0.932
}

// Driving Algorithm 1 step by step: the selector reports the most informative point, its
// entropy reduction, and the posterior of every training point after each inclusion.
func ExampleSelector() {
	x := mat.NewDense(5, 1, []float64{-2, -1, 0, 1, 2})
	y := []float64{-1.9, -1.1, 0.1, 0.9, 2.1}
	k, _ := kern.Parse("rbf(gamma=0.5,variance=1)+white(variance=0.01)", 1)
	sel, err := engine.NewSelector(x, y, k, noise.NewGaussian(0.01), engine.Options{})
	if err != nil {
		panic(err)
	}
	for step := 0; step < 3; step++ {
		i, bits, _ := sel.Best()
		if err := sel.Include(i); err != nil {
			panic(err)
		}
		fmt.Printf("include x = %+.0f (%.2f bits); posterior variance at x = 0: %.4f\n",
			x.At(i, 0), bits, sel.Var()[2])
	}
	// Output:
	// include x = -2 (3.34 bits); posterior variance at x = 0: 0.8773
	// include x = +2 (3.34 bits); posterior variance at x = 0: 0.7493
	// include x = +0 (3.12 bits); posterior variance at x = 0: 0.0099
}
