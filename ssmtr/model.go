package ssmtr

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/internal/safestat"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/optimize"
)

// Model is a fitted multi-task regressor.
type Model struct {
	Method Method
	Kernel string // kern spec with the starting values
	Dim    int
	// Names are the tasks' names, in the order of Tasks.
	Names []string
	// Scaling is the input scaling Fit did and Scaler its fit (nil for ScaleNone):
	// Predict applies it to new rows.
	Scaling dataset.Scaling
	Scaler  *dataset.Scaler
	Targets TargetScaling
	Graph   GraphOptions
	// Tasks holds one fitted GP per training task, in order.
	Tasks []*TaskModel
	// Prior is the learnt common prior (nil for SSTR). It is all that inductive inference
	// for a new task needs (paper §2.2; AddTask).
	Prior *Prior
	// Objective is the final regularised negative log-likelihood J (SSTR: Σ_i F_i).
	Objective float64
	Trace     []OuterStep
	Stats     Stats
	// Training describes the training data (filled by the command line; saved).
	Training dataset.Provenance
}

// Predict returns the predictive distribution of y at each row of x (in the units Fit
// was given) for the task named by task[r]: Label and Mean are the predictive mean, Var the
// variance of the latent function plus the noise σ², in the targets' units. Rows need not
// be training rows: the data-dependent kernel of eq. 6 is a kernel function, so new rows
// outside the graph are predicted inductively with the fitted graph held fixed.
func (m *Model) Predict(x *mat.Dense, task []string) ([]noise.Prediction, error) {
	if x == nil {
		return nil, errors.New("ssmtr: no inputs to predict")
	}
	n, d := x.Dims()
	if d != m.Dim {
		return nil, fmt.Errorf("ssmtr: %d input columns, the model takes %d", d, m.Dim)
	}
	if len(task) != n {
		return nil, fmt.Errorf("ssmtr: %d rows but %d task names", n, len(task))
	}
	xs, err := m.Scaler.Apply(x)
	if err != nil {
		return nil, fmt.Errorf("ssmtr: prediction inputs: %w", err)
	}
	index := make(map[string]int, len(m.Names))
	for k, name := range m.Names {
		index[name] = k
	}
	byTask := map[int][]int{}
	var order []int
	for r, name := range task {
		k, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("ssmtr: row %d: task %q is not one of the model's %d tasks",
				r+1, name, len(m.Names))
		}
		if byTask[k] == nil {
			order = append(order, k)
		}
		byTask[k] = append(byTask[k], r)
	}
	out := make([]noise.Prediction, n)
	for _, k := range order {
		rows := byTask[k]
		mean, latent := make([]float64, len(rows)), make([]float64, len(rows))
		if err := m.Tasks[k].predict(dataset.RowsOf(xs, rows), mean, latent); err != nil {
			return nil, fmt.Errorf("ssmtr: task %q: %w", m.Names[k], err)
		}
		tm := m.Tasks[k]
		for i, r := range rows {
			v := latent[i] + tm.Scale*tm.Scale*tm.Sigma*tm.Sigma
			out[r] = noise.Prediction{Label: mean[i], Mean: mean[i], Var: v}
		}
	}
	return out, nil
}

// AddTask fits a new task named name under the learnt prior (paper §2.2) and adds it to
// the model: x holds its inputs in Fit's units, y its targets (NaN: unlabelled, used by the
// graph of SSMTR and SSMTRPI). The training tasks' data are not needed. innerIters bounds
// the optimiser (0: 100).
func (m *Model) AddTask(name string, x *mat.Dense, y []float64, innerIters int) error {
	if m.Prior == nil {
		return fmt.Errorf("ssmtr: a %v model has no common prior to fit a new task under", m.Method)
	}
	for _, n := range m.Names {
		if n == name {
			return fmt.Errorf("ssmtr: the model has a task %q already", name)
		}
	}
	if x == nil {
		return errors.New("ssmtr: no inputs")
	}
	xs, err := m.Scaler.Apply(x)
	if err != nil {
		return fmt.Errorf("ssmtr: new task's inputs: %w", err)
	}
	task := make([]string, len(y))
	for i := range task {
		task[i] = name
	}
	sp, err := splitRows(xs, y, task)
	if err != nil {
		return err
	}
	tm, err := m.Prior.fitTask(sp.tasks[0], innerIters)
	if err != nil {
		return err
	}
	m.Names, m.Tasks = append(m.Names, name), append(m.Tasks, tm)
	return nil
}

