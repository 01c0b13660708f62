package engine

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/param"
)

// NoiseOptions configures the noise step of Algorithm 2 (NoiseObjective).
type NoiseOptions struct {
	// Names name the selectors' tasks in errors (nil: by number).
	Names []string
	// InactiveOnly sums ln Z_n over the inactive points only. An active point's marginal
	// already contains its own likelihood term, so its residual is shrunk and counting it
	// again pulls a Gaussian noise variance towards zero: on the multi-task IVM's
	// regression tasks, summed over all points, it collapsed within two outer iterations
	// and the next selection broke down numerically, while over the inactive points it
	// settled near the truth (bench/RESULTS.md records the runs).
	// Without it the sum runs over all N points, IVM paper eq. 34 as written (the papers'
	// single-task protocol).
	InactiveOnly bool
	// Exact, when set, says how a noise model's natural parameters map to the bias and
	// variance of a homoscedastic Gaussian (index of each in Params, bias −1 when fixed at
	// zero; ok false otherwise). When every selector's model is one, the exact terms
	// (exactTerm) replace the selection's fixed marginals.
	Exact func(nm noise.Model) (bias, variance int, ok bool)
	// Workers bounds the goroutines preparing the exact terms (0: all cores).
	Workers int
}

// NoiseObjective is IVM paper eq. 34 over one or more selectors: −Σ ln Z_n at the current
// posterior marginals of the training points, as a function of the noise parameters in the
// optimiser's free space. The selectors' noise models share the parameters (tied like the
// kernel: every model gets the same values). The marginals are those of the last selection;
// Algorithm 2 reselects after the optimiser has moved the parameters.
type NoiseObjective struct {
	sels  []*Selector
	opt   NoiseOptions
	trans []param.Transform
	nat   []float64
	g     []float64
	// For homoscedastic Gaussian tasks the exact terms replace the fixed marginals;
	// biasAt and varAt locate bias (−1: none) and variance in the parameters.
	exact         bool
	biasAt, varAt int
	terms         []*exactTerm
}

// NewNoiseObjective checks that the selectors' noise models have the same parameters and
// returns the objective; positive is the transform of positive parameters.
func NewNoiseObjective(sels []*Selector, positive param.Transform,
	opt NoiseOptions) (*NoiseObjective, error) {
	first := sels[0].Noise
	names := first.ParamNames()
	for m, s := range sels[1:] {
		if s.Noise.Name() != first.Name() || fmt.Sprint(s.Noise.ParamNames()) != fmt.Sprint(names) {
			return nil,
				fmt.Errorf(
					"ivm: noise updates tie the tasks' noise parameters, but task %q has a %s "+
						"model with %v and task %q a %s model with %v",
					opt.name(0), first.Name(), names, opt.name(m+1), s.Noise.Name(),
					s.Noise.ParamNames())
		}
	}
	np := first.NumParams()
	p := &NoiseObjective{sels: sels, opt: opt, nat: make([]float64, np), g: make([]float64, np)}
	if opt.Exact != nil {
		p.biasAt, p.varAt, p.exact = opt.Exact(first)
		for _, s := range sels[1:] {
			if _, _, ok := opt.Exact(s.Noise); !ok {
				p.exact = false
			}
		}
	}
	for _, k := range first.ParamKinds() {
		p.trans = append(p.trans, param.Default(k, positive))
	}
	return p, nil
}

func (o NoiseOptions) name(m int) string {
	if m < len(o.Names) {
		return o.Names[m]
	}
	return fmt.Sprint(m)
}

// Prepare sets up the exact terms on the current active sets (nothing to do for other
// noise models); call it after every selection, before optimising.
func (p *NoiseObjective) Prepare() error {
	if !p.exact {
		return nil
	}
	p.terms = make([]*exactTerm, len(p.sels))
	return pool.ForEachErr(len(p.sels), pool.Workers(p.opt.Workers), func(m int) (err error) {
		p.terms[m], err = newExactTerm(p.sels[m], p.opt.name(m))
		return err
	})
}

// Exact reports whether the exact terms are in use (after Prepare).
func (p *NoiseObjective) Exact() bool { return p.terms != nil }

// Free returns the first selector's noise parameters in free space: the starting point
// (the first evaluation ties every model to them).
func (p *NoiseObjective) Free() ([]float64, error) {
	first := p.sels[0].Noise
	first.Params(p.nat)
	x := make([]float64, len(p.nat))
	for i, v := range p.nat {
		u, err := p.trans[i].Inverse(v)
		if err != nil {
			return nil, fmt.Errorf("ivm: noise parameter %s: %w", first.ParamNames()[i], err)
		}
		x[i] = u
	}
	return x, nil
}

// Eval sets every selector's noise parameters to x (free space) and returns −Σ ln Z_n, with
// its gradient in grad when grad is not nil; NaN where a model refuses the parameters.
func (p *NoiseObjective) Eval(x, grad []float64) float64 {
	for i, u := range x {
		p.nat[i] = p.trans[i].Forward(u)
	}
	clear(p.g)
	f := 0.0
	for m, s := range p.sels {
		if err := s.Noise.SetParams(p.nat); err != nil {
			return math.NaN()
		}
		if p.terms != nil {
			lz, ok := p.exactTerm(m)
			if !ok {
				return math.NaN()
			}
			f -= lz
			continue
		}
		for n, y := range s.Y {
			if p.opt.InactiveOnly && s.active[n] {
				continue
			}
			lz, _, _ := s.Noise.Moments(n, y, s.mu[n], s.varsigma[n])
			f -= lz
			if grad != nil {
				s.Noise.GradParams(p.g, n, y, s.mu[n], s.varsigma[n])
			}
		}
	}
	for i := range grad {
		grad[i] = -p.g[i] * p.trans[i].Factor(p.nat[i])
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

// exactTerm evaluates selector m's exact term at the current parameters and adds its
// derivatives to p.g.
func (p *NoiseObjective) exactTerm(m int) (lz float64, ok bool) {
	b := 0.0
	if p.biasAt >= 0 {
		b = p.nat[p.biasAt]
	}
	lz, db, dv, ok := p.terms[m].eval(b, p.nat[p.varAt])
	if !ok {
		return 0, false
	}
	if p.biasAt >= 0 {
		p.g[p.biasAt] += db
	}
	p.g[p.varAt] += dv
	return lz, true
}

// state returns the noise parameters for the safeguard of Algorithm 2 to keep and blend:
// natural (every noise parameter's range is an interval, so a midpoint stays valid) or in
// free space.
func (p *NoiseObjective) state(natural bool) ([]float64, error) {
	if !natural {
		return p.Free()
	}
	nat := make([]float64, len(p.nat))
	p.sels[0].Noise.Params(nat)
	return nat, nil
}

// setState sets what state returned, or a blend of such.
func (p *NoiseObjective) setState(natural bool, x []float64) error {
	if !natural {
		if math.IsNaN(p.Eval(x, nil)) {
			return fmt.Errorf("ivm: the noise models refuse the parameters %v", x)
		}
		return nil
	}
	for _, s := range p.sels {
		if err := s.Noise.SetParams(x); err != nil {
			return err
		}
	}
	return nil
}
