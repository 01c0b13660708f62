package optimize

import (
	"errors"
	"math"
	"slices"

	gopt "gonum.org/v1/gonum/optimize"
)

// errStopped is returned by the callback recorder to end a gonum run.
var errStopped = errors.New("optimize: stopped by the callback")

// minimizeLBFGS runs gonum's L-BFGS on f through gonum's Minimize.
//
// gonum asks for f and ∇f through separate functions, and its line search
// asks for both at the same point; f is called once per point, with the
// gradient, and the pair is cached. Non-finite values are passed to gonum as
// +Inf, which its line search treats as a failed trial and backs off from.
// The best finite point seen at any evaluation is kept and returned if gonum
// ends on a worse one.
func minimizeLBFGS(f Func, x0 []float64, opt Options, maxIter int) (Result, error) {
	n := len(x0)
	res := Result{}
	g0 := make([]float64, n)
	f0 := f(x0, g0)
	res.FuncEvals, res.GradEvals, res.F0 = 1, 1, f0
	if err := checkStart(f0, g0); err != nil {
		res.X, res.F, res.Grad = slices.Clone(x0), f0, g0
		res.Status, res.Reason = gopt.Failure, err.Error()
		return res, err
	}
	c := &lbfgsCache{f: f, res: &res, cx: make([]float64, n), cg: make([]float64, n),
		bestX: slices.Clone(x0), bestG: slices.Clone(g0), bestF: f0}
	problem := gopt.Problem{Func: c.value, Grad: c.grad}
	settings := lbfgsSettings(opt, maxIter, f0, slices.Clone(g0), &res.FuncEvals)
	r, err := gopt.Minimize(problem, x0, settings, &gopt.LBFGS{Store: opt.LBFGSStore})
	c.finish(r, err)
	return res, nil
}

// lbfgsCache evaluates f for gonum's separate value and gradient calls, once per point,
// counting the evaluations in res and keeping the best finite point seen.
type lbfgsCache struct {
	f   Func
	res *Result

	cx, cg   []float64 // the last point evaluated and its gradient
	cf       float64   // f there
	cached   bool      // cx holds a point
	finiteAt bool      // cf and cg are finite

	bestX, bestG []float64 // the best finite point seen and its gradient
	bestF        float64
}

// evaluate evaluates f at x unless x is the cached point, and updates the best point.
func (c *lbfgsCache) evaluate(x []float64) {
	if c.cached && slices.Equal(x, c.cx) {
		return
	}
	copy(c.cx, x)
	c.cf = c.f(c.cx, c.cg)
	c.cached = true
	c.res.FuncEvals++
	c.res.GradEvals++
	c.finiteAt = !math.IsNaN(c.cf) && !math.IsInf(c.cf, 0) && allFinite(c.cg)
	if c.finiteAt && c.cf < c.bestF {
		c.bestF = c.cf
		copy(c.bestX, c.cx)
		copy(c.bestG, c.cg)
	}
}

// value is gonum's Problem.Func: f at x, or +Inf where f or its gradient is not finite.
func (c *lbfgsCache) value(x []float64) float64 {
	c.evaluate(x)
	if !c.finiteAt {
		return math.Inf(1)
	}
	return c.cf
}

// grad is gonum's Problem.Grad: ∇f at x, or zeros where f or its gradient is not finite.
func (c *lbfgsCache) grad(grad, x []float64) {
	c.evaluate(x)
	if !c.finiteAt {
		// Any finite gradient will do: the value +Inf already
		// rejects the point.
		for i := range grad {
			grad[i] = 0
		}
		return
	}
	copy(grad, c.cg)
}

// lbfgsSettings returns gonum's settings for a run from a point with value initF and
// gradient initG, mapping the Options and maxIter onto gonum's counts, which include the
// starting point; evals is the evaluation count handed to the callback.
func lbfgsSettings(opt Options, maxIter int, initF float64, initG []float64,
	evals *int) *gopt.Settings {
	settings := &gopt.Settings{
		InitValues:        &gopt.Location{F: initF, Gradient: initG},
		GradientThreshold: opt.GradTol,
	}
	// gonum reports the starting point as its first major iteration.
	if maxIter > 0 {
		settings.MajorIterations = maxIter + 1
	}
	if opt.MaxFuncEvals > 0 {
		settings.FuncEvaluations = opt.MaxFuncEvals - 1
	}
	if opt.Callback != nil {
		settings.Recorder = &callbackRecorder{cb: opt.Callback, evals: evals}
	}
	return settings
}

// finish fills c.res from gonum's result r and error err: the status and reason, and the
// point gonum ended on unless the best finite point seen is better or it is not finite.
func (c *lbfgsCache) finish(r *gopt.Result, err error) {
	res := c.res
	res.Status = r.Status
	switch {
	case errors.Is(err, errStopped):
		res.Status, res.Reason = gopt.Success, errStopped.Error()
	case err != nil:
		res.Status, res.Reason = gopt.Failure, "L-BFGS: "+err.Error()
	default:
		res.Reason = "L-BFGS: " + r.Status.String()
	}
	res.Iterations = max(r.MajorIterations-1, 0)
	res.Cycles = res.Iterations
	res.X, res.F, res.Grad = c.bestX, c.bestF, c.bestG
	if !math.IsNaN(r.F) && !math.IsInf(r.F, 0) && r.F <= c.bestF && len(r.Gradient) == len(c.cx) &&
		allFinite(r.X) && allFinite(r.Gradient) {
		res.X, res.F, res.Grad = slices.Clone(r.X), r.F, slices.Clone(r.Gradient)
	}
	res.Converged = converged(res.Status)
}

// callbackRecorder forwards gonum's major iterations, after the starting
// point, to an Options.Callback.
type callbackRecorder struct {
	cb    func(Iteration) bool
	evals *int
	iter  int
	seen  bool
}

func (r *callbackRecorder) Init() error { return nil }

func (r *callbackRecorder) Record(loc *gopt.Location, op gopt.Operation, _ *gopt.Stats) error {
	if op != gopt.MajorIteration {
		return nil
	}
	if !r.seen { // the starting point
		r.seen = true
		return nil
	}
	r.iter++
	if r.cb(Iteration{Iter: r.iter, X: loc.X, F: loc.F, Lambda: math.NaN(), FuncEvals: *r.evals}) {
		return errStopped
	}
	return nil
}
