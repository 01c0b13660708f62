package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/optimize"
)

// Tasks is what Algorithm 2 learns on: the selectors of one task, or of several tasks
// that share the kernel being learnt (the multi-task IVM), and how they select. The outer
// loop (RunLearn) is the same for both; only these parts differ.
type Tasks interface {
	// Selectors returns the tasks' selectors, all with the kernel being learnt.
	Selectors() []*Selector
	// Select empties the active sets and selects them anew under the current parameters.
	Select() error
	// HeldOutLogLik is the mean predictive log likelihood of the points the active sets
	// did not use (Selector.HeldOutLogLik, pooled over tasks).
	HeldOutLogLik() float64
}

// LoopOptions configures RunLearn. Zero values are the papers' settings.
type LoopOptions struct {
	// Iters is the number T of outer iterations (0: 8; negative: none, the selection alone).
	Iters int
	// KernelIters bounds the optimiser's iterations on the kernel per outer iteration
	// (0: 100; negative: no kernel step).
	KernelIters int
	// NoiseIters > 0 adds the noise step (NoiseObjective) to every outer iteration, when
	// the noise models have parameters.
	NoiseIters int
	// Noise configures the noise objective.
	Noise NoiseOptions
	// Optimizer is the optimiser of the kernel and noise steps (default OptimizerSCG).
	Optimizer Optimizer
	// NetlabTolerances stops SCG by Netlab's rule as the reference toolbox does (|Δx| and
	// |Δf| below 1e−4 at a successful step) instead of tolerances that suit the EP
	// objectives (1e−3 in x, 1e−5 relative in f).
	NetlabTolerances bool
	// Objective is the kernel objective (ObjectiveAuto: FullData); HeldOut bounds
	// FullData's predictive term per task (0: 500), a random subset drawn anew every outer
	// iteration from Seed's stream.
	Objective Objective
	HeldOut   int
	Seed      uint64
	// Priors holds a prior per free kernel parameter (FreePriors), counted once.
	Priors []Prior
	// LastIterate turns off the held-out safeguard (see LearnOptions.LastIterate).
	LastIterate bool
	// BlendNoiseNatural makes the safeguard blend noise parameters in natural space
	// (every noise parameter's range is an interval, so the midpoint stays valid) instead
	// of the optimiser's free space.
	BlendNoiseNatural bool
	// LazyNoiseSelect, without the safeguard, skips the selection after the noise step:
	// the next kernel step runs on the same active sets with the new noise parameters, so
	// an outer iteration selects once with or without a noise step (the multi-task
	// papers' protocol). Otherwise the noise step is followed by a selection.
	LazyNoiseSelect bool
	// Workers bounds the goroutines across tasks (0: all cores).
	Workers int
	// Finish, when set, runs after the final selection and returns the held-out log
	// likelihood of the state it leaves (the single-task IVM's refinement).
	Finish func() (float64, error)
	// Progress, when set, is called after every outer iteration and for the final record.
	Progress func(IterTrace)
}

// Safeguard and stopping constants of Algorithm 2. maxHalvings bounds the steps back
// towards the best parameters in one outer iteration; acceptTol is how much worse per
// point an iterate's held-out log likelihood may be than the best's and still be accepted
// (so learning can cross a flat stretch); with fewer than minGuardPoints inactive points
// there is too little to measure and the safeguard is off. kernelTolX and kernelTolF are
// the kernel optimiser's stopping tolerances (see kernelStep).
const (
	maxHalvings    = 3
	acceptTol      = 2e-3
	minGuardPoints = 50
	kernelTolX     = 1e-3
	kernelTolF     = 1e-5
)

// loop is the state of one RunLearn.
type loop struct {
	tasks Tasks
	sels  []*Selector
	k     *kern.Sum
	opt   LoopOptions
	// method is opt.Optimizer as optimize.Options.Method, checked once.
	method string
	noise  *NoiseObjective // nil without a noise step
	rng    *rand.Rand
	guard  bool
	h      float64 // held-out log likelihood of the last selection
	stale  bool    // the parameters changed after the last selection

	best      []float64 // kernel free parameters, then the noise state
	bestScore float64
	bestIter  int
}

