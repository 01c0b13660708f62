package ssmtr

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/safestat"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/param"
)

// taskData is one task's training data, as Fit has split it.
type taskData struct {
	// X holds the labelled inputs (l×d, l ≥ 1) and Y their targets.
	X *mat.Dense
	Y []float64
	// U holds the unlabelled inputs (u×d); nil when there are none. SSTR and SMTR ignore it.
	U *mat.Dense
	// Pairs and Quads are the constraints of SSMTRPI (ignored by the other methods). Their
	// indices run over the l labelled rows followed by the u unlabelled rows.
	Pairs []Pair
	Quads []Quad
}

// maxLogParam bounds |ln θ| during optimisation: beyond it the kernel over- or underflows
// and the optimiser is told the point is outside the domain.
const maxLogParam = 25

// Fit learns the model of cfg.Method. Row r of x is an input of task task[r]; y[r] is its
// target, NaN for an unlabelled row (used by SSMTR and SSMTRPI through the graph, ignored by
// SSTR and SMTR). Tasks are numbered in the order their names first occur; every task
// needs a labelled row. The inputs are scaled by cfg.Scaling first.
func Fit(x *mat.Dense, y []float64, task []string, cfg Config) (*Model, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, errors.New("ssmtr: no inputs")
	}
	sc, err := dataset.FitScaler(x, cfg.Scaling)
	if err != nil {
		return nil, fmt.Errorf("ssmtr: input scaling: %w", err)
	}
	xs, err := sc.Apply(x)
	if err != nil {
		return nil, fmt.Errorf("ssmtr: input scaling: %w", err)
	}
	sp, err := splitRows(xs, y, task)
	if err != nil {
		return nil, err
	}
	if err := sp.constraints(cfg.Pairs, cfg.Quads); err != nil {
		return nil, err
	}
	m, err := fitTasks(sp.tasks, cfg)
	if err != nil {
		return nil, err
	}
	m.Names, m.Scaler = sp.names, sc
	m.Scaling = cfg.Scaling
	if sc == nil {
		m.Scaling = dataset.ScaleNone
	}
	return m, nil
}

// fitTasks learns the model of opt.Method from the tasks, whose inputs are scaled.
func fitTasks(tasks []taskData, opt Config) (*Model, error) {
	opt = opt.withDefaults()
	if err := opt.check(); err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, errors.New("ssmtr: no tasks")
	}
	dim, err := checkTasks(tasks)
	if err != nil {
		return nil, err
	}
	means, scales, pm, ps := targetScaling(tasks, opt.Targets)
	spec, init, err := initialKernel(opt.Kernel, tasks, dim)
	if err != nil {
		return nil, err
	}
	ts := make([]*task, len(tasks))
	for i := range tasks {
		if ts[i], err = newTask(tasks[i], i, opt, spec, init, means[i], scales[i]); err != nil {
			return nil, err
		}
	}
	p := ts[0].p
	m := &Model{Method: opt.Method, Kernel: spec, Dim: dim, Targets: opt.Targets, Graph: opt.Graph}
	fr := &fitter{ts: ts, opt: opt, p: p, stats: &m.Stats}
	var z []float64
	if opt.Method == SSTR {
		z, err = fr.fitIndependent(init)
	} else {
		z, err = fr.fitMultiTask(init, &m.Trace)
	}
	if err != nil {
		return nil, err
	}
	lay := fr.layout()
	m.Tasks = make([]*TaskModel, len(ts))
	for i, t := range ts {
		h := lay.hyper(z, i)
		if m.Tasks[i], err = t.finish(h, opt.Method, means[i], scales[i]); err != nil {
			return nil, fmt.Errorf("ssmtr: task %d: %w", i, err)
		}
	}
	if opt.Method != SSTR {
		m.Prior = &Prior{Names: fr.priorNames(), Mean: fr.mean, Cov: fr.cov, Kernel: spec, Dim: dim,
			Method: opt.Method, Graph: opt.Graph, Targets: opt.Targets,
			PooledMean: pm, PooledScale: ps, Sigma: math.Exp(z[lay.sigma(0)])}
		if opt.Method == SSMTRPI {
			m.Prior.Epsilon = math.Exp(z[lay.eps])
		}
		if lay.alpha {
			m.Prior.AlphaPrior = opt.AlphaPrior
			var s float64
			for i := 0; i < lay.m; i++ {
				s += z[lay.block(i)+lay.p]
			}
			m.Prior.Alpha = math.Exp(s / float64(lay.m))
		}
	}
	m.Objective = fr.last
	return m, nil
}

