package engine

// Kernel and noise parameter learning: Algorithm 2 of the IVM paper.
//
// Why the reference's Algorithm 2 collapses, and what this one does instead.
//
// The reference minimises the active-set objective of eq. 32 — ½ ln|K_II + B⁻¹| + ½
// mᵀ(K_II + B⁻¹)⁻¹m with the site means m and precisions β of the last selection held
// fixed — for 100 SCG iterations per outer iteration. Those sites were fitted for the old kernel.
// Treating them as fixed pseudo-observations is justified only near the old kernel (at an EP fixed
// point the gradient of the true approximate evidence equals the fixed-site gradient; away from it
// the two part). For the probit model with its near-step likelihood (σ² = 1e−6, the slope
// carried by the white kernel term) the true evidence is almost invariant to scaling all kernel
// variances together, but the fixed-site objective is not: with the pseudo-observations m fixed it
// keeps paying less ln|A| as K shrinks, and 100 iterations walk the variances to zero. The next
// selection then sees a prior that explains nothing, sites with β near machine epsilon dominate
// ln|A|, the toolbox needs a jitter many orders above the kernel's scale to factorise at all,
// and the model predicts a constant.
//
// This package makes four changes, each principled rather than a clamp:
//
//  1. The objective is the EP approximation of the marginal likelihood of the active
//     labels, −ln Z_EP(y_I | θ), with the sites refitted by EP on the active set for every θ
//     the optimiser tries (infer.EP). It is a proper function of θ, well defined as the sites
//     change, and its gradient ½ tr((A⁻¹ − ααᵀ)∂K/∂θ) is exact at the EP fixed point. For
//     Gaussian noise it is the exact marginal likelihood of the active subset. The
//     reference's objective remains available (FixedSites) for parity.
//  2. The objective counts every label, not only the active ones (FullData): the active
//     set is chosen for being surprising, and the evidence of its labels alone prefers a
//     prior that explains nothing (on class500_d100 the EP evidence of the active set alone
//     also ends at a constant predictor). The predictive log likelihood of the inactive
//     points given the active set is added — the chain rule p(y) = p(y_I) p(y_R | y_I).
//  3. The parameters an outer iteration proposes are accepted only if the model they
//     select predicts the inactive training points (HeldOutLogLik) at least as well as the
//     best so far; otherwise the step is halved back towards the best, and learning stops
//     if that fails. Greedy selection under new parameters can pick a much worse active
//     set than the objective's view of the old one suggests; this makes Algorithm 2
//     monotone in held-out likelihood.
//  4. Optional priors on parameters (GammaPrior, ExponentialPrior) pin directions the data
//     cannot determine.
//
// Factorisations that fail during optimisation make the step fail (the optimiser backs off); no
// jitter is added silently anywhere.

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// LearnOptions configures Learn. The zero value gives the papers' defaults.
type LearnOptions struct {
	// ActiveSize is d, the active set size (default 100).
	ActiveSize int
	// Iters is the number T of outer iterations (default 8, as the papers).
	Iters int
	// KernelIters bounds the optimiser's iterations on the kernel per outer iteration
	// (default 100); a negative value skips kernel learning.
	KernelIters int
	// NoiseIters bounds the optimiser's iterations on the noise parameters per outer
	// iteration (IVM paper eq. 34); 0, the default, leaves them as Init set them.
	NoiseIters int
	// Optimizer is the optimiser of the kernel and noise steps (default OptimizerSCG, the
	// papers').
	Optimizer Optimizer
	// Objective is the kernel objective (default ObjectiveAuto, which is FullData here).
	Objective Objective
	// HeldOut bounds the inactive points in FullData's predictive term (default 500; a
	// random subset, drawn anew every outer iteration, when there are more).
	HeldOut int
	// Seed seeds that subset.
	Seed uint64
	// Priors maps free kernel parameter names (kern.Sum.FreeNames, e.g. "rbf.variance") to
	// priors on their natural values.
	Priors map[string]Prior
	// LastIterate turns off the held-out safeguard: every outer iteration's parameters are
	// accepted and the last are used, as in the reference. By default an iteration is
	// accepted only if the model its parameters select predicts the inactive training
	// points about as well as the best so far (HeldOutLogLik), with up to three steps
	// halfway back towards the best before learning stops. With fewer than 50 inactive
	// points there is too little to measure and the safeguard is off.
	LastIterate bool
	// Refine runs swap refinement and EP sweeps (Selector.Refine) on the final active set.
	Refine bool
	// Workers and Criterion are passed to the Selector.
	Workers   int
	Criterion Criterion
	// Progress, when set, is called after every outer iteration.
	Progress func(IterTrace)
	// Step is passed to the Selector (called after every inclusion of every selection).
	Step func(size int)
}

