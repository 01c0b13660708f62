package multitask_test

import (
	"bytes"
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/multitask"
)

// Three related regression tasks, sin(x) shifted per task: Fit learns one kernel for all,
// Predict takes each row's task, and the model saved and loaded predicts the same.
func Example() {
	var rows []float64
	var y []float64
	var task []string
	for i := 0; i < 60; i++ {
		x := -3 + 6*float64(i)/59
		t := i % 3
		rows = append(rows, x)
		y = append(y, math.Sin(x)+0.5*float64(t))
		task = append(task, fmt.Sprintf("task%d", t))
	}
	x := mat.NewDense(60, 1, rows)
	m, err := multitask.Fit(x, y, task,
		multitask.Config{Kernel: "rbf+bias+white(variance=0.01)", ActiveSize: 30, Iters: 2})
	if err != nil {
		log.Fatal(err)
	}
	test := mat.NewDense(2, 1, []float64{0.5, 0.5})
	preds, err := m.Predict(test, []string{"task0", "task2"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d tasks, %d active points; at x = 0.5: %.1f and %.1f\n",
		len(m.Tasks), m.Size(), preds[0].Mean, preds[1].Mean)

	var file bytes.Buffer
	if err := m.Save(&file); err != nil {
		log.Fatal(err)
	}
	back, err := multitask.Load(&file)
	if err != nil {
		log.Fatal(err)
	}
	again, err := back.Predict(test, []string{"task0", "task2"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same predictions after Save and Load:",
		again[0].Mean == preds[0].Mean && again[1].Var == preds[1].Var)
	// Output:
	// 3 tasks, 30 active points; at x = 0.5: 0.5 and 1.5
	// same predictions after Save and Load: true
}
