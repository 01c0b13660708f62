package ivm_test

import (
	"bytes"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
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
	model, err := ivm.FitFixed(x, y, k, noise.NewProbit(), 20, ivm.Options{})
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
	sel, err := ivm.NewSelector(x, y, k, noise.NewGaussian(0.01), ivm.Options{})
	if err != nil {
		panic(err)
	}
	for step := 0; step < 3; step++ {
		i, bits, _ := sel.Best()
		if err := sel.Include(i); err != nil {
			panic(err)
		}
		fmt.Printf("include x = %+.0f (%.2f bits); posterior variance at x = 0: %.4f\n", x.At(i, 0), bits, sel.Var()[2])
	}
	// Output:
	// include x = -2 (3.34 bits); posterior variance at x = 0: 0.8773
	// include x = +2 (3.34 bits); posterior variance at x = 0: 0.7493
	// include x = +0 (3.12 bits); posterior variance at x = 0: 0.0099
}

// Fit with its defaults, as `ivm train FILE MODEL` with no flags: the task comes from the
// labels (three integer classes: one-vs-rest), inputs are standardised and the kernel is
// learnt. Save and Load round-trip the predictor exactly.
func ExampleFit() {
	var rows [][]float64
	var y []float64
	for i := 0; i < 90; i++ {
		c := i % 3 // class c sits around (3c, 0)
		rows = append(rows, []float64{3*float64(c) + math.Sin(float64(i)), math.Cos(float64(i))})
		y = append(y, float64(10+c))
	}
	p, err := ivm.FitRows(rows, y, ivm.Config{ActiveSize: 30, Learn: ivm.LearnOptions{Iters: 2}})
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if err := p.Save(&file); err != nil {
		panic(err)
	}
	q, err := ivm.Load(&file)
	if err != nil {
		panic(err)
	}
	preds, err := q.PredictRows([][]float64{{0, 0}, {3, 0.5}, {6.2, -0.3}})
	if err != nil {
		panic(err)
	}
	fmt.Println("task", q.Task, "classes", q.Classes)
	for _, pr := range preds {
		fmt.Printf("label %g\n", pr.Label)
	}
	// Output:
	// task multiclass classes [10 11 12]
	// label 10
	// label 11
	// label 12
}
