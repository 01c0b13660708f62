package main

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/multitask"
	ivmplot "github.com/ivmlab/ivm/plot"
)

// plotTasks draws a multi-task model of one input over its training data (the file it was
// trained on, with its task column): one panel per task with the task's points, the
// predictive mean ± 2 sd, and the points that task gave to the active set circled (the
// extensions paper's Fig. 7).
func plotTasks(m *multitask.Model, dataPath string, df dataFlags, grid int, opt ivmplot.Options) (*ivmplot.Figure, error) {
	if dataPath == "" {
		return nil, errors.New("a multi-task model is drawn over its training data: give the DATA file (with -task-col for CSV)")
	}
	data, err := readPlotData(dataPath, df, 1)
	if err != nil {
		return nil, err
	}
	if data.Task == nil {
		return nil, fmt.Errorf("%s has no task labels (-task-col for CSV, task:NAME tokens for libsvm)", dataPath)
	}
	n, _ := data.X.Dims()
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		lo, hi = math.Min(lo, data.X.At(i, 0)), math.Max(hi, data.X.At(i, 0))
	}
	if grid <= 1 {
		grid = 300
	}
	gx := make([]float64, grid)
	for i := range gx {
		gx[i] = lo + (hi-lo)*float64(i)/float64(grid-1)
	}
	gm := mat.NewDense(grid, 1, gx)
	var tasks []ivmplot.Task
	for ti, tm := range m.Tasks {
		t := ivmplot.Task{Name: "task " + tm.Name, GridX: gx}
		pos := map[int]int{} // file row → index in the task's points
		for i := 0; i < n; i++ {
			if data.Task[i] == tm.Name {
				pos[i] = len(t.X)
				t.X = append(t.X, data.X.At(i, 0))
				t.Y = append(t.Y, data.Y[i])
			}
		}
		for _, r := range tm.Rows {
			k, ok := pos[r]
			if !ok {
				return nil, fmt.Errorf("%s: row %d, active in task %s, is not in that task here: is it the training file?", dataPath, r+1, tm.Name)
			}
			t.Active = append(t.Active, k)
		}
		preds, err := m.PredictTask(ti, gm)
		if err != nil {
			return nil, err
		}
		for _, p := range preds {
			t.Mean = append(t.Mean, p.Mean)
			t.SD = append(t.SD, math.Sqrt(math.Max(p.Var, 0)))
		}
		tasks = append(tasks, t)
	}
	return ivmplot.MultiTask(tasks, opt)
}