// RunLearn runs Algorithm 2 on tasks with the shared kernel k: T outer iterations of
// [select the active sets; optimise the kernel on them; optionally optimise the noise
// parameters at the selection's marginals; select], each accepted only if the held-out
// likelihood does not drop (the safeguard, see LearnOptions.LastIterate), then a final
// selection with the accepted parameters. It changes k's and the noise models' parameters
// to the learnt ones and leaves the tasks' selectors at the final selection.
func RunLearn(tasks Tasks, k *kern.Sum, opt LoopOptions) (*LearnResult, error) {
	if k == nil {
		return nil, errors.New("ivm: learning needs a kernel")
	}
	if opt.Iters == 0 {
		opt.Iters = 8
	}
	if opt.KernelIters == 0 {
		opt.KernelIters = 100
	}
	if opt.HeldOut == 0 {
		opt.HeldOut = 500
	}
	opt.Objective = opt.Objective.Or(FullData)
	method, err := opt.Optimizer.method()
	if err != nil {
		return nil, err
	}
	l := &loop{tasks: tasks, sels: tasks.Selectors(), k: k, opt: opt, method: method,
		rng: rand.New(rand.NewPCG(opt.Seed, 0x1f7))}
	if err := l.selectAll(); err != nil {
		return nil, err
	}
	if opt.NoiseIters > 0 && l.sels[0].Noise.NumParams() > 0 {
		np, err := NewNoiseObjective(l.sels, k.PositiveTransform(), opt.Noise)
		if err != nil {
			return nil, err
		}
		l.noise = np
	}
	if l.best, err = l.state(); err != nil {
		return nil, err
	}
	l.bestScore = l.h
	l.guard = !opt.LastIterate && inactive(l.sels) >= minGuardPoints
	res := &LearnResult{}
	for t := 0; t < opt.Iters; t++ {
		tr, err := l.iterate(t)
		if err != nil {
			return nil, err
		}
		res.Trace = append(res.Trace, tr)
		l.progress(tr)
		if tr.Rejected {
			break
		}
	}
	if err := l.finish(res); err != nil {
		return nil, err
	}
	return res, nil
}

// iterate runs outer iteration t.
func (l *loop) iterate(t int) (IterTrace, error) {
	tr := l.record(t)
	if l.opt.KernelIters > 0 {
		if err := l.kernelStep(t, &tr); err != nil {
			return tr, err
		}
	}
	if err := l.selectAll(); err != nil {
		return tr, err
	}
	if l.noise != nil {
		if err := l.noiseStep(t, &tr); err != nil {
			return tr, err
		}
		if l.guard || !l.opt.LazyNoiseSelect {
			if err := l.selectAll(); err != nil {
				return tr, err
			}
		} else {
			l.stale = true
		}
	}
	if l.guard {
		if err := l.safeguard(t, &tr); err != nil {
			return tr, err
		}
	}
	return tr, nil
}

// finish restores the best parameters when the safeguard kept older ones, selects with
// them if they are not the last selection's, runs Finish and reports the final record.
func (l *loop) finish(res *LearnResult) error {
	n := len(res.Trace)
	res.Best = n
	if l.guard && n > 0 && (res.Trace[n-1].Rejected || l.bestIter != n) {
		res.Best = l.bestIter
		if err := l.setState(l.best); err != nil {
			return err
		}
		l.stale = true
	}
	if l.stale {
		if err := l.selectAll(); err != nil {
			return err
		}
	}
	if l.opt.Finish != nil {
		h, err := l.opt.Finish()
		if err != nil {
			return err
		}
		l.h = h
	}
	final := l.record(n)
	final.Final = true
	res.Trace = append(res.Trace, final)
	l.progress(final)
	return nil
}

// record starts the trace of iteration t: the state it starts from.
func (l *loop) record(t int) IterTrace {
	sizes := make([]int, len(l.sels))
	for m, s := range l.sels {
		sizes[m] = s.Size()
	}
	return IterTrace{Iter: t, HeldOut: l.h, KernelParams: naturalParams(l.k),
		NoiseParams:   noiseParams(l.sels[0].Noise),
		ActivePerTask: sizes}
}

func (l *loop) progress(tr IterTrace) {
	if l.opt.Progress != nil {
		l.opt.Progress(tr)
	}
}

func (l *loop) selectAll() error {
	if err := l.tasks.Select(); err != nil {
		return err
	}
	l.h, l.stale = l.tasks.HeldOutLogLik(), false
	return nil
}