// Prior is the common Gaussian prior N(m_θ, Σ_θ) of the tasks' log kernel parameters
// (and ln α for SSMTR/SSMTRPI when AlphaPrior), with what is needed to fit a new task
// under it.
type Prior struct {
	Names []string
	Mean  []float64
	Cov   *mat.SymDense
	// Kernel, Dim, Method, Graph and Targets describe the models the prior belongs to;
	// PooledMean and PooledScale standardise a new task's targets under Pooled scaling.
	Kernel                  string
	Dim                     int
	Method                  Method
	Graph                   GraphOptions
	Targets                 TargetScaling
	PooledMean, PooledScale float64
	// Sigma and Epsilon are the learnt shared noise levels (standardised units): the
	// starting values of a new task's maximum-likelihood estimates.
	Sigma, Epsilon float64
	// AlphaPrior says whether ln α is the last dimension of the prior (Config.AlphaPrior).
	// Without it a new task's α is a maximum-likelihood estimate started at Alpha, the
	// geometric mean of the training tasks' α_i.
	AlphaPrior bool
	Alpha      float64
}

// fitTask fits a new task under the prior (paper §2.2): its kernel parameters (and α, with
// AlphaPrior) by MAP under N(m_θ, Σ_θ), its noise level σ (α without AlphaPrior; ε, when
// it has constraints) by maximum likelihood.
func (p *Prior) fitTask(t taskData, innerIters int) (*TaskModel, error) {
	dim, err := checkTasks([]taskData{t})
	if err != nil {
		return nil, err
	}
	if dim != p.Dim {
		return nil, fmt.Errorf("ssmtr: new task has %d inputs, the prior's tasks %d", dim, p.Dim)
	}
	mean, scale := p.PooledMean, p.PooledScale
	switch p.Targets {
	case Unscaled:
		mean, scale = 0, 1
	case PerTask:
		if mu, sd := safestat.MeanSD(t.Y, 1); sd > 0 {
			mean, scale = mu, sd
		} else {
			mean = mu
		}
	}
	opt := Config{Method: p.Method, Graph: p.Graph, InnerIters: innerIters,
		AlphaPrior: p.AlphaPrior}.withDefaults()
	np := len(p.Mean) - btoi(p.Method.graph() && p.AlphaPrior)
	init := make([]float64, np)
	for i := range init {
		init[i] = math.Exp(p.Mean[i])
	}
	tk, err := newTask(t, 0, opt, p.Kernel, init, mean, scale)
	if err != nil {
		return nil, err
	}
	fr := &fitter{ts: []*task{tk}, opt: opt, p: tk.p, stats: &Stats{}, mean: p.Mean, cov: p.Cov}
	if err := fr.invertCov(); err != nil {
		return nil, err
	}
	lay := fr.layout()
	hasEps := lay.eps >= 0 && len(tk.cons) > 0
	z := make([]float64, lay.len)
	copy(z, p.Mean)
	if lay.alpha && !p.AlphaPrior {
		if !(p.Alpha > 0) {
			return nil, fmt.Errorf("ssmtr: prior has no starting α for a new task (Alpha = %v)",
				p.Alpha)
		}
		z[lay.p] = math.Log(p.Alpha)
	}
	z[lay.sigma(0)] = math.Log(p.Sigma)
	if lay.eps >= 0 {
		z[lay.eps] = math.Log(p.Epsilon)
	}
	obj := func(x, grad []float64) float64 {
		if grad != nil {
			clear(grad)
		}
		if outside(x) {
			return math.NaN()
		}
		v, err := fr.evalTask(lay, x, 0, grad)
		if err != nil {
			return math.NaN()
		}
		if grad != nil && lay.eps >= 0 && !hasEps {
			grad[lay.eps] = 0
		}
		return v + fr.priorTerm(lay, x, grad)
	}
	res, err := optimize.Minimize(obj, z, optimize.Options{Method: opt.Optimizer.String(),
		MaxIter: opt.InnerIters})
	if err != nil {
		return nil, fmt.Errorf("ssmtr: new task: %w", err)
	}
	return tk.finish(lay.hyper(res.X, 0), p.Method, mean, scale)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TaskModel is one task's fitted GP. Its predictive mean at x is k(x, X)·w and its
// latent variance k(x, x) − k(x, X) A k(X, x), with k the base kernel and X the task's
// training rows: the data-dependent kernel of eq. 6 and the posterior are folded into w
// and A, so transductive (unlabelled) and inductive (new) points are predicted alike.
type TaskModel struct {
	// Theta holds the natural kernel parameters (kern order), Alpha the graph weight
	// (0 without a graph), Sigma and Epsilon the noise levels in standardised units.
	Theta                 []float64
	Alpha, Sigma, Epsilon float64
	// Mean and Scale standardised the targets: y = Mean + Scale·f.
	Mean, Scale float64
	// NegLogEvidence is the task's −ln p(y | hyperparameters) (Laplace approximation for
	// SSMTRPI).
	NegLogEvidence float64
	// Condition is the condition number gonum reported for the matrix factorised for the
	// posterior when it warned that the matrix is ill-conditioned (0: no warning). The
	// result of such a solve is still used, as the root package does with its active-set
	// matrix; the predictive weights are checked for finiteness.
	Condition float64

	kernel *kern.Sum
	// x holds the task's training rows (scaled): the labelled ones, then with a graph the
	// unlabelled ones. w and amat are the posterior's weights and the symmetric A.
	x    *mat.Dense
	w    []float64
	amat *mat.Dense
}

// Rows returns the number of training rows the task's predictions are built on: its
// labelled rows, and with a graph its unlabelled ones.
func (tm *TaskModel) Rows() int {
	n, _ := tm.x.Dims()
	return n
}

// predict writes the predictive mean at the rows of x (scaled inputs) into mean and, if
// variance is not nil, the latent function's variance (without the noise σ²·Scale²), both
// in the targets' units.
func (tm *TaskModel) predict(x *mat.Dense, mean, variance []float64) error {
	nt, d := x.Dims()
	if _, dx := tm.x.Dims(); d != dx {
		return fmt.Errorf("ssmtr: inputs have %d columns, the task %d", d, dx)
	}
	if len(mean) != nt || (variance != nil && len(variance) != nt) {
		return fmt.Errorf("ssmtr: %d rows but output lengths %d/%d", nt, len(mean), len(variance))
	}
	if err := finite(x); err != nil {
		return fmt.Errorf("ssmtr: prediction inputs: %v", err)
	}
	n, _ := tm.x.Dims()
	ks := mat.NewDense(nt, n, nil)
	tm.kernel.K(ks, x, tm.x)
	mv := mat.NewVecDense(nt, mean)
	mv.MulVec(ks, mat.NewVecDense(n, tm.w))
	for i := range mean {
		mean[i] = tm.Mean + tm.Scale*mean[i]
	}
	if variance == nil {
		return nil
	}
	tm.kernel.Diag(variance, x)
	ka := mat.NewDense(nt, n, nil)
	ka.Mul(ks, tm.amat)
	for i := 0; i < nt; i++ {
		v := variance[i] - floats(ka.RawRowView(i), ks.RawRowView(i))
		variance[i] = tm.Scale * tm.Scale * math.Max(v, 0)
	}
	return nil
}

// finish computes the predictive weights of a fitted task.
func (t *task) finish(h hyper, method Method, mean, scale float64) (*TaskModel, error) {
	tm := &TaskModel{Theta: h.theta, Sigma: math.Sqrt(h.sigma2), Mean: mean, Scale: scale,
		kernel: t.k}
	if err := t.posterior(tm, h, method); err != nil {
		return nil, err
	}
	symmetrise(tm.amat)
	for i, v := range tm.w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("ssmtr: predictive weight %d is %v (condition number %g)", i, v,
				tm.Condition)
		}
	}
	return tm, nil
}

