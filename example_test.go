package ivm_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/ivmlab/ivm"
)

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
