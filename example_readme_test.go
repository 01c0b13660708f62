package ivm_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/ivmlab/ivm"
)

// The Go API as README.md shows it: fit with the zero Config (what `ivm train` does with no
// flags), save, load and predict. README.md quotes this function's body; keep the two equal.
func Example_readme() {
	// 200 rows of two inputs: label 1 scattered around (1, 1), label -1 around (-1, -1).
	r := rand.New(rand.NewPCG(1, 2))
	var rows [][]float64
	var y []float64
	for i := range 200 {
		c := float64(2*(i%2) - 1) // -1 or 1
		rows = append(rows, []float64{c + r.NormFloat64(), c + r.NormFloat64()})
		y = append(y, c)
	}
	p, err := ivm.FitRows(rows, y, ivm.Config{}) // task, scaling and kernel are chosen
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer // a model file: versioned JSON
	if err := p.Save(&file); err != nil {
		panic(err)
	}
	q, err := ivm.Load(&file) // predicts exactly as p does
	if err != nil {
		panic(err)
	}
	preds, err := q.PredictRows([][]float64{{-2, -2}, {0, 0}, {2, 2}})
	if err != nil {
		panic(err)
	}
	fmt.Println("task", q.Task, "classes", q.Classes)
	for _, pr := range preds { // Prob[k] is the probability of Classes[k]
		fmt.Printf("label %g, p(1) %.2f\n", pr.Label, pr.Prob[1])
	}
	// Output:
	// task binary classes [-1 1]
	// label -1, p(1) 0.00
	// label -1, p(1) 0.46
	// label 1, p(1) 1.00
}
