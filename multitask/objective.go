package multitask

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// Objective picks the per-task active-set objective whose sum over tasks Learn minimises.
type Objective int

const (
	// EPEvidence, the default, is −Σ_m ln Z_EP(y_{I_m} | θ) − ln p(θ): each task's
	// expectation-propagation approximation of the marginal likelihood of its active labels,
	// with the sites refitted for every θ the optimiser tries. For Gaussian noise it is the
	// exact marginal likelihood of the active subsets.
	EPEvidence Objective = iota
	// FixedSites is the papers' objective, Σ_m [½ ln|A_m| + ½ m_mᵀA_m⁻¹m_m] − ln p(θ) with
	// A_m = K_{I_m} + B_m⁻¹ and the sites of the last selection held fixed (IVM paper eq. 32
	// per task, ivm.ActiveSetObjective).
	FixedSites
)

// String returns "ep" or "fixed".
func (o Objective) String() string {
	if o == FixedSites {
		return "fixed"
	}
	return "ep"
}

// ParseObjective parses "ep" or "fixed".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "ep", "":
		return EPEvidence, nil
	case "fixed":
		return FixedSites, nil
	}
	return 0, fmt.Errorf("multitask: unknown objective %q (want ep or fixed)", s)
}

// taskTerm is one task's term of the objective on its current active set.
type taskTerm struct {
	xa     *mat.Dense
	m0, b0 []float64 // the selection's sites
	ep     *ivm.SiteEP
	kd, dk *mat.Dense
	grad   []float64
	f      float64
}

// problem is the multi-task kernel objective of one outer iteration, as a function of the
// kernel's free parameters.
type problem struct {
	sum     *kern.Sum
	kind    Objective
	terms   []*taskTerm // tasks with at least one active point
	priors  []ivm.Prior
	workers int
	// failures counts evaluations refused because a task's EP or factorisation failed;
	// unconverged those where EP stopped at its sweep limit (the value was still used).
	failures, unconverged int
}

// newProblem sets up the objective on the selector's current active sets.
func newProblem(s *Selector, sum *kern.Sum, kind Objective, priors []ivm.Prior) *problem {
	p := &problem{sum: sum, kind: kind, priors: priors, workers: s.workers}
	for m, sel := range s.sels {
		steps := sel.Steps()
		d := len(steps)
		if d == 0 {
			continue
		}
		t := s.Tasks[m]
		_, dim := t.X.Dims()
		term := &taskTerm{xa: mat.NewDense(d, dim, nil), m0: make([]float64, d), b0: make([]float64, d),
			kd: mat.NewDense(d, d, nil), dk: mat.NewDense(d, d, nil), grad: make([]float64, sum.NumFree())}
		y := make([]float64, d)
		idx := make([]int, d)
		exact, isExact := t.Noise.(noise.ExactSite)
		for k, st := range steps {
			term.xa.SetRow(k, t.X.RawRowView(st.Index))
			term.m0[k], term.b0[k] = st.SiteM, st.SiteBeta
			if isExact {
				// Exact sites are the noise model's: after a noise step (Learn) they
				// differ from the ones the selection used.
				term.m0[k], term.b0[k] = exact.Site(st.Index, t.Y[st.Index])
			}
			y[k], idx[k] = t.Y[st.Index], st.Index
		}
		if kind == EPEvidence {
			term.ep = ivm.NewSiteEP(t.Noise, y, idx)
			copy(term.ep.M, term.m0)
			copy(term.ep.Beta, term.b0)
		}
		p.terms = append(p.terms, term)
	}
	return p
}

var errUnconverged = errors.New("unconverged")

// eval evaluates one task's term at the kernel's current parameters.
func (t *taskTerm) eval(sum *kern.Sum, kind Objective, wantGrad bool) error {
	var g []float64
	if wantGrad {
		g = t.grad
	}
	if kind == FixedSites {
		f, err := ivm.ActiveSetObjective(sum, t.xa, t.m0, t.b0, g)
		t.f = f
		return err
	}
	d, _ := t.xa.Dims()
	sum.K(t.kd, t.xa, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			t.ep.K.SetSym(i, j, t.kd.At(i, j))
		}
	}
	err := t.ep.Run()
	if err != nil && !errors.Is(err, ivm.ErrEPNotConverged) {
		// The warm start (the last evaluation's sites) may be far off: start again from the
		// selection's sites.
		copy(t.ep.M, t.m0)
		copy(t.ep.Beta, t.b0)
		err = t.ep.Run()
	}
	unconverged := errors.Is(err, ivm.ErrEPNotConverged)
	if err != nil && !unconverged {
		copy(t.ep.M, t.m0)
		copy(t.ep.Beta, t.b0)
		return err
	}
	t.f = -t.ep.LogZ()
	if wantGrad {
		if err := t.ep.DK(t.dk); err != nil {
			return err
		}
		sum.GradFree(t.grad, t.xa, nil, t.dk)
	}
	if unconverged {
		return errUnconverged
	}
	return nil
}

// eval is the objective and its gradient at free parameters x; NaN (a refused step for the
// optimiser) when the parameters are out of range or a task's term fails.
func (p *problem) eval(x, grad []float64) float64 {
	if err := p.sum.SetFree(x); err != nil {
		return math.NaN()
	}
	unconv := make([]bool, len(p.terms))
	err := forTasks(len(p.terms), p.workers, func(m int) error {
		err := p.terms[m].eval(p.sum, p.kind, grad != nil)
		if errors.Is(err, errUnconverged) {
			unconv[m] = true
			return nil
		}
		return err
	})
	if err != nil {
		p.failures++
		return math.NaN()
	}
	for _, u := range unconv {
		if u {
			p.unconverged++
			break
		}
	}
	f := 0.0
	if grad != nil {
		clear(grad)
	}
	for _, t := range p.terms {
		f += t.f
		if grad != nil {
			for i, v := range t.grad {
				grad[i] += v
			}
		}
	}
	f -= logPrior(p.sum, p.priors, x, grad)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

// logPrior returns Σ ln p(θ_f) over the free parameters with a prior (counted once for all
// tasks) and subtracts its gradient with respect to the free parameters from grad.
func logPrior(sum *kern.Sum, priors []ivm.Prior, x, grad []float64) float64 {
	lp := 0.0
	for f, pr := range priors {
		if pr == nil {
			continue
		}
		tr := sum.FreeTransform(f)
		theta := tr.Forward(x[f])
		lp += pr.LogPDF(theta)
		if grad != nil {
			grad[f] -= pr.DLogPDF(theta) * tr.Factor(theta)
		}
	}
	return lp
}

// Objective returns the multi-task kernel objective (kind) on the selector's current active
// sets at the kernel's current parameters, and its gradient with respect to the kernel's free
// parameters in grad when grad is not nil. The kernel must be the selector's, a *kern.Sum.
func (s *Selector) Objective(kind Objective, priors map[string]ivm.Prior, grad []float64) (float64, error) {
	sum, ok := s.Kernel.(*kern.Sum)
	if !ok {
		return math.NaN(), fmt.Errorf("multitask: the objective needs a *kern.Sum kernel, not %T", s.Kernel)
	}
	pr, err := ivm.FreePriors(sum, priors)
	if err != nil {
		return math.NaN(), err
	}
	p := newProblem(s, sum, kind, pr)
	x := make([]float64, sum.NumFree())
	sum.Free(x)
	f := p.eval(x, grad)
	if math.IsNaN(f) {
		return f, errors.New("multitask: the objective is undefined at these parameters (a factorisation or EP failed)")
	}
	return f, nil
}

func nan() float64 { return math.NaN() }
