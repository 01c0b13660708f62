package ssmtr_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/ssmtr"
)

// Two related tasks, y = a·sin(x) with a task-specific amplitude, a few labelled rows each
// and unlabelled rows (NaN) that SSMTR's graph uses: fit, predict new rows, save and load.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []float64
	var y []float64
	var task []string
	for _, t := range []struct {
		name string
		amp  float64
	}{{"a", 1}, {"b", 1.3}} {
		for i := 0; i < 40; i++ {
			x := 6*rng.Float64() - 3
			rows = append(rows, x)
			target := t.amp*math.Sin(x) + 0.05*rng.NormFloat64()
			if i%4 != 0 { // three rows in four are unlabelled
				target = math.NaN()
			}
			y = append(y, target)
			task = append(task, t.name)
		}
	}
	x := mat.NewDense(len(y), 1, rows)
	m, err := ssmtr.Fit(x, y, task, ssmtr.Config{Method: ssmtr.SSMTR, OuterIters: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	test := mat.NewDense(2, 1, []float64{1, 1})
	preds, err := m.Predict(test, []string{"a", "b"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := ssmtr.Load(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := loaded.Predict(test, []string{"a", "b"})
	for i, p := range preds {
		fmt.Printf("task %s at x = 1: mean within 0.15 of the truth: %v, sd < 0.3: %v, "+
			"as loaded: %v\n", []string{"a", "b"}[i],
			math.Abs(p.Mean-[]float64{1, 1.3}[i]*math.Sin(1)) < 0.15, math.Sqrt(p.Var) < 0.3,
			again[i].Mean == p.Mean && again[i].Var == p.Var)
	}
	// Output:
	// task a at x = 1: mean within 0.15 of the truth: true, sd < 0.3: true, as loaded: true
	// task b at x = 1: mean within 0.15 of the truth: true, sd < 0.3: true, as loaded: true
}
