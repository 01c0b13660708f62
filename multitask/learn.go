package multitask

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
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
	// Optimizer is the optimiser of the kernel and noise steps (default OptimizerSCG).
	Optimizer Optimizer
	// NetlabTolerances stops SCG by Netlab's rule as the reference toolbox does (|Δx| and
	// |Δf| below 1e−4 at a successful step) instead of the looser tolerances that suit the
	// EP objective (1e−3 in x, 1e−5 relative in f).
	NetlabTolerances bool
	// NoiseIters > 0 adds Algorithm 2's optional noise step to every outer iteration:
	// select, then at most NoiseIters optimiser steps on IVM paper eq. 34 (Σ ln Z_n over
	// the inactive training points of every task at the selection's marginals; see
	// engine.NoiseOptions.InactiveOnly for why not the active ones; for homoscedastic
	// Gaussian tasks the active sets' posteriors are recomputed at every noise variance
	// tried, engine.NoiseOptions.Exact) with the noise parameters tied across tasks. The
	// tasks' noise models must have the same parameters; a Gaussian model's bias is then
	// shared too. The next kernel step runs on the same active set with the
	// new noise parameters, and a final selection follows the last noise step.
	NoiseIters int
	// Objective is the kernel objective (default ObjectiveAuto, which is EPEvidence here).
	Objective Objective
	// Priors maps free kernel parameter names (kern.Sum.FreeNames) to priors on their
	// natural values; the prior is counted once, not once per task.
	Priors map[string]engine.Prior
	// LastIterate accepts every outer iteration and keeps the last parameters, as the
	// papers do. By default an iteration is accepted only if the model its parameters select
	// predicts the inactive training points of all tasks (Selector.HeldOutLogLik) about as
	// well as the best so far, with up to three steps halfway back before learning stops;
	// with fewer than 50 inactive points the safeguard is off.
	LastIterate bool
	// Workers bounds the goroutines across tasks and within a task's selector (0: all
	// cores); Criterion is the tasks' selection score.
	Workers   int
	Criterion engine.Criterion
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

// Learn runs Algorithm 2 over tasks: T outer iterations of [select the active points across
// tasks; minimise the multi-task objective over the shared kernel's parameters by SCG],
// then a final selection with the accepted parameters (engine.RunLearn, the loop the
// single-task IVM uses too). It changes k's parameters to the learnt ones and returns the
// model of the final selection.
func Learn(tasks []Task, k *kern.Sum, opt LearnOptions) (*Model, *LearnResult, error) {
	if k == nil {
		return nil, nil, errors.New("multitask: Learn needs a kernel")
	}
	d := opt.ActiveSize
	if d == 0 {
		d = 100
	}
	priors, err := engine.FreePriors(k, opt.Priors)
	if err != nil {
		return nil, nil, err
	}
	s, err := NewSelector(tasks, k, engine.Options{Workers: opt.Workers, Criterion: opt.Criterion})
	if err != nil {
		return nil, nil, err
	}
	ts := &taskSet{s: s, d: d}
	if opt.PerTask > 0 {
		ts.subset = randomSubsets(tasks, opt.PerTask, opt.Seed)
		ts.d = 0
		for _, sub := range ts.subset {
			ts.d += len(sub)
		}
	}
	if n := s.NumPoints(); ts.d > n {
		return nil, nil, fmt.Errorf(
			"multitask: %d active points requested from %d training points", ts.d, n)
	}
	iters := opt.Iters
	if opt.KernelIters < 0 {
		iters = -1 // no kernel step: the selection alone
	}
	names := make([]string, len(tasks))
	for m, t := range tasks {
		names[m] = t.Name
	}
	lo := engine.LoopOptions{Iters: iters, KernelIters: opt.KernelIters, NoiseIters: opt.NoiseIters,
		Noise: engine.NoiseOptions{Names: names, InactiveOnly: true, Exact: gaussianParams,
			Workers: s.workers},
		Optimizer: opt.Optimizer, NetlabTolerances: opt.NetlabTolerances,
		Objective: opt.Objective.Or(defaultObjective),
		Priors:    priors, LastIterate: opt.LastIterate, LazyNoiseSelect: true, Workers: s.workers}
	if opt.Progress != nil {
		lo.Progress = func(tr engine.IterTrace) { opt.Progress(fromEngine(tr)) }
	}
	er, err := engine.RunLearn(ts, k, lo)
	if err != nil {
		return nil, nil, err
	}
	res := &LearnResult{Best: er.Best}
	for _, tr := range er.Trace {
		res.Trace = append(res.Trace, fromEngine(tr))
	}
	m, err := s.Model()
	return m, res, err
}

// fromEngine is the multi-task view of the loop's record.
func fromEngine(tr engine.IterTrace) IterTrace {
	return IterTrace{Iter: tr.Iter, HeldOut: tr.HeldOut, Before: tr.KernelBefore,
		After: tr.KernelAfter, Steps: tr.KernelSteps,
		NoiseBefore: tr.NoiseBefore, NoiseAfter: tr.NoiseAfter, NoiseSteps: tr.NoiseSteps,
		Failures: tr.Failures, Unconverged: tr.EPUnconverged, Halvings: tr.Halvings,
		Rejected: tr.Rejected, Final: tr.Final,
		KernelParams: tr.KernelParams, ActivePerTask: tr.ActivePerTask}
}

// taskSet is the loop's Tasks for the multi-task selector: d points chosen across tasks, or
// the fixed random subsets of the sub-sampling baseline.
type taskSet struct {
	s      *Selector
	d      int
	subset [][]int
}

func (t *taskSet) Selectors() []*engine.Selector { return t.s.sels }

func (t *taskSet) Select() error {
	if err := t.s.Reset(); err != nil {
		return err
	}
	if t.subset != nil {
		return t.s.includeSubsets(t.subset)
	}
	return t.s.Select(t.d)
}

func (t *taskSet) HeldOutLogLik() float64 { return t.s.HeldOutLogLik() }

// gaussianParams returns how the model's natural parameters map to (bias, variance):
// the index of each in Params (−1 for a bias fixed at zero), or ok = false when the noise
// step cannot use the exact path (not a homoscedastic Gaussian; engine.NoiseOptions.Exact).
func gaussianParams(nm noise.Model) (bias, variance int, ok bool) {
	switch g := nm.(type) {
	case *noise.Gaussian:
		return 0, 1, g.Precision == nil
	case *zeroMeanGaussian:
		return -1, 0, g.Precision == nil
	}
	return 0, 0, false
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
