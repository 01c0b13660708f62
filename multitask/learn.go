package multitask

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/optimize"
)

// LearnOptions configures Learn. The zero value gives the papers' settings (d = 100, 8 outer
// iterations of at most 100 SCG steps) with the EP objective and the held-out safeguard.
type LearnOptions struct {
	// ActiveSize is d, the number of active points over all tasks (default 100).
	ActiveSize int
	// PerTask > 0 replaces the greedy selection by random sub-sampling, the papers'
	// baseline: PerTask points drawn at random from every task (all of a smaller task),
	// the same subset in every outer iteration, included in random order. ActiveSize is
	// then ignored.
	PerTask int
	// Seed seeds the random sub-sample.
	Seed uint64
	// Iters is the number T of outer iterations (default 8).
	Iters int
	// KernelIters bounds the optimiser's iterations per outer iteration (default 100); a
	// negative value skips kernel learning (the selection alone).
	KernelIters int
	// Optimizer is optimize.MethodSCG (the default) or optimize.MethodLBFGS.
	Optimizer string
	// NetlabTolerances stops SCG by Netlab's rule as the reference toolbox does (|Δx| and
	// |Δf| below 1e−4 at a successful step) instead of the looser tolerances that suit the
	// EP objective (1e−3 in x, 1e−5 relative in f).
	NetlabTolerances bool
	// NoiseIters > 0 adds Algorithm 2's optional noise step to every outer iteration:
	// select, then at most NoiseIters optimiser steps on IVM paper eq. 34 (Σ ln Z_n over
	// the inactive training points of every task at the selection's marginals; see
	// noiseProblem for why not the active ones; for homoscedastic Gaussian tasks the
	// active sets' posteriors are recomputed at every noise variance tried, exactTerm)
	// with the noise parameters tied across tasks. The tasks' noise models must have the same parameters; a Gaussian model's
	// bias is then shared too. The next kernel step runs on the same active set with the
	// new noise parameters, and a final selection follows the last noise step.
	NoiseIters int
	// Objective is the kernel objective (default EPEvidence).
	Objective Objective
	// Priors maps free kernel parameter names (kern.Sum.FreeNames) to priors on their
	// natural values; the prior is counted once, not once per task.
	Priors map[string]ivm.Prior
	// LastIterate accepts every outer iteration and keeps the last parameters, as the
	// papers do. By default an iteration is accepted only if the model its parameters select
	// predicts the inactive training points of all tasks (Selector.HeldOutLogLik) about as
	// well as the best so far, with up to three steps halfway back before learning stops;
	// with fewer than 50 inactive points the safeguard is off.
	LastIterate bool
	// Workers bounds the goroutines across tasks and within a task's selector (0: all
	// cores); Criterion is the tasks' selection score.
	Workers   int
	Criterion ivm.Criterion
	// Progress, when set, is called after every outer iteration.
	Progress func(IterTrace)
}

// IterTrace reports one outer iteration of Learn, or (Final) the returned model.
type IterTrace struct {
	Iter int
	// HeldOut is the held-out log likelihood per point after this iteration's first
	// selection (Selector.HeldOutLogLik).
	HeldOut float64
	// Before and After are the objective at the start and end of the optimisation, Steps
	// the optimiser's iterations; Failures counts refused evaluations (a task's EP or
	// factorisation failed), Unconverged evaluations where some task's EP hit its sweep
	// limit.
	Before, After float64
	Steps         int
	// NoiseBefore, NoiseAfter and NoiseSteps are the same for the noise step (NoiseIters).
	NoiseBefore, NoiseAfter float64
	NoiseSteps              int
	Failures                int
	Unconverged             int
	// Halvings counts steps back towards the best parameters (the safeguard); Rejected says
	// even the last was worse, so learning stopped at the best.
	Halvings        int
	Rejected, Final bool
	// KernelParams are the natural kernel parameters the iteration started from (Final: the
	// returned ones); ActivePerTask the active points of every task after its first selection.
	KernelParams  []float64
	ActivePerTask []int
}

// LearnResult is the record of a Learn run.
type LearnResult struct {
	Trace []IterTrace
	// Best is the number of outer iterations whose parameters the model uses.
	Best int
}

