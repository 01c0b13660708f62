package optimize

import (
	"errors"
	"fmt"
	"math"

	gopt "gonum.org/v1/gonum/optimize"
)

// Netlab's constants, the defaults of the zero SCG.
const (
	// DefaultSigma0 is σ₀, the finite-difference scale of the curvature
	// estimate: the gradient is evaluated at x + σp with σ = σ₀/‖p‖.
	DefaultSigma0 = 1e-4
	// DefaultLambda0 is the initial scale λ (Netlab's beta).
	DefaultLambda0 = 1.0
	// DefaultLambdaMin is the lower bound of λ (Netlab's betamin).
	DefaultLambdaMin = 1e-15
	// DefaultLambdaMax is the upper bound of λ (Netlab's betamax).
	DefaultLambdaMax = 1e100
	// DefaultTolX is the step tolerance, Netlab's options(2).
	DefaultTolX = 1e-4
	// DefaultTolF is the function-change tolerance, Netlab's options(3).
	DefaultTolF = 1e-4
	// DefaultDirEps is the squared norm of the search direction below which
	// SCG stops: MATLAB's eps, 2⁻⁵², as in Netlab.
	DefaultDirEps = 0x1p-52
)

// SCG is Møller's scaled conjugate gradient method as implemented in
// Netlab's scg.m. The zero value uses Netlab's constants; every field
// documents its default.
//
// One SCG cycle, from the current point x with gradient g and direction p:
//
//  1. After a successful step, μ = pᵀg (if μ ≥ 0, p is reset to −g), κ = pᵀp;
//     stop if κ < DirEps; σ = Sigma0/√κ and θ = pᵀ(g(x+σp) − g)/σ.
//  2. δ = θ + λκ; if δ ≤ 0 then δ = λκ and λ = λ − θ/κ. Step α = −μ/δ.
//  3. Evaluate f at x + αp; the comparison ratio is Δ = 2(f(x+αp) − f(x))/(αμ).
//     The step succeeds when Δ ≥ 0 (the function did not increase); it is
//     then accepted and g is evaluated at the new point. A successful step
//     with max|αp| < TolX and |Δf| < TolF ends the run, as does a gradient
//     that is exactly zero.
//  4. λ = min(4λ, LambdaMax) if Δ < 0.25; λ = max(λ/2, LambdaMin) if Δ > 0.75.
//  5. After Restart successful steps p = −g; otherwise, after a success,
//     p = γp − g with the Polak–Ribière γ = (g_old − g)ᵀg/μ.
//
// Differences from scg.m, all of which only matter where scg.m would break:
// a trial point where f is NaN or ±Inf, or where the gradient is not finite,
// counts as an unsuccessful step (λ grows and the step shrinks) instead of
// being accepted or poisoning the state; a non-finite curvature estimate θ is
// replaced by 0, leaving λ alone to set the step; and a step that fails when
// λ is already at LambdaMax ends the run with status Failure, since no
// further progress is possible (scg.m would spin until its iteration limit).
// The gradient is also evaluated after the final, converged step, which scg.m
// skips, so that every reported location carries its gradient.
//
// Iterations: scg.m counts every cycle, successful or not, against its limit
// options(14). Here each successful step is one iteration: the Method reports
// it to gonum as a MajorIteration, so gonum's Settings.MajorIterations bounds
// the number of successful steps, and Minimize's Options.MaxIter does the
// same. MaxCycles bounds all cycles, as scg.m does.
//
// As a gonum optimize.Method, SCG needs the gradient (Problem.Grad), uses one
// concurrent task, ends its own runs through a MethodDone operation with the
// status reported by Status (MethodConverge for the TolX/TolF test and a
// vanishing direction, GradientThreshold for a zero gradient, IterationLimit
// for MaxCycles, Failure when λ is exhausted), and must not be used by two
// runs at the same time.
type SCG struct {
	// Sigma0 is σ₀ of the finite-difference curvature estimate. 0 means
	// DefaultSigma0 (1e-4).
	Sigma0 float64
	// Lambda0 is the initial scale λ. 0 means DefaultLambda0 (1).
	Lambda0 float64
	// LambdaMin and LambdaMax bound λ when it is halved or quadrupled.
	// 0 means DefaultLambdaMin (1e-15) and DefaultLambdaMax (1e100).
	LambdaMin, LambdaMax float64
	// TolX and TolF end the run at a successful step that changes every
	// coordinate by less than TolX and the function by less than TolF.
	// 0 means DefaultTolX and DefaultTolF (both 1e-4). A negative value in
	// either disables this test.
	TolX, TolF float64
	// DirEps ends the run when the squared norm of the search direction falls
	// below it. 0 means DefaultDirEps (2.22e-16).
	DirEps float64
	// Restart is the number of successful steps after which the direction is
	// reset to steepest descent. 0 means the number of parameters; a negative
	// value never restarts.
	Restart int
	// MaxCycles, if positive, bounds the number of cycles, successful or not
	// (Netlab's options(14)). The run then ends with status IterationLimit.
	MaxCycles int

	status gopt.Status
	err    error
}

