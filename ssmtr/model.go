package ssmtr

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/safestat"
	"github.com/ivmlab/ivm/optimize"
)

// Model is a fitted multi-task regressor.
type Model struct {
	Method  Method
	Kernel  string // kern spec with the starting values
	Dim     int
	Targets Scaling
	Graph   GraphOptions
	// Tasks holds one fitted GP per training task, in order.
	Tasks []*TaskModel
	// Prior is the learnt common prior (nil for SSTR). It is all that inductive inference
	// for a new task needs (paper §2.2).
	Prior *Prior
	// Objective is the final regularised negative log-likelihood J (SSTR: Σ_i F_i).
	Objective float64
	Trace     []OuterStep
	Stats     Stats
}

// Predict writes task t's predictive mean (and, if variance is not nil, the latent
// variance) at the rows of x, in the targets' units.
func (m *Model) Predict(t int, x *mat.Dense, mean, variance []float64) error {
	if t < 0 || t >= len(m.Tasks) {
		return fmt.Errorf("ssmtr: task %d out of range (model has %d)", t, len(m.Tasks))
	}
	return m.Tasks[t].Predict(x, mean, variance)
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
	Targets                 Scaling
	PooledMean, PooledScale float64
	// Sigma and Epsilon are the learnt shared noise levels (standardised units): the
	// starting values of a new task's maximum-likelihood estimates.
	Sigma, Epsilon float64
	// AlphaPrior says whether ln α is the last dimension of the prior (Options.AlphaPrior).
	// Without it a new task's α is a maximum-likelihood estimate started at Alpha, the
	// geometric mean of the training tasks' α_i.
	AlphaPrior bool
	Alpha      float64
}

// FitTask fits a new task under the prior (paper §2.2): its kernel parameters (and α, with
// AlphaPrior) by MAP under N(m_θ, Σ_θ), its noise level σ (α without AlphaPrior; ε, when
// it has constraints) by maximum likelihood. The training tasks' data are not needed.
// innerIters bounds the optimiser (0: 100).
func (p *Prior) FitTask(t Task, innerIters int) (*TaskModel, error) {
	dim, err := checkTasks([]Task{t})
	if err != nil {
		return nil, err
	}
	if dim != p.Dim {
		return nil, fmt.Errorf("ssmtr: new task has %d inputs, the prior's tasks %d", dim, p.Dim)
	}
	mean, scale := p.PooledMean, p.PooledScale
	switch p.Targets {
	case None:
		mean, scale = 0, 1
	case PerTask:
		if mu, sd := safestat.MeanSD(t.Y, 1); sd > 0 {
			mean, scale = mu, sd
		} else {
			mean = mu
		}
	}
	opt := Options{Method: p.Method, Graph: p.Graph, InnerIters: innerIters, AlphaPrior: p.AlphaPrior}.withDefaults()
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
			return nil, fmt.Errorf("ssmtr: prior has no starting α for a new task (Alpha = %v)", p.Alpha)
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
	res, err := optimize.Minimize(obj, z, optimize.Options{Method: opt.Optimizer, MaxIter: opt.InnerIters})
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

	kernel interface {
		K(dst *mat.Dense, x1, x2 mat.Matrix)
		Diag(dst []float64, x mat.Matrix)
	}
	x    *mat.Dense
	w    []float64
	amat *mat.Dense
}

// Predict writes the predictive mean at the rows of x into mean (len = rows) and, if
// variance is not nil, the latent function's variance (without the noise σ²·Scale²).
func (tm *TaskModel) Predict(x *mat.Dense, mean, variance []float64) error {
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
	tm := &TaskModel{Theta: h.theta, Sigma: math.Sqrt(h.sigma2), Mean: mean, Scale: scale, kernel: t.k}
	if method.graph() && t.r != nil {
		tm.Alpha = h.alpha
	}
	if method == SSMTRPI {
		tm.Epsilon = h.eps
		v, mode, err := t.laplace(h, true, nil)
		if err != nil {
			return nil, err
		}
		tm.NegLogEvidence = v
		ks := mode.ks
		n := t.n
		tm.x = t.x
		s, err := ks.applyS(mat.NewDense(n, 1, append([]float64(nil), mode.a...)))
		if err != nil {
			return nil, err
		}
		tm.w = s.RawMatrix().Data
		// A = αP + (SV) B⁻¹ (SV)ᵀ.
		k := len(mode.cols)
		vd := mat.NewDense(n, k, nil)
		for c, col := range mode.cols {
			for p, i := range col.idx {
				vd.Set(i, c, col.val[p])
			}
		}
		sv, err := ks.applyS(vd)
		if err != nil {
			return nil, err
		}
		var binv mat.SymDense
		if err := solved(mode.bch.InverseTo(&binv)); err != nil {
			return nil, err
		}
		tmp := mat.NewDense(n, k, nil)
		tmp.Mul(sv, &binv)
		tm.amat = mat.NewDense(n, n, nil)
		tm.amat.Mul(tmp, sv.T())
		return tm, addAlphaP(tm.amat, ks)
	}
	withGraph := method.graph()
	ks, err := t.newKernelStage(h, withGraph, false)
	if err != nil {
		return nil, err
	}
	v, err := t.exact(h, withGraph, nil)
	if err != nil {
		return nil, err
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
			return nil, err
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
		return nil, errors.New("ssmtr: K̃ + σ²I is not positive definite at the fitted parameters")
	}
	var cinv mat.SymDense
	if err := ch.InverseTo(&cinv); err != nil {
		return nil, err
	}
	beta := mat.NewVecDense(l, nil)
	beta.MulVec(&cinv, mat.NewVecDense(l, t.y))
	if sl == nil {
		tm.w = beta.RawVector().Data
		tm.amat = mat.NewDense(l, l, nil)
		tm.amat.Copy(&cinv)
		return tm, nil
	}
	n := t.n
	w := mat.NewVecDense(n, nil)
	w.MulVec(sl, beta)
	tm.w = w.RawVector().Data
	tmp := mat.NewDense(n, l, nil)
	tmp.Mul(sl, &cinv)
	tm.amat = mat.NewDense(n, n, nil)
	tm.amat.Mul(tmp, sl.T())
	return tm, addAlphaP(tm.amat, ks)
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
	if err := solved(ks.chol.SolveTo(z, r.T())); err != nil {
		return err
	}
	p := mat.NewDense(n, n, nil)
	p.Mul(r, z)
	p.Scale(ks.alpha, p)
	a.Add(a, p)
	return nil
}
