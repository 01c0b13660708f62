package multitask

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// Fit trains a multi-task IVM on the rows of x with targets y (NaN marks an unlabelled row,
// which only NoiseNCNM uses) and task[i] the task of row i: one shared kernel, one noise
// model per task, and the active set selected across the tasks. Binary labels other than
// −1 and +1 are coded as −1 (the smaller) and +1 and decoded by Predict. The model's Steps
// and its tasks' Rows name rows of x.
func Fit(x *mat.Dense, y []float64, task []string, cfg Config) (*Model, error) {
	if x == nil {
		return nil, errors.New("multitask: Fit needs inputs")
	}
	n, dim := x.Dims()
	if len(y) != n || len(task) != n {
		return nil, fmt.Errorf("multitask: %d input rows, %d targets and %d task names", n, len(y),
			len(task))
	}
	if cfg.ActiveSize < 0 {
		return nil, fmt.Errorf("multitask: active set size %d", cfg.ActiveSize)
	}
	nm, labels, coded, err := codeLabels(cfg.Noise, y)
	if err != nil {
		return nil, err
	}
	k, err := fitKernel(cfg, dim)
	if err != nil {
		return nil, err
	}
	scaling := cfg.Scaling
	if scaling == dataset.ScaleAuto {
		scaling = dataset.ScaleNone
	}
	scaler, err := dataset.FitScaler(x, scaling)
	if err != nil {
		return nil, fmt.Errorf("multitask: %w", err)
	}
	xs, err := scaler.Apply(x)
	if err != nil {
		return nil, fmt.Errorf("multitask: %w", err)
	}
	tasks, err := Split(xs, coded, task, func() (noise.Model, error) { return noise.ByName(nm) })
	if err != nil {
		return nil, err
	}
	d := cfg.ActiveSize
	if d == 0 {
		d = DefaultActiveSize(n)
	}
	d = min(d, n)
	m, trace, err := fitTasks(tasks, k, d, nm, cfg)
	if err != nil {
		return nil, err
	}
	m.Scaler, m.InputDim = scaler, dim
	m.Labels, m.Trace = labels, Records(trace)
	return m, nil
}

// fitKernel parses the configured kernel for dim inputs and sets its transform.
func fitKernel(cfg Config, dim int) (*kern.Sum, error) {
	spec := cfg.Kernel
	if spec == "" {
		spec = engine.DefaultKernel(dim)
	}
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return nil, err
	}
	if err := cfg.Transform.Apply(k); err != nil {
		return nil, err
	}
	return k, nil
}

// fitTasks selects d points across tasks with kernel k fixed, or learns k by Algorithm 2.
func fitTasks(tasks []Task, k *kern.Sum, d int, nm string, cfg Config) (*Model, []IterTrace,
	error) {
	crit := selectionCriterion(cfg.Criterion, nm)
	if cfg.FixedKernel {
		sel, err := NewSelector(tasks, k, engine.Options{Workers: cfg.Workers, Criterion: crit})
		if err != nil {
			return nil, nil, err
		}
		if err := sel.Select(d); err != nil {
			return nil, nil, err
		}
		m, err := sel.Model()
		return m, nil, err
	}
	if cfg.Optimizer != OptimizerSCG && cfg.Optimizer != OptimizerLBFGS {
		return nil, nil, fmt.Errorf("multitask: unknown optimizer %v", cfg.Optimizer)
	}
	iters := cfg.Iters
	if iters <= 0 {
		iters = 8
	}
	lo := LearnOptions{ActiveSize: d, Iters: iters, KernelIters: cfg.KernelIters,
		NoiseIters: max(cfg.NoiseIters, 0),
		Objective:  cfg.Objective, LastIterate: cfg.LastIterate, Workers: cfg.Workers,
		Criterion: crit, Optimizer: cfg.Optimizer}
	if cfg.Progress != nil {
		lo.Progress = func(tr IterTrace) {
			cfg.Progress(Progress{IterTrace: tr, Iters: iters, Kernel: k.String()})
		}
	}
	m, res, err := Learn(tasks, k, lo)
	if err != nil {
		return nil, nil, err
	}
	return m, res.Trace, nil
}

