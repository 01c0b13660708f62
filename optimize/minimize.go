package optimize

import (
	"errors"
	"fmt"
	"math"

	gopt "gonum.org/v1/gonum/optimize"
)

// Func is an objective for Minimize. It returns f(x) and, when grad is not
// nil, stores ∇f(x) in grad (len(grad) == len(x)). It must not modify x or
// keep either slice. When grad is nil only the value is needed, and an
// objective may skip the gradient work. A NaN or ±Inf value marks x as
// outside the region where f is defined.
type Func func(x, grad []float64) float64

// Names of the methods for Options.Method.
const (
	// MethodSCG is scaled conjugate gradients (the SCG type), the default.
	MethodSCG = "scg"
	// MethodLBFGS is gonum's L-BFGS (optimize.LBFGS with its default
	// More–Thuente line search), run through gonum's optimize.Minimize.
	MethodLBFGS = "lbfgs"
)

// DefaultMaxIter is the iteration limit of a zero Options: Netlab's default
// number of training cycles, options(14) = 100, which is also the "100 SCG
// iterations" of the IVM papers.
const DefaultMaxIter = 100

// Options configures Minimize. The zero value runs SCG with Netlab's
// constants for at most DefaultMaxIter successful steps.
type Options struct {
	// Method is MethodSCG (or "") or MethodLBFGS.
	Method string
	// MaxIter bounds the iterations: successful steps for SCG, major
	// iterations (accepted line-search points) for L-BFGS. 0 means
	// DefaultMaxIter; a negative value means no limit.
	MaxIter int
	// MaxFuncEvals, if positive, bounds the number of calls to the objective.
	// For SCG the bound is checked before each call, so it is never exceeded;
	// L-BFGS stops at the call that reaches it.
	MaxFuncEvals int
	// GradTol, if positive, ends the run when every gradient entry at an
	// accepted point is smaller than GradTol in magnitude (status
	// GradientThreshold). L-BFGS additionally stops by itself when the
	// gradient's largest entry falls below 1e-12.
	GradTol float64
	// SCG holds SCG's constants and stopping tolerances (the zero value is
	// Netlab's). It is ignored by L-BFGS.
	SCG SCG
	// LBFGSStore is the number of correction pairs L-BFGS keeps; 0 means
	// gonum's default (15). It is ignored by SCG.
	LBFGSStore int
	// Callback, if not nil, is called after every iteration with the new
	// point (its X must not be modified or kept). Returning true ends the
	// run with status Success and Converged false.
	Callback func(it Iteration) (stop bool)
}

// Iteration describes an accepted point for Options.Callback.
type Iteration struct {
	Iter      int       // iterations so far, this one included
	X         []float64 // the new point
	F         float64   // f(X)
	Lambda    float64   // the scale λ SCG used for this step (NaN for L-BFGS)
	FuncEvals int       // calls to the objective so far
}

// Result is the outcome of Minimize.
type Result struct {
	// X is the best point found, F = f(X) and Grad = ∇f(X). All are finite.
	X    []float64
	F    float64
	Grad []float64
	// F0 is f(x0), the value at the starting point.
	F0 float64
	// Iterations counts successful steps (SCG) or major iterations (L-BFGS).
	Iterations int
	// Cycles counts SCG's cycles, successful or not (equal to Iterations for
	// L-BFGS).
	Cycles int
	// FuncEvals counts calls to the objective; GradEvals counts those calls
	// that asked for the gradient.
	FuncEvals, GradEvals int
	// Status is how the run ended, in gonum's terms: MethodConverge
	// (SCG's TolX/TolF test or a vanishing search direction),
	// GradientThreshold, FunctionConvergence (L-BFGS), IterationLimit,
	// FunctionEvaluationLimit, Success (stopped by Callback) or Failure.
	Status gopt.Status
	// Converged reports whether Status is a convergence (MethodConverge,
	// GradientThreshold, FunctionConvergence or StepConvergence) rather than
	// a limit, a failure or a stop by the callback.
	Converged bool
	// Reason says in words why the run ended.
	Reason string
}