// ErrLambdaExhausted is the error of a run that ended because a step failed
// with the scale λ already at its upper bound.
var ErrLambdaExhausted = errors.New(
	"optimize: SCG step failed with the scale λ at its upper bound")

// scgConfig is an SCG with its defaults resolved.
type scgConfig struct {
	sigma0, lambda0, lambdaMin, lambdaMax float64
	tolX, tolF, dirEps                    float64
	restart, maxCycles                    int
}

// resolve returns s's settings for a problem with n parameters, with zero
// fields replaced by their defaults, or an error naming an invalid field.
func (s *SCG) resolve(n int) (scgConfig, error) {
	c := scgConfig{
		sigma0: s.Sigma0, lambda0: s.Lambda0, lambdaMin: s.LambdaMin, lambdaMax: s.LambdaMax,
		tolX: s.TolX, tolF: s.TolF, dirEps: s.DirEps, restart: s.Restart, maxCycles: s.MaxCycles,
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.sigma0, DefaultSigma0)
	def(&c.lambda0, DefaultLambda0)
	def(&c.lambdaMin, DefaultLambdaMin)
	def(&c.lambdaMax, DefaultLambdaMax)
	def(&c.tolX, DefaultTolX)
	def(&c.tolF, DefaultTolF)
	def(&c.dirEps, DefaultDirEps)
	if c.restart == 0 {
		c.restart = n
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Sigma0", c.sigma0}, {"Lambda0", c.lambda0}, {"LambdaMin", c.lambdaMin}, {
		"LambdaMax", c.lambdaMax}, {"DirEps", c.dirEps}} {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			return c, fmt.Errorf("optimize: SCG.%s = %v, want a finite positive value", f.name, f.v)
		}
	}
	if math.IsNaN(c.tolX) || math.IsNaN(c.tolF) {
		return c, errors.New("optimize: SCG.TolX or SCG.TolF is NaN")
	}
	if c.lambdaMin > c.lambdaMax {
		return c, fmt.Errorf("optimize: SCG.LambdaMin = %v exceeds LambdaMax = %v", c.lambdaMin,
			c.lambdaMax)
	}
	return c, nil
}

// request is what the SCG core asks of its driver next.
type request int

const (
	needFunc request = iota // evaluate f at core.xe and call setFunc
	needGrad                // evaluate ∇f at core.xe and call setGrad
	report                  // a successful step: core.x, core.f, core.g hold the new point
	finished                // the run is over: core.status, core.reason, core.err
)

// core states.
const (
	stDirection = iota // start of a cycle
	stProbe            // waiting for the gradient at x + σp
	stStep             // compute the step and the trial point
	stTrial            // waiting for f at the trial point
	stTrialGrad        // waiting for the gradient at the accepted trial point
	stReported         // a success was reported
	stAdjust           // update λ and the direction
	stDone
)

// core is the SCG iteration as a reverse-communication state machine, shared
// by the gonum Method and the plain Minimize. The driver calls next, performs
// the evaluation it asks for at xe (handing the result back through setFunc
// or setGrad), reports successful steps, and stops at finished.
type core struct {
	cfg scgConfig
	n   int

	x, g, gOld, d []float64 // current point, its gradient, previous gradient, direction
	f             float64   // f(x)
	xe, ge        []float64 // evaluation point and the gradient there
	fe            float64   // f(xe)

	mu, kappa, theta, sigma, alpha float64
	lambda, ratio                  float64 // λ and Δ
	success                        bool    // the last cycle succeeded
	nSuccess                       int     // successes since the last restart
	converged, zeroGrad            bool    // pending termination after a report

	iters, cycles int // successful steps; all cycles
	state         int

	status gopt.Status
	reason string
	err    error
}

