package ivm_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
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
	p, err := ivm.FitRows(rows, y, ivm.Config{ActiveSize: 30, Learn: engine.LearnOptions{Iters: 2}})
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

// saveLoad writes p to a model file and reads it back, as `ivm train` and `ivm predict` do,
// and reports whether the loaded predictor predicts rows bit for bit as p does.
func saveLoad(p *ivm.Predictor, rows [][]float64) (*ivm.Predictor, bool) {
	var file bytes.Buffer
	if err := p.Save(&file); err != nil {
		panic(err)
	}
	q, err := ivm.Load(&file)
	if err != nil {
		panic(err)
	}
	a, err := p.PredictRows(rows)
	if err != nil {
		panic(err)
	}
	b, err := q.PredictRows(rows)
	if err != nil {
		panic(err)
	}
	same := true
	for i := range a {
		same = same && math.Float64bits(a[i].Label) == math.Float64bits(b[i].Label) &&
			sameBits(a[i].Prob, b[i].Prob) &&
			sameBits([]float64{a[i].Mean, a[i].Var}, []float64{b[i].Mean, b[i].Var}) &&
			sameBits(a[i].Latent, b[i].Latent) && sameBits(a[i].LatentVar, b[i].LatentVar)
	}
	return q, same
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// Regression: targets that are not integers make the task regression (Gaussian noise). A
// prediction's Label is the predictive mean and Var the predictive variance of y.
func ExampleFit_regression() {
	var rows [][]float64
	var y []float64
	for i := 0; i < 80; i++ {
		v := -3 + 6*float64(i)/79
		rows = append(rows, []float64{v})
		y = append(y, math.Sin(v)+0.05*math.Cos(7*float64(i))) // a deterministic "noise"
	}
	p, err := ivm.FitRows(rows, y, ivm.Config{ActiveSize: 40})
	if err != nil {
		panic(err)
	}
	test := [][]float64{{-1.5}, {0.5}, {2}}
	q, same := saveLoad(p, test)
	preds, err := q.PredictRows(test)
	if err != nil {
		panic(err)
	}
	fmt.Println("task", q.Task, "classes", q.Classes, "identical after Load:", same)
	for i, pr := range preds {
		fmt.Printf("x %4.1f: mean %.1f (sin %.1f), sd below 0.3: %v\n",
			test[i][0], pr.Label, math.Sin(test[i][0]), math.Sqrt(pr.Var) < 0.3)
	}
	// Output:
	// task regression classes [] identical after Load: true
	// x -1.5: mean -1.0 (sin -1.0), sd below 0.3: true
	// x  0.5: mean 0.5 (sin 0.5), sd below 0.3: true
	// x  2.0: mean 0.9 (sin 0.9), sd below 0.3: true
}

// Ordinal regression: ordered categories (here 1 < 2 < 3 along the input) with the ordered
// categorical noise model. Task must be given: integer targets alone read as classes.
// Prob holds one probability per category.
func ExampleFit_ordinal() {
	var rows [][]float64
	var y []float64
	for i := 0; i < 90; i++ {
		v := -3 + 6*float64(i)/89
		rows = append(rows, []float64{v, math.Sin(float64(i))})
		switch {
		case v < -1:
			y = append(y, 1)
		case v < 1:
			y = append(y, 2)
		default:
			y = append(y, 3)
		}
	}
	p, err := ivm.FitRows(rows, y, ivm.Config{Task: ivm.Ordinal, ActiveSize: 40,
		Learn: engine.LearnOptions{Iters: 2}})
	if err != nil {
		panic(err)
	}
	test := [][]float64{{-2.5, 0}, {0, 0}, {2.5, 0}}
	q, same := saveLoad(p, test)
	preds, err := q.PredictRows(test)
	if err != nil {
		panic(err)
	}
	fmt.Println("task", q.Task, "classes", q.Classes, "identical after Load:", same)
	for i, pr := range preds {
		fmt.Printf("x %4.1f: category %g, %d probabilities, most likely above 0.5: %v\n",
			test[i][0], pr.Label, len(pr.Prob), slices.Max(pr.Prob) > 0.5)
	}
	// Output:
	// task ordinal classes [1 2 3] identical after Load: true
	// x -2.5: category 1, 3 probabilities, most likely above 0.5: true
	// x  0.0: category 2, 3 probabilities, most likely above 0.5: true
	// x  2.5: category 3, 3 probabilities, most likely above 0.5: true
}

// Semi-supervised classification with the null category noise model: NaN marks an
// unlabelled row, and any NaN makes the task semi-supervised. Here two clusters carry five
// labels each among 120 rows; the unlabelled rows tell the model where the gap between the
// clusters is.
func ExampleFit_semiSupervised() {
	var rows [][]float64
	var y []float64
	for i := 0; i < 120; i++ {
		c := float64(i % 2) // cluster c sits around (4c − 2, 0)
		rows = append(rows,
			[]float64{4*c - 2 + 0.6*math.Sin(float64(i)), 0.6 * math.Cos(float64(3*i))})
		label := math.NaN()
		if i < 10 {
			label = 2*c - 1 // −1 or +1
		}
		y = append(y, label)
	}
	p, err := ivm.FitRows(rows, y, ivm.Config{ActiveSize: 40, Learn: engine.LearnOptions{Iters: 3}})
	if err != nil {
		panic(err)
	}
	test := [][]float64{{-2, 0}, {2, 0.3}}
	q, same := saveLoad(p, test)
	preds, err := q.PredictRows(test)
	if err != nil {
		panic(err)
	}
	fmt.Println("task", q.Task, "classes", q.Classes, "identical after Load:", same)
	for i, pr := range preds {
		fmt.Printf("x %4.1f: label %g, p(label) above 0.8: %v\n",
			test[i][0], pr.Label, slices.Max(pr.Prob) > 0.8)
	}
	// Output:
	// task semisupervised classes [-1 1] identical after Load: true
	// x -2.0: label -1, p(label) above 0.8: true
	// x  2.0: label 1, p(label) above 0.8: true
}

// Binary classification: two distinct labels (any two numbers) make the task binary, with
// the probit noise model; Prob holds p(Classes[0]) and p(Classes[1]).
func ExampleFit_binary() {
	var rows [][]float64
	var y []float64
	for i := 0; i < 60; i++ {
		c := float64(i % 2) // label 5 around (−1.5, 0), label 7 around (1.5, 0)
		rows = append(rows,
			[]float64{3*c - 1.5 + 0.7*math.Sin(float64(i)), 0.7 * math.Cos(float64(2*i))})
		y = append(y, 5+2*c)
	}
	p, err := ivm.FitRows(rows, y, ivm.Config{ActiveSize: 30})
	if err != nil {
		panic(err)
	}
	test := [][]float64{{-1.5, 0}, {1.5, 0}}
	q, same := saveLoad(p, test)
	preds, err := q.PredictRows(test)
	if err != nil {
		panic(err)
	}
	fmt.Println("task", q.Task, "classes", q.Classes, "identical after Load:", same)
	for i, pr := range preds {
		fmt.Printf("x %4.1f: label %g, p(label) above 0.8: %v\n",
			test[i][0], pr.Label, slices.Max(pr.Prob) > 0.8)
	}
	// Output:
	// task binary classes [5 7] identical after Load: true
	// x -1.5: label 5, p(label) above 0.8: true
	// x  1.5: label 7, p(label) above 0.8: true
}