// Minimize minimises f from x0, which it does not modify.
//
// With the default method it runs SCG (see the SCG type) directly, without
// gonum's goroutines: the curvature probe and the accepted points call f with
// a gradient slice, the trial points without one. It returns an error if x0
// is empty, the options are invalid, or f or its gradient is not finite at
// x0; otherwise the Result holds the best point seen, which is always finite
// — a trial point where f is NaN or infinite is treated as an unsuccessful
// step. Hitting an iteration or evaluation limit is not an error: see
// Result.Status. A run that SCG cannot continue (ErrLambdaExhausted) returns
// its best point with status Failure and no error.
func Minimize(f Func, x0 []float64, opt Options) (Result, error) {
	n := len(x0)
	if n == 0 {
		return Result{}, errors.New("optimize: empty starting point")
	}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = DefaultMaxIter
	}
	if opt.MaxFuncEvals > 0 && opt.MaxFuncEvals < 2 {
		return Result{}, fmt.Errorf(
			"optimize: MaxFuncEvals = %d leaves no evaluation after the start", opt.MaxFuncEvals)
	}
	switch opt.Method {
	case "", MethodSCG:
		return minimizeSCG(f, x0, opt, maxIter)
	case MethodLBFGS:
		return minimizeLBFGS(f, x0, opt, maxIter)
	}
	return Result{}, fmt.Errorf("optimize: unknown method %q (want %q or %q)",
		opt.Method, MethodSCG, MethodLBFGS)
}

func minimizeSCG(f Func, x0 []float64, opt Options, maxIter int) (Result, error) {
	n := len(x0)
	cfg, err := opt.SCG.resolve(n)
	if err != nil {
		return Result{}, err
	}
	res := Result{}
	grad := make([]float64, n)
	f0 := f(x0, grad)
	res.FuncEvals, res.GradEvals, res.F0 = 1, 1, f0
	var c core
	if err := c.init(cfg, x0, f0, grad); err != nil {
		res.X, res.F, res.Grad = append([]float64(nil), x0...), f0, grad
		res.Status, res.Reason = gopt.Failure, err.Error()
		return res, err
	}

	end := func(s gopt.Status, reason string) {
		res.Status, res.Reason = s, reason
	}
loop:
	for {
		req := c.next()
		switch req {
		case needFunc, needGrad:
			if opt.MaxFuncEvals > 0 && res.FuncEvals >= opt.MaxFuncEvals {
				end(gopt.FunctionEvaluationLimit,
					fmt.Sprintf("function evaluation limit %d reached", opt.MaxFuncEvals))
				break loop
			}
			res.FuncEvals++
			if req == needFunc {
				c.setFunc(f(c.xe, nil))
				continue
			}
			res.GradEvals++
			if v := f(c.xe, grad); math.IsNaN(v) || math.IsInf(v, 0) {
				// f is undefined here, so its gradient is too, whatever
				// grad holds: make the core see that.
				for i := range grad {
					grad[i] = math.NaN()
				}
			}
			c.setGrad(grad)
		case report:
			if opt.Callback != nil && opt.Callback(Iteration{Iter: c.iters, X: c.x, F: c.f,
				Lambda: c.lambda, FuncEvals: res.FuncEvals}) {
				end(gopt.Success, "stopped by the callback")
				break loop
			}
			if opt.GradTol > 0 && maxAbs(c.g) < opt.GradTol {
				end(gopt.GradientThreshold, fmt.Sprintf("gradient below GradTol = %g", opt.GradTol))
				break loop
			}
			if maxIter > 0 && c.iters >= maxIter && !c.converged {
				end(gopt.IterationLimit, fmt.Sprintf("iteration limit %d reached", maxIter))
				break loop
			}
		case finished:
			end(c.status, c.reason)
			break loop
		}
	}
	// SCG accepts only steps that do not increase f, so the current point is
	// the best one seen.
	res.X = append([]float64(nil), c.x...)
	res.F = c.f
	res.Grad = append(grad[:0], c.g...)
	res.Iterations, res.Cycles = c.iters, c.cycles
	res.Converged = converged(res.Status)
	return res, nil
}

// converged reports whether s ends a run at a (local) minimum.
func converged(s gopt.Status) bool {
	switch s {
	case gopt.MethodConverge, gopt.GradientThreshold, gopt.FunctionConvergence,
		gopt.StepConvergence:
		return true
	}
	return false
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