// Safeguard constants, as in the root package's Learn.
const (
	maxHalvings    = 3
	acceptTol      = 2e-3
	minGuardPoints = 50
	kernelTolX     = 1e-3
	kernelTolF     = 1e-5
)

// Learn runs Algorithm 2 over tasks: T outer iterations of [select the active points across
// tasks; minimise the multi-task objective over the shared kernel's parameters by SCG],
// then a final selection with the accepted parameters. It changes k's parameters to the
// learnt ones and returns the model of the final selection.
func Learn(tasks []Task, k *kern.Sum, opt LearnOptions) (*Model, *LearnResult, error) {
	if k == nil {
		return nil, nil, errors.New("multitask: Learn needs a kernel")
	}
	d := opt.ActiveSize
	if d == 0 {
		d = 100
	}
	iters := opt.Iters
	if iters == 0 {
		iters = 8
	}
	kIters := opt.KernelIters
	if kIters == 0 {
		kIters = 100
	}
	priors, err := ivm.FreePriors(k, opt.Priors)
	if err != nil {
		return nil, nil, err
	}
	s, err := NewSelector(tasks, k, ivm.Options{Workers: opt.Workers, Criterion: opt.Criterion})
	if err != nil {
		return nil, nil, err
	}
	var subset [][]int
	if opt.PerTask > 0 {
		subset = randomSubsets(tasks, opt.PerTask, opt.Seed)
		d = 0
		for _, sub := range subset {
			d += len(sub)
		}
	}
	if n := s.NumPoints(); d > n {
		return nil, nil, fmt.Errorf("multitask: %d active points requested from %d training points", d, n)
	}
	selectAll := func() (float64, error) {
		if err := s.Reset(); err != nil {
			return 0, err
		}
		if subset == nil {
			err = s.Select(d)
		} else {
			err = s.includeSubsets(subset)
		}
		if err != nil {
			return 0, err
		}
		return s.HeldOutLogLik(), nil
	}
	h, err := selectAll()
	if err != nil {
		return nil, nil, err
	}
	var np *noiseProblem
	if opt.NoiseIters > 0 && tasks[0].Noise.NumParams() > 0 {
		if np, err = newNoiseProblem(s, k.PositiveTransform()); err != nil {
			return nil, nil, err
		}
	}
	// The safeguard keeps and blends the state: the kernel's free parameters, then the
	// shared noise parameters (transformed) when there is a noise step.
	nk := k.NumFree()
	state := func() ([]float64, error) {
		x := make([]float64, nk)
		k.Free(x)
		if np == nil {
			return x, nil
		}
		nx, err := np.free()
		return append(x, nx...), err
	}
	setState := func(x []float64) error {
		if err := k.SetFree(x[:nk]); err != nil {
			return err
		}
		if np != nil && math.IsNaN(np.eval(x[nk:], nil)) {
			return fmt.Errorf("multitask: the noise models refuse the parameters %v", x[nk:])
		}
		return nil
	}
	res := &LearnResult{}
	best, err := state()
	if err != nil {
		return nil, nil, err
	}
	bestScore, bestIter := h, 0
	stale := false
	guard := !opt.LastIterate && s.NumPoints()-d >= minGuardPoints
	for t := 0; t < iters && kIters > 0; t++ {
		tr := IterTrace{Iter: t, HeldOut: h, KernelParams: naturalParams(k), ActivePerTask: s.perTask()}
		free := make([]float64, k.NumFree())
		k.Free(free)
		p := newProblem(s, k, opt.Objective, priors)
		f0 := p.eval(free, nil)
		if math.IsNaN(f0) {
			return nil, nil, fmt.Errorf("multitask: outer iteration %d: the objective is undefined at the starting parameters", t+1)
		}
		tol := optimize.SCG{TolX: kernelTolX, TolF: math.Max(1e-4, kernelTolF*math.Abs(f0))}
		if opt.NetlabTolerances {
			tol = optimize.SCG{}
		}
		r, err := optimize.Minimize(p.eval, free, optimize.Options{Method: opt.Optimizer, MaxIter: kIters, SCG: tol})
		if err != nil {
			return nil, nil, fmt.Errorf("multitask: kernel optimisation, outer iteration %d: %w", t+1, err)
		}
		if err := k.SetFree(r.X); err != nil {
			return nil, nil, err
		}
		tr.Before, tr.After, tr.Steps = r.F0, r.F, r.Iterations
		tr.Failures, tr.Unconverged = p.failures, p.unconverged
		if h, err = selectAll(); err != nil {
			return nil, nil, err
		}
		if np != nil {
			// The noise step uses this selection's marginals. Without the safeguard the
			// next kernel step runs on this active set (its objective takes the new
			// noise parameters) and the next selection, or the last one below, follows
			// it: one selection per outer iteration, as without a noise step.
			if err := np.prepare(); err != nil {
				return nil, nil, err
			}
			x0, err := np.free()
			if err != nil {
				return nil, nil, err
			}
			r, err := optimize.Minimize(np.eval, x0, optimize.Options{Method: opt.Optimizer, MaxIter: opt.NoiseIters})
			if err != nil {
				return nil, nil, fmt.Errorf("multitask: noise optimisation, outer iteration %d: %w", t+1, err)
			}
			np.eval(r.X, nil) // leave the tasks at the optimiser's answer
			tr.NoiseBefore, tr.NoiseAfter, tr.NoiseSteps = r.F0, r.F, r.Iterations
			stale = true
			if guard {
				if h, err = selectAll(); err != nil {
					return nil, nil, err
				}
				stale = false
			}
		}
		if guard {
			ok := func() bool { return h >= bestScore-acceptTol }
			for tr.Halvings = 0; !ok() && tr.Halvings < maxHalvings; tr.Halvings++ {
				cur, err := state()
				if err != nil {
					return nil, nil, err
				}
				for i := range cur {
					cur[i] = 0.5 * (cur[i] + best[i])
				}
				if err := setState(cur); err != nil {
					return nil, nil, err
				}
				if h, err = selectAll(); err != nil {
					return nil, nil, err
				}
			}
			switch {
			case !ok():
				tr.Rejected = true
			case h > bestScore:
				if best, err = state(); err != nil {
					return nil, nil, err
				}
				bestScore, bestIter = h, t+1
			}
		}
		res.Trace = append(res.Trace, tr)
		if opt.Progress != nil {
			opt.Progress(tr)
		}
		if tr.Rejected {
			break
		}
	}
	res.Best = len(res.Trace)
	if guard && len(res.Trace) > 0 && (res.Trace[len(res.Trace)-1].Rejected || bestIter != len(res.Trace)) {
		res.Best = bestIter
		if err := setState(best); err != nil {
			return nil, nil, err
		}
		stale = true
	}
	if stale { // the parameters changed after the last selection
		if h, err = selectAll(); err != nil {
			return nil, nil, err
		}
	}
	final := IterTrace{Iter: len(res.Trace), HeldOut: h, KernelParams: naturalParams(k), ActivePerTask: s.perTask(), Final: true}
	res.Trace = append(res.Trace, final)
	if opt.Progress != nil {
		opt.Progress(final)
	}
	m, err := s.Model()
	return m, res, err
}

// randomSubsets draws per points of every task without replacement (all of a smaller
// task), in random order.
func randomSubsets(tasks []Task, per int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0x6d74))
	out := make([][]int, len(tasks))
	for m, t := range tasks {
		n, _ := t.X.Dims()
		perm := rng.Perm(n)
		out[m] = perm[:min(per, n)]
	}
	return out
}

// includeSubsets includes the given points of every task, task by task.
func (s *Selector) includeSubsets(sub [][]int) error {
	for m, idx := range sub {
		for _, i := range idx {
			if err := s.Include(m, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// perTask returns the number of active points of every task.
func (s *Selector) perTask() []int {
	out := make([]int, len(s.sels))
	for m, sel := range s.sels {
		out[m] = sel.Size()
	}
	return out
}

func naturalParams(k *kern.Sum) []float64 {
	p := make([]float64, k.NumParams())
	k.Params(p)
	return p
}
