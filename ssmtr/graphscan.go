package ssmtr

import (
	"errors"
	"fmt"
	"math"
)

// WithGraphWeight returns the SSMTR model that keeps every task's kernel parameters θ_i and
// noise σ from m (an SSTR, SMTR or SSMTR model) and gives each task the data-dependent
// kernel of eq. 6 with graph weight alpha (≥ 0; 0 is m's own kernel). tasks must be the tasks
// m was fitted on: their labelled and unlabelled inputs build the graphs (configured by
// graph; the zero value gives the defaults). Nothing is refitted. Each task's
// NegLogEvidence is −ln p(y | θ_i, σ, alpha), and the model's Objective their sum (no prior
// term), so a scan over alpha shows what SSMTR's evidence makes of the graph on the
// given data (GraphWeightScan).
func (m *Model) WithGraphWeight(tasks []Task, graph GraphOptions, alpha float64) (*Model, error) {
	g, err := m.graphTasks(tasks, graph)
	if err != nil {
		return nil, err
	}
	return g.at(alpha)
}

// graphView holds a model's tasks with their graphs built, so that the model can be put
// under several graph weights without building the graphs again.
type graphView struct {
	m     *Model
	ts    []*task
	graph GraphOptions
}

// graphTasks checks tasks against m and builds each task's graph (WithGraphWeight).
func (m *Model) graphTasks(tasks []Task, graph GraphOptions) (*graphView, error) {
	if m.Method == SSMTRPI {
		return nil, errors.New("ssmtr: WithGraphWeight needs a model without constraints (SSTR, SMTR or SSMTR)")
	}
	if len(tasks) != len(m.Tasks) {
		return nil, fmt.Errorf("ssmtr: %d tasks given for a model of %d", len(tasks), len(m.Tasks))
	}
	if _, err := checkTasks(tasks); err != nil {
		return nil, err
	}
	opt := Options{Method: SSMTR, Graph: graph}.withDefaults()
	g := &graphView{m: m, ts: make([]*task, len(tasks)), graph: opt.Graph}
	for i, old := range m.Tasks {
		if !fittedOn(old, tasks[i]) {
			return nil, fmt.Errorf("ssmtr: task %d is not the data its model was fitted on", i)
		}
		var err error
		if g.ts[i], err = newTask(tasks[i], i, opt, m.Kernel, old.Theta, old.Mean, old.Scale); err != nil {
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
	out := &Model{Method: SSMTR, Kernel: m.Kernel, Dim: m.Dim, Targets: m.Targets, Graph: g.graph,
		Tasks: make([]*TaskModel, len(g.ts))}
	for i, old := range m.Tasks {
		h := hyper{theta: append([]float64(nil), old.Theta...), alpha: alpha, sigma2: old.Sigma * old.Sigma, eps: 1}
		var err error
		if out.Tasks[i], err = g.ts[i].finish(h, SSMTR, old.Mean, old.Scale); err != nil {
			return nil, fmt.Errorf("ssmtr: task %d: %w", i, err)
		}
		out.Objective += out.Tasks[i].NegLogEvidence
	}
	return out, nil
}

// fittedOn reports whether tm's training rows are t's labelled rows, or its labelled then
// unlabelled rows (a model with a graph), as far as the row count and the first row show.
func fittedOn(tm *TaskModel, t Task) bool {
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

// GraphScanSplit is one split of GraphWeightScan: the transductive nMSE (per task, averaged
// over the tasks, as NMSE) of the fitted SMTR model and of its kernels with each graph
// weight, the summed negative log evidence at each weight, and the nMSE when each task
// takes the weight that is best on its own unlabelled targets.
type GraphScanSplit struct {
	SMTR           float64
	Trans          []float64
	NegLogEvidence []float64
	PerTaskBest    float64
}

// GraphWeightScan asks whether the unlabelled points' graph could help on c's data. For
// every split it fits SMTR with c.Options (as RunExperiment does), then forms SSMTR's
// kernel (WithGraphWeight) with each weight in alphas and records the evidence and the
// transductive nMSE. SSMTR learns α by the evidence (paper §3.1); where the evidence is
// largest at the smallest α while a larger α predicts the unlabelled targets better, the
// graph holds information the evidence cannot see, and SSMTR must tie with SMTR
// (bench/RESULTS.md: the school data).
func GraphWeightScan(c ExperimentConfig, alphas []float64) ([]GraphScanSplit, error) {
	if len(alphas) == 0 {
		return nil, errors.New("ssmtr: no graph weights to scan")
	}
	proto, draw, err := c.Splitter()
	if err != nil {
		return nil, err
	}
	opt := c.Options
	opt.Method = SMTR
	opt.Targets = proto.Targets
	var out []GraphScanSplit
	for s := 0; s < c.Splits; s++ {
		splits, err := draw(s)
		if err != nil {
			return nil, err
		}
		tasks := make([]Task, len(splits))
		truth := make([][]float64, len(splits))
		for i, sp := range splits {
			tasks[i] = Task{X: sp.X, Y: sp.Y, U: sp.U}
			truth[i] = sp.YU
		}
		m, err := Fit(tasks, opt)
		if err != nil {
			return nil, fmt.Errorf("split %d: %w", s+1, err)
		}
		r := GraphScanSplit{}
		if r.SMTR, err = transductive(m, splits, truth, nil); err != nil {
			return nil, err
		}
		best := make([]float64, len(splits))
		for i := range best {
			best[i] = math.Inf(1)
		}
		view, err := m.graphTasks(tasks, c.Options.Graph)
		if err != nil {
			return nil, fmt.Errorf("split %d: %w", s+1, err)
		}
		for _, a := range alphas {
			g, err := view.at(a)
			if err != nil {
				return nil, fmt.Errorf("split %d, α = %g: %w", s+1, a, err)
			}
			v, err := transductive(g, splits, truth, best)
			if err != nil {
				return nil, err
			}
			r.Trans = append(r.Trans, v)
			r.NegLogEvidence = append(r.NegLogEvidence, g.Objective)
		}
		var sum float64
		var n int
		for _, b := range best {
			if !math.IsInf(b, 1) {
				sum += b
				n++
			}
		}
		r.PerTaskBest = sum / float64(n)
		out = append(out, r)
		if c.Log != nil {
			fmt.Fprintf(c.Log, "split %d/%d: SMTR %.4f\n", s+1, c.Splits, r.SMTR)
		}
	}
	return out, nil
}

// transductive returns the model's per-task transductive nMSE averaged over the tasks and,
// if best is not nil, lowers best[i] to task i's own nMSE where that is lower.
func transductive(m *Model, splits []Split, truth [][]float64, best []float64) (float64, error) {
	pred := make([][]float64, len(splits))
	for i, sp := range splits {
		if sp.U == nil {
			continue
		}
		pred[i] = make([]float64, len(sp.YU))
		if err := m.Predict(i, sp.U, pred[i], nil); err != nil {
			return 0, err
		}
		if best != nil {
			if v, _, used := NMSE(pred[i:i+1], truth[i:i+1]); used == 1 && v < best[i] {
				best[i] = v
			}
		}
	}
	v, _, _ := NMSE(pred, truth)
	return v, nil
}
