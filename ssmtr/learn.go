package ssmtr

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/optimize"
)

// Starting values of the noise levels, in standardised target units.
const (
	initSigma = 0.3
	initEps   = 0.3
	initAlpha = 1.0
)

// Stats counts the objective evaluations of a fit.
type Stats struct {
	Evaluations int
	// Failures counts evaluations rejected because a factorisation failed or the Laplace
	// mode was not found (the optimiser then shortens its step); LastFailure names the cause.
	Failures    int
	LastFailure string
}

// OuterStep records one alternation of the multi-task fit.
type OuterStep struct {
	// Objective is the regularised negative log-likelihood J after the prior update;
	// Data its likelihood part Σ_i F_i.
	Objective, Data float64
	// Iterations and Evaluations of the gradient phase.
	Iterations, Evaluations int
	// Reason the gradient phase ended.
	Reason string
}

// layout maps the optimiser's vector to the tasks' hyperparameters, all as logarithms.
// Multi-task: [ψ_1 … ψ_m, ln σ, (ln ε)], ψ_i = [ln θ_i, (ln α_i)], of which the first
// prior entries (ln θ_i, and ln α_i with Config.AlphaPrior) are under the common prior.
// SSTR: [ln θ_i, ln σ_i] per task, each optimised alone.
type layout struct {
	m, p, q  int
	alpha    bool
	perTask  bool
	prior    int
	eps, len int
}

func (f *fitter) layout() layout {
	m, p := len(f.ts), f.p
	if f.opt.Method == SSTR {
		return layout{m: m, p: p, q: p, perTask: true, eps: -1, len: m * (p + 1)}
	}
	q := p
	alpha := f.opt.Method.graph()
	if alpha {
		q++
	}
	lay := layout{m: m, p: p, q: q, alpha: alpha, prior: p, eps: -1, len: m*q + 1}
	if f.opt.AlphaPrior {
		lay.prior = q
	}
	if f.opt.Method == SSMTRPI {
		lay.eps = m*q + 1
		lay.len++
	}
	return lay
}

func (l layout) block(i int) int {
	if l.perTask {
		return i * (l.p + 1)
	}
	return i * l.q
}

func (l layout) sigma(i int) int {
	if l.perTask {
		return i*(l.p+1) + l.p
	}
	return l.m * l.q
}

func (l layout) hyper(z []float64, i int) hyper {
	b := l.block(i)
	h := hyper{theta: make([]float64, l.p), sigma2: math.Exp(2 * z[l.sigma(i)]), eps: 1}
	for k := 0; k < l.p; k++ {
		h.theta[k] = math.Exp(z[b+k])
	}
	if l.alpha {
		h.alpha = math.Exp(z[b+l.p])
	}
	if l.eps >= 0 {
		h.eps = math.Exp(z[l.eps])
	}
	return h
}

// fitter runs the optimisation.
type fitter struct {
	ts    []*task
	opt   Config
	p     int
	stats *Stats
	mu    sync.Mutex

	mean   []float64     // m_θ
	cov    *mat.SymDense // Σ_θ
	covInv *mat.SymDense
	last   float64
}

// evalTask evaluates task i's negative log evidence and adds its gradient (in the layout's
// order) to grad when grad is not nil.
func (f *fitter) evalTask(lay layout, z []float64, i int, grad []float64) (float64, error) {
	t := f.ts[i]
	h := lay.hyper(z, i)
	var g *hgrad
	if grad != nil {
		g = &hgrad{theta: make([]float64, lay.p)}
	}
	var v float64
	var err error
	if f.opt.Method == SSMTRPI {
		v, _, err = t.laplace(h, true, g)
	} else {
		v, err = t.exact(h, f.opt.Method.graph(), g)
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		if err == nil {
			err = fmt.Errorf("ssmtr: task %d: evidence is %v", i, v)
		}
		return math.NaN(), err
	}
	if grad != nil {
		b := lay.block(i)
		for k := 0; k < lay.p; k++ {
			grad[b+k] += g.theta[k]
		}
		if lay.alpha {
			grad[b+lay.p] += g.alpha
		}
		grad[lay.sigma(i)] += g.sigma
		if lay.eps >= 0 {
			grad[lay.eps] += g.epsilo
		}
	}
	return v, nil
}

func (f *fitter) fail(err error) {
	f.mu.Lock()
	f.stats.Failures++
	f.stats.LastFailure = err.Error()
	f.mu.Unlock()
}

func (f *fitter) count() {
	f.mu.Lock()
	f.stats.Evaluations++
	f.mu.Unlock()
}

func outside(z []float64) bool {
	for _, v := range z {
		if math.IsNaN(v) || math.Abs(v) > maxLogParam {
			return true
		}
	}
	return false
}