// kernelStep minimises the kernel objective on the current active sets.
func (l *loop) kernelStep(t int, tr *IterTrace) error {
	free := make([]float64, l.k.NumFree())
	l.k.Free(free)
	p := NewKernelObjective(l.k, l.sels, ObjectiveOptions{Kind: l.opt.Objective,
		Priors: l.opt.Priors, HeldOut: l.opt.HeldOut, Rand: l.rng, Workers: l.opt.Workers})
	// Netlab's stopping rule (|Δx| and |Δf| both small at a successful step) with
	// tolerances that suit this objective: it sums over up to HeldOut + d points, so |Δf|
	// is judged relative to |f|, and 1e−3 in a transformed parameter (0.1 % of a softplus
	// or exp parameter) is below anything a selection can resolve.
	f0 := p.Eval(free, nil)
	if math.IsNaN(f0) {
		// Say so here: the optimiser would only report a NaN tolerance.
		return fmt.Errorf(
			"ivm: outer iteration %d: the kernel objective is undefined at the parameters the "+
				"selection used (%s): K_II + B⁻¹ could not be factorised or EP failed on the "+
				"active set", t+1, l.k)
	}
	tol := optimize.SCG{TolX: kernelTolX, TolF: math.Max(1e-4, kernelTolF*math.Abs(f0))}
	if l.opt.NetlabTolerances {
		tol = optimize.SCG{}
	}
	r, err := optimize.Minimize(p.Eval, free, optimize.Options{Method: l.method,
		MaxIter: l.opt.KernelIters, SCG: tol})
	if err != nil {
		return fmt.Errorf("ivm: kernel optimisation, outer iteration %d: %w", t+1, err)
	}
	if err := l.k.SetFree(r.X); err != nil {
		return err
	}
	tr.KernelBefore, tr.KernelAfter, tr.KernelSteps = r.F0, r.F, r.Iterations
	tr.EPFailures, tr.EPUnconverged, tr.Failures = p.epFailures, p.unconverged, p.failures
	return nil
}

// noiseStep minimises the noise objective at the current selection's marginals and leaves
// the noise models at the optimiser's answer.
func (l *loop) noiseStep(t int, tr *IterTrace) error {
	if err := l.noise.Prepare(); err != nil {
		return err
	}
	x0, err := l.noise.Free()
	if err != nil {
		return err
	}
	r, err := optimize.Minimize(l.noise.Eval, x0, optimize.Options{Method: l.method,
		MaxIter: l.opt.NoiseIters})
	if err != nil {
		return fmt.Errorf("ivm: noise optimisation, outer iteration %d: %w", t+1, err)
	}
	l.noise.Eval(r.X, nil)
	tr.NoiseBefore, tr.NoiseAfter, tr.NoiseSteps = r.F0, r.F, r.Iterations
	return nil
}

// safeguard accepts the new parameters only if the model they select predicts the
// held-out labels about as well as the best so far (within acceptTol per point); otherwise
// it moves halfway back towards the best, up to maxHalvings times, and marks the iteration
// rejected if that does not help either (learning then stops). Greedy selection under new
// parameters can pick a much worse active set than the objective's view of the old one
// suggests; this makes Algorithm 2 monotone in held-out likelihood.
func (l *loop) safeguard(t int, tr *IterTrace) error {
	ok := func() bool { return l.h >= l.bestScore-acceptTol }
	for tr.Halvings = 0; !ok() && tr.Halvings < maxHalvings; tr.Halvings++ {
		cur, err := l.state()
		if err != nil {
			return err
		}
		for i := range cur {
			cur[i] = 0.5 * (cur[i] + l.best[i])
		}
		if err := l.setState(cur); err != nil {
			return err
		}
		if err := l.selectAll(); err != nil {
			return err
		}
	}
	switch {
	case !ok():
		tr.Rejected = true
	case l.h > l.bestScore:
		best, err := l.state()
		if err != nil {
			return err
		}
		l.best, l.bestScore, l.bestIter = best, l.h, t+1
	}
	return nil
}

// state returns what the safeguard keeps and blends: the kernel's free parameters, then
// the noise parameters when there is a noise step.
func (l *loop) state() ([]float64, error) {
	x := make([]float64, l.k.NumFree())
	l.k.Free(x)
	if l.noise == nil {
		return x, nil
	}
	nx, err := l.noise.state(l.opt.BlendNoiseNatural)
	return append(x, nx...), err
}

func (l *loop) setState(x []float64) error {
	nk := l.k.NumFree()
	if err := l.k.SetFree(x[:nk]); err != nil {
		return err
	}
	if l.noise == nil {
		return nil
	}
	return l.noise.setState(l.opt.BlendNoiseNatural, x[nk:])
}

// inactive counts the points outside the selectors' active sets.
func inactive(sels []*Selector) int {
	n := 0
	for _, s := range sels {
		n += s.n - s.size
	}
	return n
}
