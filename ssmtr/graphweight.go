package ssmtr

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// GraphWeights puts a fitted model's kernels under the graph: for each weight in alphas it
// returns the SSMTR model that keeps every task's kernel parameters θ_i and noise σ from m
// (an SSTR, SMTR or SSMTR model) and gives each task the data-dependent kernel of eq. 6
// with that graph weight (≥ 0; 0 is m's own kernel). x, y and task must be the data m was
// fitted on (Fit's arguments, unlabelled rows included): their rows build the graphs, as
// configured by m.Graph. Nothing is refitted. Each task's NegLogEvidence is
// −ln p(y | θ_i, σ, α), and each model's Objective their sum (no prior term), so a scan
// over the weights shows what SSMTR's evidence makes of the graph on the given data.
func (m *Model) GraphWeights(x *mat.Dense, y []float64, task []string, alphas []float64) ([]*Model,
	error) {
	if m.Method == SSMTRPI {
		return nil, errors.New(
			"ssmtr: GraphWeights needs a model without constraints (SSTR, SMTR or SSMTR)")
	}
	if x == nil {
		return nil, errors.New("ssmtr: no inputs")
	}
	xs, err := m.Scaler.Apply(x)
	if err != nil {
		return nil, fmt.Errorf("ssmtr: inputs: %w", err)
	}
	sp, err := splitRows(xs, y, task)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(sp.names, m.Names) {
		return nil, fmt.Errorf("ssmtr: tasks %q given for a model of tasks %q", sp.names, m.Names)
	}
	g, err := m.graphTasks(sp.tasks)
	if err != nil {
		return nil, err
	}
	out := make([]*Model, len(alphas))
	for i, a := range alphas {
		if out[i], err = g.at(a); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// graphView holds a model's tasks with their graphs built, so that the model can be put
// under several graph weights without building the graphs again.
type graphView struct {
	m     *Model
	ts    []*task
	graph GraphOptions
}

// graphTasks checks tasks against m and builds each task's graph.
func (m *Model) graphTasks(tasks []taskData) (*graphView, error) {
	if len(tasks) != len(m.Tasks) {
		return nil, fmt.Errorf("ssmtr: %d tasks given for a model of %d", len(tasks), len(m.Tasks))
	}
	if _, err := checkTasks(tasks); err != nil {
		return nil, err
	}
	opt := Config{Method: SSMTR, Graph: m.Graph}.withDefaults()
	g := &graphView{m: m, ts: make([]*task, len(tasks)), graph: opt.Graph}
	for i, old := range m.Tasks {
		if !fittedOn(old, tasks[i]) {
			return nil, fmt.Errorf("ssmtr: task %q is not the data its model was fitted on",
				m.Names[i])
		}
		var err error
		if g.ts[i], err = newTask(tasks[i], i, opt, m.Kernel, old.Theta, old.Mean,
			old.Scale); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// at returns the model under graph weight alpha.
func (g *graphView) at(alpha float64) (*Model, error) {
	if !(alpha >= 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("ssmtr: graph weight %v must be finite and ≥ 0", alpha)
	}
	m := g.m
	out := &Model{Method: SSMTR, Kernel: m.Kernel, Dim: m.Dim, Names: m.Names, Scaling: m.Scaling,
		Scaler:  m.Scaler,
		Targets: m.Targets, Graph: g.graph, Tasks: make([]*TaskModel, len(g.ts))}
	for i, old := range m.Tasks {
		h := hyper{theta: append([]float64(nil), old.Theta...), alpha: alpha,
			sigma2: old.Sigma * old.Sigma, eps: 1}
		var err error
		if out.Tasks[i], err = g.ts[i].finish(h, SSMTR, old.Mean, old.Scale); err != nil {
			return nil, fmt.Errorf("ssmtr: task %q: %w", m.Names[i], err)
		}
		out.Objective += out.Tasks[i].NegLogEvidence
	}
	return out, nil
}

// fittedOn reports whether tm's training rows are t's labelled rows, or its labelled then
// unlabelled rows (a model with a graph), as far as the row count and the first row show.
func fittedOn(tm *TaskModel, t taskData) bool {
	rows, _ := tm.x.Dims()
	l, _ := t.X.Dims()
	u := 0
	if t.U != nil {
		u, _ = t.U.Dims()
	}
	if rows != l && rows != l+u {
		return false
	}
	a, b := tm.x.RawRowView(0), t.X.RawRowView(0)
	for j := range a {
		if a[j] != b[j] {
			return false
		}
	}
	return true
}
