package multitask

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
)

// Split groups the rows of x and y by their task labels into tasks, in the order in which
// the labels first appear; every task gets a noise model from newNoise and the file rows of
// its points in Rows.
func Split(x *mat.Dense, y []float64, labels []string, newNoise func() (noise.Model,
	error)) ([]Task, error) {
	if x == nil {
		return nil, errors.New("multitask: no inputs")
	}
	n, dim := x.Dims()
	if len(y) != n || len(labels) != n {
		return nil, fmt.Errorf("multitask: %d input rows, %d targets and %d task labels", n, len(y),
			len(labels))
	}
	index := map[string]int{}
	var rows [][]int
	var names []string
	for i, l := range labels {
		m, ok := index[l]
		if !ok {
			m = len(names)
			index[l] = m
			names = append(names, l)
			rows = append(rows, nil)
		}
		rows[m] = append(rows[m], i)
	}
	tasks := make([]Task, len(names))
	for m, r := range rows {
		xm := mat.NewDense(len(r), dim, nil)
		ym := make([]float64, len(r))
		for k, i := range r {
			xm.SetRow(k, x.RawRowView(i))
			ym[k] = y[i]
		}
		nm, err := newNoise()
		if err != nil {
			return nil, err
		}
		tasks[m] = Task{Name: names[m], X: xm, Y: ym, Noise: nm, Rows: r}
	}
	return tasks, nil
}

// Pool joins the tasks into one task named name holding all their points, with noise model nm: the
// single IVM that ignores the task labels, the papers' second baseline. Rows are the tasks' Rows
// (or positions) in task order.
func Pool(tasks []Task, name string, nm noise.Model) (Task, error) {
	if len(tasks) == 0 {
		return Task{}, errors.New("multitask: no tasks to pool")
	}
	_, dim := tasks[0].X.Dims()
	var n int
	for _, t := range tasks {
		r, c := t.X.Dims()
		if c != dim {
			return Task{}, fmt.Errorf("multitask: task %q has %d input columns, task %q %d",
				t.Name, c, tasks[0].Name, dim)
		}
		n += r
	}
	out := Task{Name: name, X: mat.NewDense(n, dim, nil), Y: make([]float64, 0, n), Noise: nm,
		Rows: make([]int, 0, n)}
	k := 0
	for _, t := range tasks {
		r, _ := t.X.Dims()
		for i := 0; i < r; i++ {
			out.X.SetRow(k, t.X.RawRowView(i))
			row := k
			if t.Rows != nil {
				row = t.Rows[i]
			}
			out.Rows = append(out.Rows, row)
			k++
		}
		out.Y = append(out.Y, t.Y...)
	}
	return out, nil
}