// codeLabels picks the noise model for targets y (see Config.Noise) and returns its name
// and the targets in its coding: binary labels as −1/+1, with the original labels of −1
// and +1 in labels unless they were −1 and +1 already; an unlabelled row (NaN) as the null
// category model's 0.
func codeLabels(kind Noise, y []float64) (name string, labels, coded []float64, err error) {
	distinct := map[float64]bool{}
	integer := true
	for i, v := range y {
		switch {
		case math.IsNaN(v) && kind != NoiseNCNM:
			return "", nil, nil, fmt.Errorf("multitask: row %d is unlabelled; "+
				"only the ncnm noise model uses unlabelled rows", i+1)
		case math.IsNaN(v):
			continue
		case math.IsInf(v, 0):
			return "", nil, nil, fmt.Errorf("multitask: row %d has target %v", i+1, v)
		case kind == NoiseNCNM && v != -1 && v != 1:
			return "", nil, nil, fmt.Errorf("multitask: row %d has label %v; "+
				"the ncnm model's labels are -1 and +1 (NaN: unlabelled)", i+1, v)
		}
		distinct[v] = true
		integer = integer && v == math.Trunc(v)
	}
	if kind == NoiseAuto {
		switch {
		case len(distinct) == 2:
			kind = NoiseProbit
		case !integer:
			kind = NoiseGaussian
		default:
			return "", nil, nil, fmt.Errorf("multitask: %d distinct integer targets: "+
				"choose the ordinal or the gaussian noise model", len(distinct))
		}
	}
	if kind <= NoiseAuto || kind > NoiseNCNM {
		return "", nil, nil, fmt.Errorf("multitask: unknown noise model %v", kind)
	}
	name, coded = kind.String(), y
	switch kind {
	case NoiseProbit:
		ls := make([]float64, 0, 2)
		for v := range distinct {
			ls = append(ls, v)
		}
		slices.Sort(ls)
		if len(ls) != 2 {
			return "", nil, nil, fmt.Errorf(
				"multitask: probit needs exactly two distinct labels, found %d", len(ls))
		}
		if ls[0] != -1 || ls[1] != 1 {
			labels, coded = ls, make([]float64, len(y))
			for i, v := range y {
				coded[i] = -1
				if v == ls[1] {
					coded[i] = 1
				}
			}
		}
	case NoiseNCNM:
		coded = make([]float64, len(y))
		for i, v := range y {
			if !math.IsNaN(v) {
				coded[i] = v
			}
		}
	}
	return name, labels, coded, nil
}

// Dim is the number of inputs the model takes.
func (m *Model) Dim() int {
	if m.InputDim > 0 {
		return m.InputDim
	}
	for _, t := range m.Tasks {
		if t.Model != nil {
			_, d := t.Model.X.Dims()
			return d
		}
	}
	if s, ok := m.Kernel.(interface{ Dim() int }); ok {
		return s.Dim()
	}
	return 0
}

// Classes returns the class labels of a classifier, as in the training data, in the order
// of a prediction's Prob; nil for regression.
func (m *Model) Classes() []float64 {
	if len(m.Tasks) == 0 {
		return nil
	}
	cs := m.Tasks[0].Noise.Classes()
	if cs == nil {
		return nil
	}
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = m.decode(c)
	}
	return out
}

// decode maps a predicted −1 or +1 back to the training data's labels.
func (m *Model) decode(v float64) float64 {
	if len(m.Labels) != 2 {
		return v
	}
	if v > 0 {
		return m.Labels[1]
	}
	return m.Labels[0]
}

// Predict predicts row i of x with the model of the task named task[i]: the label in the
// training data's labels (regression: the predictive mean), the class probabilities in the
// order of Classes, and the predictive mean and variance (classification: the latent mean
// with the noise model's bias, and the latent variance).
func (m *Model) Predict(x *mat.Dense, task []string) ([]noise.Prediction, error) {
	preds, _, _, err := m.PredictLatent(x, task)
	return preds, err
}

// PredictLatent is Predict that also returns every row's latent posterior mean and variance
// (the Gaussian process's, without the noise model's bias).
func (m *Model) PredictLatent(x *mat.Dense, task []string) (preds []noise.Prediction, mu,
	vs []float64, err error) {
	if x == nil {
		return nil, nil, nil, errors.New("multitask: Predict needs inputs")
	}
	n, dim := x.Dims()
	if len(task) != n {
		return nil, nil, nil, fmt.Errorf("multitask: %d input rows and %d task names", n, len(task))
	}
	if want := m.Dim(); dim != want {
		return nil, nil, nil, fmt.Errorf("multitask: %d input columns, the model takes %d",
			dim, want)
	}
	rowsOf := make([][]int, len(m.Tasks))
	for i, name := range task {
		ti := m.TaskIndex(name)
		if ti < 0 {
			return nil, nil, nil,
				fmt.Errorf("multitask: row %d: task %q is not in the model", i+1, name)
		}
		rowsOf[ti] = append(rowsOf[ti], i)
	}
	preds = make([]noise.Prediction, n)
	mu, vs = make([]float64, n), make([]float64, n)
	for ti, rows := range rowsOf {
		if len(rows) == 0 {
			continue
		}
		xt := mat.NewDense(len(rows), dim, nil)
		for k, i := range rows {
			xt.SetRow(k, x.RawRowView(i))
		}
		tm, tv, err := m.Latent(ti, xt)
		if err != nil {
			return nil, nil, nil, err
		}
		for k, i := range rows {
			mu[i], vs[i] = tm[k], tv[k]
			m.Tasks[ti].Noise.Predict(&preds[i], tm[k], tv[k])
			preds[i].Label = m.decode(preds[i].Label)
		}
	}
	return preds, mu, vs, nil
}