func checkTasks(tasks []taskData) (int, error) {
	dim := -1
	for i, t := range tasks {
		if t.X == nil {
			return 0, fmt.Errorf(
				"ssmtr: task %d (0-based, in the order given) has no labelled inputs", i)
		}
		l, d := t.X.Dims()
		if dim < 0 {
			dim = d
		}
		if d != dim {
			return 0, fmt.Errorf("ssmtr: task %d has %d input columns, task 0 has %d", i, d, dim)
		}
		if len(t.Y) != l {
			return 0, fmt.Errorf("ssmtr: task %d has %d labelled rows but %d targets",
				i, l, len(t.Y))
		}
		for j, v := range t.Y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("ssmtr: task %d: target %d is %v", i, j, v)
			}
		}
		if err := finite(t.X); err != nil {
			return 0, fmt.Errorf("ssmtr: task %d labelled inputs: %v", i, err)
		}
		if t.U != nil {
			if _, du := t.U.Dims(); du != dim {
				return 0, fmt.Errorf("ssmtr: task %d unlabelled inputs have %d columns, want %d",
					i, du, dim)
			}
			if err := finite(t.U); err != nil {
				return 0, fmt.Errorf("ssmtr: task %d unlabelled inputs: %v", i, err)
			}
		}
	}
	return dim, nil
}

func finite(x *mat.Dense) error {
	r, c := x.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("row %d column %d is %v", i, j, v)
			}
		}
	}
	return nil
}

// targetScaling returns every task's centre and scale and the pooled ones.
func targetScaling(tasks []taskData, s TargetScaling) (means, scales []float64, pm, ps float64) {
	var all []float64
	for _, t := range tasks {
		all = append(all, t.Y...)
	}
	pm, ps = safestat.MeanSD(all, 1)
	if ps == 0 {
		ps = 1
	}
	means, scales = make([]float64, len(tasks)), make([]float64, len(tasks))
	for i, t := range tasks {
		switch s {
		case Unscaled:
			means[i], scales[i] = 0, 1
		case Pooled:
			means[i], scales[i] = pm, ps
		default:
			means[i], scales[i] = safestat.MeanSD(t.Y, 1)
			if scales[i] == 0 {
				scales[i] = ps
			}
		}
	}
	if s == Unscaled {
		pm, ps = 0, 1
	}
	return
}

// initialKernel parses the kernel spec and returns the starting natural parameters.
func initialKernel(spec string, tasks []taskData, dim int) (string, []float64, error) {
	auto := spec == ""
	if auto {
		spec = "rbf"
	}
	k, err := parseKernel(spec, dim)
	if err != nil {
		return "", nil, err
	}
	init := make([]float64, k.NumParams())
	k.Params(init)
	if auto {
		var d2 []float64
		for _, t := range tasks {
			d2 = append(d2, pairDistances(t.X, t.U, 200)...)
		}
		if len(d2) > 0 {
			sort.Float64s(d2)
			if med := d2[len(d2)/2]; med > 0 {
				init[0] = 1 / med
			}
		}
		spec = fmt.Sprintf("rbf(gamma=%.17g,variance=1)", init[0])
	}
	return spec, init, nil
}

