package ssmtr

import (
	"errors"
	"fmt"
	"math"

	"github.com/ivmlab/ivm/dataset"
	"gonum.org/v1/gonum/mat"
)

// rowSplit is Fit's data divided into tasks: each task's labelled rows (in the order of x)
// followed by its unlabelled ones, which is the order the graph and the constraints index.
type rowSplit struct {
	names []string
	tasks []taskData
	// at[r] is row r's task and its index among that task's training points.
	at [][2]int
}

// splitRows groups the rows of x by task, in the order the names first occur; NaN
// targets mark unlabelled rows.
func splitRows(x *mat.Dense, y []float64, task []string) (*rowSplit, error) {
	n, d := x.Dims()
	if len(y) != n || len(task) != n {
		return nil, fmt.Errorf("ssmtr: %d rows of inputs, %d targets and %d task names", n, len(y),
			len(task))
	}
	if n == 0 || d == 0 {
		return nil, errors.New("ssmtr: no training data")
	}
	index := map[string]int{}
	var names []string
	var lab, unl [][]int
	for r, name := range task {
		k, ok := index[name]
		if !ok {
			k = len(names)
			index[name] = k
			names = append(names, name)
			lab, unl = append(lab, nil), append(unl, nil)
		}
		switch v := y[r]; {
		case math.IsNaN(v):
			unl[k] = append(unl[k], r)
		case math.IsInf(v, 0):
			return nil, fmt.Errorf("ssmtr: row %d: target %v", r+1, v)
		default:
			lab[k] = append(lab[k], r)
		}
	}
	sp := &rowSplit{names: names, tasks: make([]taskData, len(names)), at: make([][2]int, n)}
	for k, name := range names {
		if len(lab[k]) == 0 {
			return nil, fmt.Errorf(
				"ssmtr: task %q has no labelled rows; every task needs at least one", name)
		}
		t := &sp.tasks[k]
		t.X, t.U = dataset.RowsOf(x, lab[k]), dataset.RowsOf(x, unl[k])
		for i, r := range lab[k] {
			t.Y = append(t.Y, y[r])
			sp.at[r] = [2]int{k, i}
		}
		for i, r := range unl[k] {
			sp.at[r] = [2]int{k, len(lab[k]) + i}
		}
	}
	return sp, nil
}

// constraints hands Config's pairs and quadruples, indexed by rows of x, to their tasks.
func (sp *rowSplit) constraints(pairs []Pair, quads []Quad) error {
	task := func(what string, j int, rows ...int) (int, []int, error) {
		k, idx := -1, make([]int, len(rows))
		for i, r := range rows {
			if r < 0 || r >= len(sp.at) {
				return 0, nil, fmt.Errorf("ssmtr: %s %d: row %d is not a row of x (0 to %d)",
					what, j, r, len(sp.at)-1)
			}
			if k >= 0 && sp.at[r][0] != k {
				return 0, nil, fmt.Errorf("ssmtr: %s %d: rows %v belong to different tasks",
					what, j, rows)
			}
			k, idx[i] = sp.at[r][0], sp.at[r][1]
		}
		return k, idx, nil
	}
	for j, p := range pairs {
		k, idx, err := task("pair", j, p.U, p.V)
		if err != nil {
			return err
		}
		sp.tasks[k].Pairs = append(sp.tasks[k].Pairs, Pair{U: idx[0], V: idx[1], D: p.D})
	}
	for j, q := range quads {
		k, idx, err := task("quadruple", j, q.U, q.V, q.W, q.Z)
		if err != nil {
			return err
		}
		sp.tasks[k].Quads = append(sp.tasks[k].Quads,
			Quad{U: idx[0], V: idx[1], W: idx[2], Z: idx[3]})
	}
	return nil
}
