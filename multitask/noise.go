package multitask

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/param"
)

// noiseProblem is IVM paper eq. 34 over tasks: −Σ_m Σ_n ln Z_n at the current posterior
// marginals of the inactive training points of every task, as a function of the noise
// parameters, which the tasks share (tied like the kernel: every task's noise model gets
// the same values). The marginals are those of the last selection; Learn reselects after
// the optimiser has moved the parameters, as Algorithm 2 does.
//
// Active points are left out, unlike the single-task engine's eq. 34: an active point's
// marginal q_d(f_n) already contains its own likelihood term, so its residual is shrunk
// and counting it again pulls a Gaussian noise variance towards zero. Measured: four
// tasks of 400 points, 30 active per task, true variance 0.01 — over all points the
// variance fell from 0.0105 to 1e−9 in the second outer iteration (and the next selection
// broke down numerically); over the inactive points it settled at 0.0135. The inactive
// points' ln Z_n are proper predictive probabilities of labels the active set did not use.
type noiseProblem struct {
	s     *Selector
	trans []param.Transform
	nat   []float64
	g     []float64
	// For homoscedastic Gaussian tasks the exact terms replace the fixed marginals
	// (exactTerm); biasAt and varAt locate bias (−1: none) and variance in the parameters.
	exact         bool
	biasAt, varAt int
	terms         []*exactTerm
}

// newNoiseProblem checks that the tasks' noise models have the same parameters and
// returns the problem; positive is the transform of positive parameters.
func newNoiseProblem(s *Selector, positive param.Transform) (*noiseProblem, error) {
	first := s.Tasks[0].Noise
	names := first.ParamNames()
	for _, t := range s.Tasks[1:] {
		if t.Noise.Name() != first.Name() || fmt.Sprint(t.Noise.ParamNames()) != fmt.Sprint(names) {
			return nil, fmt.Errorf("multitask: noise updates tie the tasks' noise parameters, but task %q has a %s model with %v and task %q a %s model with %v",
				s.Tasks[0].Name, first.Name(), names, t.Name, t.Noise.Name(), t.Noise.ParamNames())
		}
	}
	np := first.NumParams()
	p := &noiseProblem{s: s, nat: make([]float64, np), g: make([]float64, np)}
	p.biasAt, p.varAt, p.exact = gaussianParams(first)
	for _, t := range s.Tasks[1:] {
		if _, _, ok := gaussianParams(t.Noise); !ok {
			p.exact = false
		}
	}
	for _, k := range first.ParamKinds() {
		p.trans = append(p.trans, param.Default(k, positive))
	}
	return p, nil
}

// prepare sets up the exact terms on the current active sets (nothing to do for other
// noise models); call it after every selection, before optimising.
func (p *noiseProblem) prepare() error {
	if !p.exact {
		return nil
	}
	p.terms = make([]*exactTerm, len(p.s.Tasks))
	return p.s.parallel(func(m int) error {
		t, err := newExactTerm(p.s, m)
		p.terms[m] = t
		return err
	})
}

// free returns the first task's noise parameters in transformed space: the starting point
// (the first evaluation ties every task to them).
func (p *noiseProblem) free() ([]float64, error) {
	first := p.s.Tasks[0].Noise
	first.Params(p.nat)
	x := make([]float64, len(p.nat))
	for i, v := range p.nat {
		u, err := p.trans[i].Inverse(v)
		if err != nil {
			return nil, fmt.Errorf("multitask: noise parameter %s: %w", first.ParamNames()[i], err)
		}
		x[i] = u
	}
	return x, nil
}

// eval sets every task's noise parameters to x (transformed) and returns −Σ ln Z_n, with
// its gradient in grad when grad is not nil; NaN where a model refuses the parameters.
func (p *noiseProblem) eval(x, grad []float64) float64 {
	for i, u := range x {
		p.nat[i] = p.trans[i].Forward(u)
	}
	clear(p.g)
	f := 0.0
	for m, t := range p.s.Tasks {
		if err := t.Noise.SetParams(p.nat); err != nil {
			return math.NaN()
		}
		if p.terms != nil {
			b := 0.0
			if p.biasAt >= 0 {
				b = p.nat[p.biasAt]
			}
			lz, db, dv, ok := p.terms[m].eval(b, p.nat[p.varAt])
			if !ok {
				return math.NaN()
			}
			f -= lz
			if p.biasAt >= 0 {
				p.g[p.biasAt] += db
			}
			p.g[p.varAt] += dv
			continue
		}
		sel := p.s.sels[m]
		mu, v := sel.Mean(), sel.Var()
		for n, y := range t.Y {
			if sel.IsActive(n) {
				continue
			}
			lz, _, _ := t.Noise.Moments(n, y, mu[n], v[n])
			f -= lz
			if grad != nil {
				t.Noise.GradParams(p.g, n, y, mu[n], v[n])
			}
		}
	}
	if grad != nil {
		for i := range grad {
			grad[i] = -p.g[i] * p.trans[i].Factor(p.nat[i])
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}