// init starts a run from x0 with value f0 and gradient g0, which are copied.
// It returns an error naming a non-finite f0 or gradient entry.
func (c *core) init(cfg scgConfig, x0 []float64, f0 float64, g0 []float64) error {
	n := len(x0)
	c.cfg, c.n = cfg, n
	for _, p := range []*[]float64{&c.x, &c.g, &c.gOld, &c.d, &c.xe, &c.ge} {
		*p = resize(*p, n)
	}
	copy(c.x, x0)
	copy(c.g, g0)
	c.f = f0
	c.lambda = cfg.lambda0
	c.success, c.nSuccess, c.iters, c.cycles = true, 0, 0, 0
	c.converged, c.zeroGrad = false, false
	c.theta, c.ratio = 0, 0
	c.status, c.reason, c.err = gopt.NotTerminated, "", nil
	c.state = stDirection
	if err := checkStart(f0, g0); err != nil {
		return c.fail(err)
	}
	for i := range c.d {
		c.d[i] = -c.g[i]
	}
	return nil
}

// checkStart returns an error naming a non-finite value or gradient entry at
// the starting point.
func checkStart(f0 float64, g0 []float64) error {
	if math.IsNaN(f0) || math.IsInf(f0, 0) {
		return fmt.Errorf("optimize: objective is %v at the starting point", f0)
	}
	for i, v := range g0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("optimize: gradient entry %d is %v at the starting point", i, v)
		}
	}
	return nil
}

func (c *core) fail(err error) error {
	c.finish(gopt.Failure, err.Error())
	c.err = err
	return err
}

func (c *core) finish(s gopt.Status, reason string) request {
	c.status, c.reason, c.state = s, reason, stDone
	return finished
}

// setFunc hands back f(xe).
func (c *core) setFunc(f float64) { c.fe = f }

// setGrad hands back ∇f(xe).
func (c *core) setGrad(g []float64) { copy(c.ge, g) }

// next advances the iteration to its next request. Each state is one step of Møller's
// algorithm, in its order; a step either hands a request to the driver (ask) or sets the
// next state and lets the loop go on.
func (c *core) next() request {
	for {
		var r request
		var ask bool
		switch c.state {
		case stDirection:
			r, ask = c.direction()
		case stProbe:
			c.probe()
		case stStep:
			r, ask = c.step()
		case stTrial:
			r, ask = c.trial()
		case stTrialGrad:
			r, ask = c.trialGrad()
		case stReported:
			r, ask = c.reported()
		case stAdjust:
			r, ask = c.adjust()
		case stDone:
			return finished
		}
		if ask {
			return r
		}
	}
}

// direction starts a cycle: after a success it sets μ and κ of the direction, reset to
// steepest descent unless it descends, and asks for the gradient at x + σp, the probe of
// the curvature; after a failure the step is retried with the new λ.
func (c *core) direction() (request, bool) {
	if !c.success {
		c.state = stStep
		return 0, false
	}
	c.mu = dot(c.d, c.g)
	c.kappa = dot(c.d, c.d)
	if c.mu >= 0 || math.IsInf(c.kappa, 0) || math.IsNaN(c.kappa) {
		// Not a descent direction (or one that overflowed): steepest descent.
		for i := range c.d {
			c.d[i] = -c.g[i]
		}
		c.mu = dot(c.d, c.g)
		c.kappa = dot(c.d, c.d)
	}
	if c.kappa < c.cfg.dirEps {
		return c.finish(gopt.MethodConverge, "the search direction vanished"), true
	}
	c.sigma = c.cfg.sigma0 / math.Sqrt(c.kappa)
	for i := range c.xe {
		c.xe[i] = c.x[i] + c.sigma*c.d[i]
	}
	c.state = stProbe
	return needGrad, true
}

// probe sets the curvature estimate θ = pᵀ(g(x+σp) − g)/σ from the probe's gradient.
func (c *core) probe() {
	var s float64
	for i, d := range c.d {
		s += d * (c.ge[i] - c.g[i])
	}
	c.theta = s / c.sigma
	if math.IsNaN(c.theta) || math.IsInf(c.theta, 0) {
		c.theta = 0 // no usable curvature: let λ alone set the step
	}
	c.state = stStep
}