// symmetrise sets a to (a + aᵀ)/2: A is symmetric in exact arithmetic, and a model file
// keeps one triangle of it.
func symmetrise(a *mat.Dense) {
	n, _ := a.Dims()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := 0.5 * (a.At(i, j) + a.At(j, i))
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
	}
}

// posterior computes tm's predictive weights w and matrix A at the fitted h.
func (t *task) posterior(tm *TaskModel, h hyper, method Method) error {
	if method.graph() && t.r != nil {
		tm.Alpha = h.alpha
	}
	if method == SSMTRPI {
		tm.Epsilon = h.eps
		v, mode, err := t.laplace(h, true, nil)
		if err != nil {
			return err
		}
		tm.NegLogEvidence = v
		ks := mode.ks
		n := t.n
		tm.x = t.x
		s, err := ks.applyS(mat.NewDense(n, 1, append([]float64(nil), mode.a...)))
		if err != nil {
			return err
		}
		tm.w = s.RawMatrix().Data
		// A = αP + (SV) B⁻¹ (SV)ᵀ.
		k := len(mode.cols)
		vd := mat.NewDense(n, k, nil)
		for c, col := range mode.cols {
			for p, i := range col.Idx {
				vd.Set(i, c, col.Val[p])
			}
		}
		sv, err := ks.applyS(vd)
		if err != nil {
			return err
		}
		var binv mat.SymDense
		if err := tm.warned(mode.bch.InverseTo(&binv)); err != nil {
			return err
		}
		tmp := mat.NewDense(n, k, nil)
		tmp.Mul(sv, &binv)
		tm.amat = mat.NewDense(n, n, nil)
		tm.amat.Mul(tmp, sv.T())
		return addAlphaP(tm.amat, ks)
	}
	withGraph := method.graph()
	ks, err := t.newKernelStage(h, withGraph, false)
	if err != nil {
		return err
	}
	v, err := t.exact(h, withGraph, nil)
	if err != nil {
		return err
	}
	tm.NegLogEvidence = v
	l := t.l
	var kl *mat.Dense // K̃_LL
	var sl *mat.Dense // S[:, L]
	if ks.graph() {
		n := t.n
		e := mat.NewDense(n, l, nil)
		for i := 0; i < l; i++ {
			e.Set(i, i, 1)
		}
		if sl, err = ks.applyS(e); err != nil {
			return err
		}
		kl = mat.NewDense(l, l, nil)
		kl.Mul(ks.kmat.Slice(0, l, 0, n), sl)
		tm.x = t.x
	} else {
		kl = ks.kmat
		tm.x = ks.xs
	}
	c := mat.NewSymDense(l, nil)
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			c.SetSym(i, j, 0.5*(kl.At(i, j)+kl.At(j, i)))
		}
		c.SetSym(i, i, c.At(i, i)+h.sigma2)
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		return errors.New("ssmtr: K̃ + σ²I is not positive definite at the fitted parameters")
	}
	var cinv mat.SymDense
	if err := tm.warned(ch.InverseTo(&cinv)); err != nil {
		return fmt.Errorf("ssmtr: inverting K̃ + σ²I: %w", err)
	}
	beta := mat.NewVecDense(l, nil)
	beta.MulVec(&cinv, mat.NewVecDense(l, t.y))
	if sl == nil {
		tm.w = beta.RawVector().Data
		tm.amat = mat.NewDense(l, l, nil)
		tm.amat.Copy(&cinv)
		return nil
	}
	n := t.n
	w := mat.NewVecDense(n, nil)
	w.MulVec(sl, beta)
	tm.w = w.RawVector().Data
	tmp := mat.NewDense(n, l, nil)
	tmp.Mul(sl, &cinv)
	tm.amat = mat.NewDense(n, n, nil)
	tm.amat.Mul(tmp, sl.T())
	return addAlphaP(tm.amat, ks)
}

// warned records a mat.Condition warning in tm.Condition and passes on any other error.
func (tm *TaskModel) warned(err error) error {
	var c mat.Condition
	if errors.As(err, &c) {
		tm.Condition = math.Max(tm.Condition, float64(c))
		return nil
	}
	return err
}

// addAlphaP adds αP = α R M⁻¹ Rᵀ to a (nothing without a graph): the reduction of the prior
// variance k̃(x, x) = k(x, x) − α k_xᵀ P k_x of eq. 6.
func addAlphaP(a *mat.Dense, ks *kernelStage) error {
	if !ks.graph() {
		return nil
	}
	r := ks.t.r
	n, rr := r.Dims()
	z := mat.NewDense(rr, n, nil)
	if err := infer.Solved(ks.chol.SolveTo(z, r.T())); err != nil {
		return err
	}
	p := mat.NewDense(n, n, nil)
	p.Mul(r, z)
	p.Scale(ks.alpha, p)
	a.Add(a, p)
	return nil
}