// IterTrace reports one outer iteration of Algorithm 2, or (Final) the returned model.
type IterTrace struct {
	Iter int
	// HeldOut is the held-out log likelihood per point (HeldOutLogLik) after this
	// iteration's first selection, with the parameters it started from.
	HeldOut float64
	// KernelBefore and KernelAfter are the kernel objective at the start and end of its
	// optimisation, KernelSteps the optimiser's iterations.
	KernelBefore float64
	KernelAfter  float64
	KernelSteps  int
	// NoiseBefore, NoiseAfter and NoiseSteps are the same for the noise parameters.
	NoiseBefore float64
	NoiseAfter  float64
	NoiseSteps  int
	// KernelParams and NoiseParams are the natural parameters this iteration started from.
	KernelParams []float64
	NoiseParams  []float64
	// EPFailures counts objective evaluations where EP failed (the step was refused);
	// EPUnconverged those where it stopped at its sweep limit.
	EPFailures    int
	EPUnconverged int
	// Halvings counts the steps back towards the best parameters this iteration took
	// because the new ones selected a model with a worse held-out likelihood; Rejected
	// says that even the last of them was worse, so learning stopped at the best.
	Halvings int
	Rejected bool
	// Final marks the record of the model Learn returns (HeldOut and parameters only).
	Final bool
	// Failures counts objective evaluations refused because EP or a factorisation failed
	// on some active set (EPFailures counts the EP ones).
	Failures int
	// ActivePerTask holds the active points of every task at the iteration's start (one
	// entry for a single task).
	ActivePerTask []int
}

// LearnResult is the record of a Learn run.
type LearnResult struct {
	Trace []IterTrace
	// Best is the number of outer iterations whose result the model uses (0: the starting
	// parameters).
	Best int
	// Refine reports the refinement of the final active set when LearnOptions.Refine is set.
	Refine *RefineStats
}

// Learn runs Algorithm 2 on one task: T outer iterations of [select d points; optimise the
// kernel parameters on the active set] and, with NoiseIters > 0, [select; optimise the
// noise parameters on all points at the posterior], then a final selection with the
// parameters that scored best (RunLearn's loop, shared with the multi-task IVM). It changes
// k's and nm's parameters to the learnt ones.
func Learn(x *mat.Dense, y []float64, k *kern.Sum, nm noise.Model, opt LearnOptions) (*Model,
	*LearnResult, error) {
	if k == nil {
		return nil, nil, errors.New("ivm: Learn needs a kernel")
	}
	d := opt.ActiveSize
	if d == 0 {
		d = 100
	}
	priors, err := FreePriors(k, opt.Priors)
	if err != nil {
		return nil, nil, err
	}
	sel, err := NewSelector(x, y, k, nm, Options{Workers: opt.Workers, Criterion: opt.Criterion,
		Step: opt.Step})
	if err != nil {
		return nil, nil, err
	}
	if d > sel.n {
		return nil, nil, fmt.Errorf(
			"ivm: active set of %d points requested from %d training points", d, sel.n)
	}
	lo := LoopOptions{Iters: opt.Iters, KernelIters: opt.KernelIters, NoiseIters: opt.NoiseIters,
		Optimizer: opt.Optimizer, Objective: opt.Objective, HeldOut: opt.HeldOut, Seed: opt.Seed,
		Priors:      priors,
		LastIterate: opt.LastIterate, BlendNoiseNatural: true, Workers: opt.Workers,
		Progress: opt.Progress}
	var refine *RefineStats
	if opt.Refine {
		lo.Finish = func() (float64, error) {
			st, err := sel.Refine(RefineOptions{})
			if err != nil {
				return 0, fmt.Errorf("ivm: refining the final active set: %w", err)
			}
			refine = &st
			return sel.HeldOutLogLik(), nil
		}
	}
	res, err := RunLearn(oneTask{sel, d}, k, lo)
	if err != nil {
		return nil, nil, err
	}
	res.Refine = refine
	m, err := sel.Model()
	return m, res, err
}

// oneTask is Algorithm 2's Tasks for a single selector choosing d points.
type oneTask struct {
	sel *Selector
	d   int
}

func (o oneTask) Selectors() []*Selector { return []*Selector{o.sel} }

func (o oneTask) Select() error {
	if err := o.sel.Reset(); err != nil {
		return err
	}
	return o.sel.Select(o.d)
}

func (o oneTask) HeldOutLogLik() float64 { return o.sel.HeldOutLogLik() }

// FreePriors maps priors named by free kernel parameter (kern.Sum.FreeNames) to a slice
// indexed like the free parameters (nil entries: flat); a name that is not a free
// parameter is an error.
func FreePriors(k *kern.Sum, named map[string]Prior) ([]Prior, error) {
	if len(named) == 0 {
		return nil, nil
	}
	names := k.FreeNames()
	out := make([]Prior, len(names))
	for name, p := range named {
		found := false
		for i, n := range names {
			if n == name {
				out[i], found = p, true
			}
		}
		if !found {
			return nil, fmt.Errorf("ivm: prior on %q, which is not a free kernel parameter (%v)",
				name, names)
		}
	}
	return out, nil
}

func naturalParams(k kern.Kernel) []float64 {
	p := make([]float64, k.NumParams())
	k.Params(p)
	return p
}

func noiseParams(nm noise.Model) []float64 {
	p := make([]float64, nm.NumParams())
	nm.Params(p)
	return p
}