// step counts a cycle, ending the run at MaxCycles, and asks for f at the trial point
// x + αp, with λ raised first where the scaled curvature δ is not positive.
func (c *core) step() (request, bool) {
	if c.cfg.maxCycles > 0 && c.cycles >= c.cfg.maxCycles {
		return c.finish(gopt.IterationLimit, "cycle limit reached"), true
	}
	c.cycles++
	delta := c.theta + c.lambda*c.kappa
	if delta <= 0 {
		delta = c.lambda * c.kappa
		c.lambda -= c.theta / c.kappa
	}
	c.alpha = -c.mu / delta
	for i := range c.xe {
		c.xe[i] = c.x[i] + c.alpha*c.d[i]
	}
	c.state = stTrial
	return needFunc, true
}

// trial sets the comparison ratio Δ of the trial point and asks for its gradient when the
// step succeeds; a non-finite f fails the step.
func (c *core) trial() (request, bool) {
	c.ratio = math.Inf(-1)
	if !math.IsNaN(c.fe) && !math.IsInf(c.fe, 0) {
		c.ratio = 2 * (c.fe - c.f) / (c.alpha * c.mu)
		if math.IsNaN(c.ratio) { // αμ underflowed to zero and f did not change
			c.ratio = math.Inf(-1)
		}
	}
	if c.ratio >= 0 {
		c.state = stTrialGrad
		return needGrad, true
	}
	c.success = false
	c.state = stAdjust
	return 0, false
}

// trialGrad accepts the trial point and reports it, noting whether the step met TolX and
// TolF or the gradient vanished; a non-finite gradient fails the step instead.
func (c *core) trialGrad() (request, bool) {
	if !allFinite(c.ge) {
		c.ratio = math.Inf(-1)
		c.success = false
		c.state = stAdjust
		return 0, false
	}
	var dx float64
	for i := range c.x {
		dx = math.Max(dx, math.Abs(c.xe[i]-c.x[i]))
	}
	df := math.Abs(c.fe - c.f)
	c.x, c.xe = c.xe, c.x
	c.g, c.gOld, c.ge = c.ge, c.g, c.gOld
	c.f = c.fe
	c.success = true
	c.nSuccess++
	c.iters++
	c.converged = c.cfg.tolX >= 0 && c.cfg.tolF >= 0 && dx < c.cfg.tolX && df < c.cfg.tolF
	c.zeroGrad = dot(c.g, c.g) == 0
	c.state = stReported
	return report, true
}

// reported ends the run after the reported success if it converged or its gradient is
// zero; the termination waits until the driver has seen the new point.
func (c *core) reported() (request, bool) {
	if c.converged {
		reason := fmt.Sprintf("step below TolX = %g and change below TolF = %g", c.cfg.tolX,
			c.cfg.tolF)
		return c.finish(gopt.MethodConverge, reason), true
	}
	if c.zeroGrad {
		return c.finish(gopt.GradientThreshold, "the gradient is zero"), true
	}
	c.state = stAdjust
	return 0, false
}

// adjust scales λ by the comparison ratio and sets the next direction: steepest descent
// at a restart, else after a success the Polak–Ribière update. A failure with λ already
// at LambdaMax ends the run, since no smaller step is left to try.
func (c *core) adjust() (request, bool) {
	if !c.success && c.lambda >= c.cfg.lambdaMax {
		c.err = ErrLambdaExhausted
		return c.finish(gopt.Failure, ErrLambdaExhausted.Error()), true
	}
	if c.ratio < 0.25 {
		c.lambda = math.Min(4*c.lambda, c.cfg.lambdaMax)
	}
	if c.ratio > 0.75 {
		c.lambda = math.Max(0.5*c.lambda, c.cfg.lambdaMin)
	}
	switch {
	case c.cfg.restart > 0 && c.nSuccess == c.cfg.restart:
		for i := range c.d {
			c.d[i] = -c.g[i]
		}
		c.nSuccess = 0
	case c.success:
		var num float64
		for i, g := range c.g {
			num += (c.gOld[i] - g) * g
		}
		gamma := num / c.mu
		for i := range c.d {
			c.d[i] = gamma*c.d[i] - c.g[i]
		}
	}
	c.state = stDirection
	return 0, false
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func resize(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
}