// dataTerm evaluates Σ_i F_i in parallel, adding the gradient to grad when not nil.
func (f *fitter) dataTerm(lay layout, z, grad []float64) (float64, error) {
	m := len(f.ts)
	vals := make([]float64, m)
	var grads [][]float64
	if grad != nil {
		grads = make([][]float64, m)
	}
	if err := pool.ForEachErr(m, pool.Workers(f.opt.Workers), func(i int) (err error) {
		var g []float64
		if grad != nil {
			g = make([]float64, len(z))
			grads[i] = g
		}
		vals[i], err = f.evalTask(lay, z, i, g)
		return err
	}); err != nil {
		return math.NaN(), err
	}
	var sum float64
	for i := 0; i < m; i++ {
		sum += vals[i]
		if grad != nil {
			for k, v := range grads[i] {
				grad[k] += v
			}
		}
	}
	return sum, nil
}

// fitIndependent fits SSTR: every task alone by ML-II.
func (f *fitter) fitIndependent(init []float64) ([]float64, error) {
	lay := f.layout()
	z := make([]float64, lay.len)
	errs := make([]error, lay.m)
	parallelFor(lay.m, f.opt.Workers, func(i int) {
		b := lay.block(i)
		zi := make([]float64, lay.p+1)
		for k, v := range init {
			zi[k] = math.Log(v)
		}
		zi[lay.p] = math.Log(initSigma)
		one := layout{m: 1, p: lay.p, q: lay.p, perTask: true, eps: -1, len: lay.p + 1}
		sub := &fitter{ts: f.ts[i : i+1], opt: f.opt, p: f.p, stats: f.stats}
		obj := func(x, grad []float64) float64 {
			f.count()
			if grad != nil {
				clear(grad)
			}
			if outside(x) {
				return math.NaN()
			}
			v, err := sub.evalTask(one, x, 0, grad)
			if err != nil {
				f.fail(err)
			}
			return v
		}
		res, err := optimize.Minimize(obj, zi, optimize.Options{Method: f.opt.Optimizer.String(),
			MaxIter: f.opt.InnerIters})
		if err != nil {
			errs[i] = fmt.Errorf("ssmtr: task %d: %w", i, err)
			return
		}
		copy(z[b:b+lay.p+1], res.X)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	v, err := f.dataTerm(lay, z, nil)
	if err != nil {
		return nil, err
	}
	f.last = v
	return z, nil
}

// fitMultiTask alternates the gradient phase over all tasks' log-parameters and the shared
// noise levels, given (m_θ, Σ_θ), with the closed-form update of (m_θ, Σ_θ) (paper §2.1).
func (f *fitter) fitMultiTask(init []float64, trace *[]OuterStep) ([]float64, error) {
	lay := f.layout()
	z := make([]float64, lay.len)
	for i := 0; i < lay.m; i++ {
		b := lay.block(i)
		for k, v := range init {
			z[b+k] = math.Log(v)
		}
		if lay.alpha {
			z[b+lay.p] = math.Log(initAlpha)
		}
	}
	z[lay.sigma(0)] = math.Log(initSigma)
	if lay.eps >= 0 {
		z[lay.eps] = math.Log(initEps)
	}
	q := lay.prior
	// Before the first update the prior is N(ψ_0, s²I): broad, centred on the start.
	f.mean = append([]float64(nil), z[:q]...)
	f.cov = mat.NewSymDense(q, nil)
	for k := 0; k < q; k++ {
		f.cov.SetSym(k, k, f.opt.PriorScale)
	}
	if err := f.invertCov(); err != nil {
		return nil, err
	}
	prev := math.Inf(1)
	for it := 0; it < f.opt.OuterIters; it++ {
		obj := func(x, grad []float64) float64 {
			f.count()
			if grad != nil {
				clear(grad)
			}
			if outside(x) {
				return math.NaN()
			}
			v, err := f.dataTerm(lay, x, grad)
			if err != nil {
				f.fail(err)
				return math.NaN()
			}
			return v + f.profiledPriorTerm(lay, x, grad)
		}
		res, err := optimize.Minimize(obj, z, optimize.Options{Method: f.opt.Optimizer.String(),
			MaxIter: f.opt.InnerIters})
		if err != nil {
			why := "the kernel parameters or the targets may be far from unit scale; " +
				"standardise the inputs and targets or give -kernel parameters"
			if f.stats.LastFailure != "" {
				why = "the last failure: " + f.stats.LastFailure
			}
			return nil, fmt.Errorf("ssmtr: gradient phase %d: %w (%s)", it+1, err, why)
		}
		z = res.X
		f.updatePrior(lay, z)
		if err := f.invertCov(); err != nil {
			return nil, err
		}
		data, err := f.dataTerm(lay, z, nil)
		if err != nil {
			return nil, err
		}
		j := data + f.priorTerm(lay, z, nil) + f.covTerm(lay.m)
		*trace = append(*trace, OuterStep{Objective: j, Data: data, Iterations: res.Iterations,
			Evaluations: res.FuncEvals, Reason: res.Reason})
		if f.opt.Progress != nil {
			h := lay.hyper(z, 0)
			f.opt.Progress(Progress{Method: f.opt.Method, Outer: it + 1,
				Step: (*trace)[len(*trace)-1], Sigma: math.Sqrt(h.sigma2), Epsilon: h.eps,
				PriorMean: append([]float64(nil), f.mean...)})
		}
		f.last = j
		if math.Abs(prev-j) <= f.opt.Tol*(1+math.Abs(j)) {
			break
		}
		prev = j
	}
	return z, nil
}

// priorTerm returns ½ Σ_i (ψ_i − m)ᵀ Σ⁻¹ (ψ_i − m) and adds its gradient, m = m_θ as
// last updated.
func (f *fitter) priorTerm(lay layout, z, grad []float64) float64 {
	return f.priorTermAt(lay, z, grad, f.mean)
}

// profiledPriorTerm is priorTerm with m_θ profiled out: m is the tasks' current mean
// (1/M) Σ_i ψ_i, m_θ's closed-form maximiser given the ψ_i. The gradient is the same
// expression Σ⁻¹(ψ_i − m), because Σ_i (ψ_i − m) = 0 cancels the terms through m. The
// gradient phase of the alternation minimises this instead of the term at the last m_θ:
// the two have the same fixed points, but once Σ_θ has shrunk to the spread of the ψ_i
// (on school, 139 tasks: Σ_θ ≈ I/140), a fixed m_θ ties every ψ_i to where it was and
// the tasks' common parameters crawl, still well short of the optimal evidence after the
// protocol's outer iterations. Profiled, the common part of the ψ_i moves freely.
func (f *fitter) profiledPriorTerm(lay layout, z, grad []float64) float64 {
	m := make([]float64, lay.prior)
	for i := 0; i < lay.m; i++ {
		b := lay.block(i)
		for k := range m {
			m[k] += z[b+k] / float64(lay.m)
		}
	}
	return f.priorTermAt(lay, z, grad, m)
}

// priorTermAt is the prior term and its gradient for the prior mean given.
func (f *fitter) priorTermAt(lay layout, z, grad, mean []float64) float64 {
	q := lay.prior
	d := make([]float64, q)
	var s float64
	for i := 0; i < lay.m; i++ {
		b := lay.block(i)
		for k := 0; k < q; k++ {
			d[k] = z[b+k] - mean[k]
		}
		for k := 0; k < q; k++ {
			var row float64
			for c := 0; c < q; c++ {
				row += f.covInv.At(k, c) * d[c]
			}
			s += 0.5 * d[k] * row
			if grad != nil {
				grad[b+k] += row
			}
		}
	}
	return s
}

// covTerm is the part of J that depends on Σ alone: ((m+ν₀)/2) ln|Σ| + ½ν₀s² tr(Σ⁻¹).
func (f *fitter) covTerm(m int) float64 {
	var ch mat.Cholesky
	ch.Factorize(f.cov) // invertCov has checked it
	nu, s2 := f.opt.PriorPseudoTasks, f.opt.PriorScale
	var tr float64
	q := f.cov.SymmetricDim()
	for k := 0; k < q; k++ {
		tr += f.covInv.At(k, k)
	}
	return 0.5*(float64(m)+nu)*ch.LogDet() + 0.5*nu*s2*tr
}

// updatePrior sets m_θ to the tasks' mean and Σ_θ to (Σ_i d_i d_iᵀ + ν₀s²I)/(m + ν₀).
func (f *fitter) updatePrior(lay layout, z []float64) {
	q, m := lay.prior, lay.m
	for k := 0; k < q; k++ {
		var s float64
		for i := 0; i < m; i++ {
			s += z[lay.block(i)+k]
		}
		f.mean[k] = s / float64(m)
	}
	nu, s2 := f.opt.PriorPseudoTasks, f.opt.PriorScale
	for a := 0; a < q; a++ {
		for b := a; b < q; b++ {
			var s float64
			for i := 0; i < m; i++ {
				o := lay.block(i)
				s += (z[o+a] - f.mean[a]) * (z[o+b] - f.mean[b])
			}
			if a == b {
				s += nu * s2
			}
			f.cov.SetSym(a, b, s/(float64(m)+nu))
		}
	}
}

func (f *fitter) invertCov() error {
	var ch mat.Cholesky
	if !ch.Factorize(f.cov) {
		return errors.New(
			"ssmtr: prior covariance Σ_θ is not positive definite (use PriorPseudoTasks > 0)")
	}
	f.covInv = mat.NewSymDense(f.cov.SymmetricDim(), nil)
	if err := infer.Solved(ch.InverseTo(f.covInv)); err != nil {
		return fmt.Errorf("ssmtr: inverting the prior covariance Σ_θ: %w", err)
	}
	return nil
}

// priorNames names the prior's dimensions.
func (f *fitter) priorNames() []string {
	var out []string
	for _, n := range f.ts[0].k.FreeNames() {
		out = append(out, "ln "+n)
	}
	if f.opt.Method.graph() && f.opt.AlphaPrior {
		out = append(out, "ln alpha")
	}
	return out
}
