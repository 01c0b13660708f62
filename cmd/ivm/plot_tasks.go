package main

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
	ivmplot "github.com/ivmlab/ivm/plot"
)

// plotTasks draws a multi-task model of one input over its training data (the file it was
// trained on, with its task column): one panel per task with the task's points, the
// predictive mean ± 2 sd, and the points that task gave to the active set circled (the
// extensions paper's Fig. 7).
func plotTasks(m *multitask.Model, dataPath string, df dataFlags, grid int,
	opt ivmplot.Options) (*ivmplot.Figure, error) {
	if dataPath == "" {
		return nil, errors.New("a multi-task model is drawn over its training data: " +
			"give the DATA file (with -task-col for CSV)")
	}
	data, err := readPlotData(dataPath, df, 1)
	if err != nil && df.taskCol == "none" {
		// A task column read as an input fails as a number or as a width; say which flag
		// the user left out.
		return nil, fmt.Errorf("%w (a multi-task model is drawn over data with its task column: "+
			"pass -task-col)", err)
	}
	if err != nil {
		return nil, err
	}
	if data.Task == nil {
		return nil, fmt.Errorf("%s has no task labels "+
			"(-task-col for CSV, task:NAME tokens for libsvm)", dataPath)
	}
	names := make([]string, len(m.Tasks))
	for i, tm := range m.Tasks {
		names[i] = tm.Name
	}
	tasks, err := taskPanels(data, data.Task, names, grid,
		func(ti int, gm *mat.Dense) ([]noise.Prediction, error) {
			return m.PredictTask(ti, gm)
		})
	if err != nil {
		return nil, err
	}
	for ti, tm := range m.Tasks {
		pos := map[int]int{} // file row → index in the task's points
		for i, name := range data.Task {
			if name == tm.Name && !math.IsNaN(data.Y[i]) {
				pos[i] = len(pos)
			}
		}
		for _, r := range tm.Rows {
			k, ok := pos[r]
			if !ok && r < len(data.Task) && data.Task[r] == tm.Name {
				continue // an unlabelled active row (null-category noise): not drawn
			}
			if !ok {
				return nil, fmt.Errorf("%s: row %d, active in task %s, is not in that task here: "+
					"is it the training file?", dataPath, r+1, tm.Name)
			}
			tasks[ti].Active = append(tasks[ti].Active, k)
		}
	}
	return ivmplot.MultiTask(tasks, opt)
}

// taskPanels lays out the figure of a task model of one input over data (task names the
// task of each row): one panel per task of names with the task's labelled points and the
// predictive mean ± 2 sd on a grid over the data's range (unlabelled rows included),
// predict giving task k's predictions at the grid.
func taskPanels(data *dataset.Data, task, names []string, grid int,
	predict func(k int, gm *mat.Dense) ([]noise.Prediction, error)) ([]ivmplot.Task, error) {
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
	for k, name := range names {
		t := ivmplot.Task{Name: "task " + name, GridX: gx}
		for i := 0; i < n; i++ {
			if task[i] == name && !math.IsNaN(data.Y[i]) {
				t.X = append(t.X, data.X.At(i, 0))
				t.Y = append(t.Y, data.Y[i])
			}
		}
		preds, err := predict(k, gm)
		if err != nil {
			return nil, err
		}
		for _, p := range preds {
			t.Mean = append(t.Mean, p.Mean)
			t.SD = append(t.SD, math.Sqrt(math.Max(p.Var, 0)))
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}
