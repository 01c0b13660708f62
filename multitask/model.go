package multitask

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// TaskModel is one task of a trained multi-task model.
type TaskModel struct {
	// Name is the task's label.
	Name string
	// Noise is the task's noise model (with its own start-up parameters, such as the bias).
	Noise noise.Model
	// Model predicts from the task's active set and its sites; nil when the task has no
	// active point (it then predicts with the prior).
	Model *TaskGP
	// Rows are the file rows of the task's active points, in the task's inclusion order
	// (Task.Rows mapped; the task's own row numbers without them).
	Rows []int
}

// Model is a trained multi-task IVM: the shared kernel and one model per task.
// The per-task models are factorised for the kernel's parameters when the Model is made;
// do not change the kernel's parameters afterwards.
type Model struct {
	Kernel kern.Kernel
	Tasks  []TaskModel
	// Steps lists every inclusion in order (Task indexes Tasks, Index is the row within
	// the task).
	Steps []Step
	// Scaler, when not nil, maps inputs to the scale the model was trained on: the tasks'
	// inputs were scaled by it, the active inputs are stored scaled, and Latent and Predict
	// scale the inputs they are given. Selector.Model leaves it nil (the selector sees
	// the tasks' inputs as they are); whoever scaled the tasks sets it.
	Scaler *dataset.Scaler
	// InputDim is the number of inputs, as a model file declares it (0 for a model built
	// in memory, whose inputs are the tasks').
	InputDim int
	// ModelMeta holds the labels, the provenance and the learning trace, which Save writes
	// beside the model.
	ModelMeta
}