// parseKernel parses a spec and checks that the kernel suits the models: positive
// parameters (the prior lives on their logs), no white noise, no ties.
func parseKernel(spec string, dim int) (*kern.Sum, error) {
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return nil, fmt.Errorf("ssmtr: kernel: %w", err)
	}
	names := k.ParamNames()
	for i, kind := range k.ParamKinds() {
		if kind != param.Positive {
			return nil, fmt.Errorf("ssmtr: kernel parameter %s is not positive-valued; "+
				"the prior is on log-parameters", names[i])
		}
	}
	if k.White() != 0 {
		return nil, errors.New("ssmtr: kernel has a white-noise term: " +
			"the noise is the model's σ, remove white from the spec")
	}
	if len(k.Ties()) > 0 {
		return nil, errors.New(
			"ssmtr: kernel has tied parameters, which the per-task prior does not support")
	}
	return k, nil
}

// pairDistances returns the squared distances among the first max rows of X and U.
func pairDistances(x, u *mat.Dense, max int) []float64 {
	var rows [][]float64
	for _, m := range []*mat.Dense{x, u} {
		if m == nil {
			continue
		}
		r, _ := m.Dims()
		for i := 0; i < r && len(rows) < max; i++ {
			rows = append(rows, m.RawRowView(i))
		}
	}
	var out []float64
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			var s float64
			for c := range rows[i] {
				d := rows[i][c] - rows[j][c]
				s += d * d
			}
			out = append(out, s)
		}
	}
	return out
}

// newTask builds the internal form of task i.
func newTask(t taskData, i int, opt Config, spec string, init []float64, mean,
	scale float64) (*task, error) {
	l, dim := t.X.Dims()
	k, err := parseKernel(spec, dim)
	if err != nil {
		return nil, err
	}
	if err := k.SetParams(init); err != nil {
		return nil, err
	}
	tk := &task{l: l, n: l, k: k, p: k.NumParams(), y: make([]float64, l)}
	for j, v := range t.Y {
		tk.y[j] = (v - mean) / scale
	}
	tk.x = t.X
	if opt.Method.graph() && t.U != nil {
		u, _ := t.U.Dims()
		tk.n = l + u
		tk.x = mat.NewDense(l+u, dim, nil)
		tk.x.Slice(0, l, 0, dim).(*mat.Dense).Copy(t.X)
		tk.x.Slice(l, l+u, 0, dim).(*mat.Dense).Copy(t.U)
	}
	if opt.Method.graph() {
		s, err := SimilarityGraph(tk.x, opt.Graph.K)
		if err != nil {
			return nil, fmt.Errorf("ssmtr: task %d: %w", i, err)
		}
		tk.r, err = laplacianFactor(GraphLaplacian(s, opt.Graph.Laplacian))
		if err != nil && !errors.Is(err, errNoGraph) {
			return nil, fmt.Errorf("ssmtr: task %d: %w", i, err)
		}
	}
	if opt.Method == SSMTRPI {
		for j, p := range t.Pairs {
			c, err := newConstraint([]int{p.U, p.V}, []float64{1, -1}, p.D/scale, tk.n)
			if err != nil {
				return nil, fmt.Errorf("ssmtr: task %d pair %d: %v", i, j, err)
			}
			tk.cons = append(tk.cons, c)
		}
		for j, q := range t.Quads {
			c, err := newConstraint([]int{q.U, q.V, q.W, q.Z}, []float64{1, -1, -1, 1}, 0, tk.n)
			if err != nil {
				return nil, fmt.Errorf("ssmtr: task %d quadruple %d: %v", i, j, err)
			}
			tk.cons = append(tk.cons, c)
		}
	}
	return tk, nil
}

// parallelFor runs fn(i) for i < n on at most workers goroutines (0: all cores).
func parallelFor(n, workers int, fn func(i int)) {
	pool.ForEach(n, pool.Workers(workers), fn)
}
