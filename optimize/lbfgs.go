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

	var (
		cx, cg        = make([]float64, n), make([]float64, n)
		cf            float64
		cached        bool
		bestX, bestG  = slices.Clone(x0), slices.Clone(g0)
		bestF         = f0
		initF, initG  = f0, slices.Clone(g0)
		finiteAt      bool
		evaluateCache = func(x []float64) {
			if cached && slices.Equal(x, cx) {
				return
			}
			copy(cx, x)
			cf = f(cx, cg)
			cached = true
			res.FuncEvals++
			res.GradEvals++
			finiteAt = !math.IsNaN(cf) && !math.IsInf(cf, 0) && allFinite(cg)
			if finiteAt && cf < bestF {
				bestF = cf
				copy(bestX, cx)
				copy(bestG, cg)
			}
		}
	)
	problem := gopt.Problem{
		Func: func(x []float64) float64 {
			evaluateCache(x)
			if !finiteAt {
				return math.Inf(1)
			}
			return cf
		},
		Grad: func(grad, x []float64) {
			evaluateCache(x)
			if !finiteAt {
				// Any finite gradient will do: the value +Inf already
				// rejects the point.
				for i := range grad {
					grad[i] = 0
				}
				return
			}
			copy(grad, cg)
		},
	}
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
		settings.Recorder = &callbackRecorder{cb: opt.Callback, evals: &res.FuncEvals}
	}
	r, err := gopt.Minimize(problem, x0, settings, &gopt.LBFGS{Store: opt.LBFGSStore})

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
	res.X, res.F, res.Grad = bestX, bestF, bestG
	if !math.IsNaN(r.F) && !math.IsInf(r.F, 0) && r.F <= bestF && len(r.Gradient) == n &&
		allFinite(r.X) && allFinite(r.Gradient) {
		res.X, res.F, res.Grad = slices.Clone(r.X), r.F, slices.Clone(r.Gradient)
	}
	res.Converged = converged(res.Status)
	return res, nil
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