// Model returns the trained model of the current active sets: for every task, its active
// inputs and the sites of its inclusions (engine.Inclusion's SiteM, SiteBeta and FactorBeta).
func (s *Selector) Model() (*Model, error) {
	out := &Model{Kernel: s.Kernel, Tasks: make([]TaskModel, len(s.Tasks)),
		Steps: append([]Step(nil), s.steps...)}
	err := s.parallel(func(m int) error {
		t := s.Tasks[m]
		tm := TaskModel{Name: t.Name, Noise: t.Noise}
		steps := s.sels[m].Steps()
		if d := len(steps); d > 0 {
			_, dim := t.X.Dims()
			x := mat.NewDense(d, dim, nil)
			sm, sb, fb := make([]float64, d), make([]float64, d), make([]float64, d)
			for k, st := range steps {
				x.SetRow(k, t.X.RawRowView(st.Index))
				sm[k], sb[k], fb[k] = st.SiteM, st.SiteBeta, st.FactorBeta
				tm.Rows = append(tm.Rows, s.row(m, st.Index))
			}
			g, err := NewSiteModel(s.Kernel, t.Noise, x, sm, sb, fb)
			if err != nil {
				return fmt.Errorf("multitask: task %q: %w", t.Name, err)
			}
			tm.Model = g
		}
		out.Tasks[m] = tm
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TaskIndex returns the index of the task with the given name, −1 if there is none.
func (m *Model) TaskIndex(name string) int {
	for i, t := range m.Tasks {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// Size is the number of active points over all tasks.
func (m *Model) Size() int {
	n := 0
	for _, t := range m.Tasks {
		if t.Model != nil {
			n += t.Model.Size()
		}
	}
	return n
}

// Latent returns the latent posterior mean and variance of task `task` at the rows of x,
// given in the training data's units (the prior, μ = 0 and ς = k(x, x), for a task without
// active points).
func (m *Model) Latent(task int, x mat.Matrix) (mu, varsigma []float64, err error) {
	if task < 0 || task >= len(m.Tasks) {
		return nil, nil, fmt.Errorf("multitask: task %d out of range [0, %d)", task, len(m.Tasks))
	}
	if m.Scaler != nil {
		xs, err := m.Scaler.Apply(x)
		if err != nil {
			return nil, nil, fmt.Errorf("multitask: %w", err)
		}
		x = xs
	}
	if tm := m.Tasks[task].Model; tm != nil {
		return tm.Latent(x)
	}
	r, _ := x.Dims()
	mu, varsigma = make([]float64, r), make([]float64, r)
	m.Kernel.Diag(varsigma, x)
	return mu, varsigma, nil
}

// PredictTask returns task `task`'s noise model's predictions at the rows of x, with the
// labels in the model's coding (−1 and +1 for binary tasks; Predict decodes them).
func (m *Model) PredictTask(task int, x mat.Matrix) ([]noise.Prediction, error) {
	mu, vs, err := m.Latent(task, x)
	if err != nil {
		return nil, err
	}
	out := make([]noise.Prediction, len(mu))
	for i := range out {
		m.Tasks[task].Noise.Predict(&out[i], mu[i], vs[i])
	}
	return out, nil
}

// TaskGP is a Gaussian-process model of one task from the sites of its points: a training task's
// active set with the sites of its inclusions (NewSiteModel), or a new task fitted on all its (few)
// points with a given kernel, the sites fitted by expectation propagation (NewTaskModel; the first
// sweep is assumed-density filtering, so no point is favoured by its place in an inclusion order).
// It works through B = I + S^½ K S^½, which stays well conditioned when a learnt kernel is nearly
// singular on the points (for example a noise-free linear kernel on separable classes), where K +
// S⁻¹ is not.
type TaskGP struct {
	Kernel kern.Kernel
	Noise  noise.Model
	// X holds the task's points (the active inputs of a training task).
	X *mat.Dense
	// SiteM and SiteBeta are the sites' means and precisions; FactorBeta the precisions the
	// posterior uses, equal to SiteBeta except where the engine replaced a negative
	// precision (engine.NegativeSitePrecision).
	SiteM, SiteBeta, FactorBeta []float64
	ep                          *infer.EP
	// Unconverged reports that EP stopped at its sweep limit (the sites are still used).
	Unconverged bool
}

// NewSiteModel makes the model of a task from its active inputs x and the sites of their
// inclusions (factorBeta nil: the site precisions), with the kernel and noise model given.
func NewSiteModel(k kern.Kernel, nm noise.Model, x *mat.Dense, siteM, siteBeta,
	factorBeta []float64) (*TaskGP, error) {
	if x == nil || k == nil || nm == nil {
		return nil, errors.New("multitask: NewSiteModel needs points, a kernel and a noise model")
	}
	n, _ := x.Dims()
	if factorBeta == nil {
		factorBeta = siteBeta
	}
	if len(siteM) != n || len(siteBeta) != n || len(factorBeta) != n {
		return nil, fmt.Errorf(
			"multitask: %d points, %d site means, %d site precisions, %d factor precisions",
			n, len(siteM), len(siteBeta), len(factorBeta))
	}
	for i := range siteM {
		if bad(siteM[i]) || bad(siteBeta[i]) || bad(factorBeta[i]) || !(factorBeta[i] > 0) {
			return nil, fmt.Errorf(
				"multitask: point %d has site mean %v, precision %v, factor precision %v",
				i, siteM[i], siteBeta[i], factorBeta[i])
		}
	}
	e := infer.NewEP(nm, make([]float64, n), make([]int, n))
	copy(e.M, siteM)
	copy(e.Beta, factorBeta)
	setKernel(e, k, x)
	if err := e.Refresh(); err != nil {
		return nil, err
	}
	return &TaskGP{Kernel: k, Noise: nm, X: x, SiteM: append([]float64(nil), siteM...),
		SiteBeta:   append([]float64(nil), siteBeta...),
		FactorBeta: append([]float64(nil), factorBeta...), ep: e}, nil
}

// setKernel writes K(x, x) into the EP state.
func setKernel(e *infer.EP, k kern.Kernel, x *mat.Dense) {
	n, _ := x.Dims()
	kd := mat.NewDense(n, n, nil)
	k.K(kd, x, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			e.K.SetSym(i, j, kd.At(i, j))
		}
	}
}

// Size is the number of points the model holds.
func (g *TaskGP) Size() int { return len(g.SiteM) }

// NewTaskModel fits a model for a new task from its points x, y with a learnt kernel k (not
// changed) and noise model nm (its Init sets the start-up parameters from y). This is the
// speaker experiment's protocol: the kernel learnt from the training tasks, a handful of the
// new task's points.
func NewTaskModel(k kern.Kernel, x *mat.Dense, y []float64, nm noise.Model) (*TaskGP, error) {
	if x == nil || k == nil || nm == nil {
		return nil, errors.New("multitask: NewTaskModel needs points, a kernel and a noise model")
	}
	n, _ := x.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("multitask: %d targets for %d points", len(y), n)
	}
	if err := nm.Init(y); err != nil {
		return nil, err
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	e := infer.NewEP(nm, y, idx)
	if ex, ok := nm.(noise.ExactSite); ok {
		for i := range idx {
			e.M[i], e.Beta[i] = ex.Site(i, y[i])
		}
	}
	setKernel(e, k, x)
	g := &TaskGP{Kernel: k, Noise: nm, X: x, ep: e}
	if _, err := e.Run(); err != nil {
		if !errors.Is(err, infer.ErrNotConverged) {
			return nil, err
		}
		g.Unconverged = true
	}
	g.SiteM, g.SiteBeta = e.M, e.Beta
	g.FactorBeta = e.Beta
	return g, nil
}

// Latent returns the latent posterior mean μ* = k*ᵀα and variance ς* = k(x*, x*) −
// ‖L⁻¹S^½k*‖² at each row of x (the prior diagonal includes white noise and bias, as for
// engine.Model).
func (g *TaskGP) Latent(x mat.Matrix) (mu, varsigma []float64, err error) {
	r, _ := x.Dims()
	n, _ := g.X.Dims()
	ks := mat.NewDense(n, r, nil)
	g.Kernel.K(ks, g.X, x)
	mu, varsigma = make([]float64, r), make([]float64, r)
	mat.NewVecDense(r, mu).MulVec(ks.T(), mat.NewVecDense(n, g.ep.Alpha()))
	g.Kernel.Diag(varsigma, x)
	for i := 0; i < n; i++ {
		row := ks.RawRowView(i)
		for j := range row {
			row[j] *= math.Sqrt(g.ep.Beta[i])
		}
	}
	var v mat.Dense
	if err := v.Solve(g.ep.L(), ks); err != nil {
		// L has a unit-bounded inverse (B ⪰ I): only non-finite inputs get here.
		return nil, nil, fmt.Errorf("multitask: predicting: %w", err)
	}
	for j := 0; j < r; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			s += v.At(i, j) * v.At(i, j)
		}
		varsigma[j] = math.Max(varsigma[j]-s, 0)
		if bad(mu[j]) || bad(varsigma[j]) {
			return nil, nil, fmt.Errorf("multitask: prediction %d is not finite (μ %v, ς %v)",
				j, mu[j], varsigma[j])
		}
	}
	return mu, varsigma, nil
}

// Predict returns the noise model's predictions at the rows of x.
func (g *TaskGP) Predict(x mat.Matrix) ([]noise.Prediction, error) {
	mu, vs, err := g.Latent(x)
	if err != nil {
		return nil, err
	}
	out := make([]noise.Prediction, len(mu))
	for i := range out {
		g.Noise.Predict(&out[i], mu[i], vs[i])
	}
	return out, nil
}
