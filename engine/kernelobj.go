package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/kern"
)

// ObjectiveOptions configures NewKernelObjective.
type ObjectiveOptions struct {
	// Kind is the objective (ObjectiveAuto: FullData).
	Kind Objective
	// Priors holds a prior per free kernel parameter (nil entries, or a nil slice: flat),
	// counted once however many active sets there are (FreePriors makes it).
	Priors []Prior
	// HeldOut bounds FullData's inactive points per active set (0: no predictive term);
	// Rand draws the random subset when there are more.
	HeldOut int
	Rand    *rand.Rand
	// Workers bounds the goroutines evaluating the active sets' terms (0: all cores).
	Workers int
}

// KernelObjective is Algorithm 2's kernel objective on the current active sets of one or
// more selectors that share the kernel: the sum over active sets of each set's term (see
// Objective) minus the log prior, as a function of the kernel's free parameters. With one
// selector it is the single-task IVM's objective; with one per task, the multi-task IVM's
// (extensions paper, the kernel shared by the tasks).
type KernelObjective struct {
	sum     *kern.Sum
	terms   []*activeTerm // active sets with at least one point
	priors  []Prior
	workers int
	// epFailures counts evaluations refused because EP failed on some active set (or gave
	// an impossible evidence); failures those refused because EP or a factorisation
	// failed; unconverged those where some set's EP stopped at its sweep limit (the value
	// was still used).
	epFailures, failures, unconverged int
}

// NewKernelObjective sets up the objective on the selectors' current active sets.
func NewKernelObjective(sum *kern.Sum, sels []*Selector, opt ObjectiveOptions) *KernelObjective {
	p := &KernelObjective{sum: sum, priors: opt.Priors, workers: opt.Workers}
	opt.Kind = opt.Kind.Or(FullData)
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	for _, s := range sels {
		if s.size > 0 {
			p.terms = append(p.terms, newActiveTerm(s, sum, opt))
		}
	}
	return p
}

// Sites returns the sites the objective's term i (the i-th selector with active points)
// starts EP from and holds fixed for FixedSites (the term's own slices).
func (p *KernelObjective) Sites(i int) (m, beta []float64) { return p.terms[i].m0, p.terms[i].b0 }

// termStatus is how one active set's term came out of an evaluation.
type termStatus int

const (
	termOK termStatus = iota
	// termEPFailed: EP failed even when started again from the selection's sites.
	termEPFailed
	// termBadEvidence: EP's evidence says discrete labels have probability above one.
	termBadEvidence
	// termFactorFailed: A = K_II + B⁻¹ of FixedSites could not be factorised.
	termFactorFailed
	// termRefused: FullData's predictive term could not be evaluated.
	termRefused
)

// Eval is the objective and its gradient at free parameters x; NaN (a refused step for the
// optimiser) when the parameters are out of range or some active set's term fails.
func (p *KernelObjective) Eval(x, grad []float64) float64 {
	if err := p.sum.SetFree(x); err != nil {
		return math.NaN()
	}
	unconv := make([]bool, len(p.terms))
	status := make([]termStatus, len(p.terms))
	pool.ForEach(len(p.terms), p.workers, func(m int) {
		unconv[m], status[m] = p.terms[m].eval(p.sum, grad != nil)
	})
	if !p.count(unconv, status) {
		return math.NaN()
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

// count updates the evaluation counters from the terms' outcomes and reports whether every
// term succeeded. EP that stopped at its sweep limit counts unless some set's EP failed
// outright (the evaluation then tells nothing about convergence).
func (p *KernelObjective) count(unconv []bool, status []termStatus) bool {
	var epFailed, bad, factor, refused, anyUnconv bool
	for m, st := range status {
		anyUnconv = anyUnconv || unconv[m]
		switch st {
		case termEPFailed:
			epFailed = true
		case termBadEvidence:
			bad = true
		case termFactorFailed:
			factor = true
		case termRefused:
			refused = true
		}
	}
	if anyUnconv && !epFailed {
		p.unconverged++
	}
	if epFailed || bad {
		p.epFailures++
	}
	if epFailed || bad || factor {
		p.failures++
	}
	return !(epFailed || bad || factor || refused)
}

// logPrior returns Σ ln p(θ_f) over the free parameters with a prior and subtracts its
// gradient (with respect to the free parameters) from grad when grad is not nil.
func logPrior(sum *kern.Sum, priors []Prior, x, grad []float64) float64 {
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

// activeTerm is one active set's term of the kernel objective: −ln Z_EP of its labels
// (EPEvidence) or the reference's eq. 32 at the selection's sites (FixedSites), plus, for
// FullData, the predictive term of its inactive points (heldOutTerm).
type activeTerm struct {
	kind    Objective // EPEvidence or FixedSites
	xa      *mat.Dense
	m0, b0  []float64 // the selection's sites: EP's start and FixedSites' sites
	ep      *infer.EP
	kd, dk  *mat.Dense
	fixed   fixedSitesWork
	heldOut *heldOutTerm
	grad    []float64
	f       float64
}

// newActiveTerm sets up s's term on its current active set.
func newActiveTerm(s *Selector, sum *kern.Sum, opt ObjectiveOptions) *activeTerm {
	d := s.size
	t := &activeTerm{kind: opt.Kind, xa: mat.NewDense(d, s.dim, nil), m0: make([]float64, d),
		b0:   make([]float64, d),
		grad: make([]float64, sum.NumFree())}
	y, idx := make([]float64, d), make([]int, d)
	for k, st := range s.steps {
		t.xa.SetRow(k, s.X.RawRowView(st.Index))
		t.m0[k], t.b0[k] = st.SiteM, st.SiteBeta
		if s.exact != nil && !s.isSiteOnly(st.Index) {
			// Exact sites are the noise model's: after a noise step they differ from the
			// ones the selection used.
			t.m0[k], t.b0[k] = s.exact.Site(st.Index, s.Y[st.Index])
		}
		y[k], idx[k] = s.Y[st.Index], st.Index
	}
	if opt.Kind == FullData {
		t.kind = EPEvidence
		if opt.HeldOut > 0 {
			t.heldOut = newHeldOutTerm(s, opt.HeldOut, opt.Rand, sum.NumFree())
		}
	}
	if t.kind != FixedSites && (!s.Noise.LogConcave() || s.siteOnly != nil) {
		// EP on the active set is not reliable for a noise model that is not log-concave:
		// sites whose precision comes out negative are floored, and the "evidence" can
		// then exceed one by far (it does on the null category toy). Such models
		// (null category) use the selection's sites for the active term, as the papers do,
		// and keep FullData's predictive term over the inactive points. So do the sites of
		// an extended model's old points (Relearn), whose targets EP would need.
		t.kind = FixedSites
	}
	// The d×d buffers of the EP objectives and of the predictive term, only when used
	// (three of them are 6 MB at d = 500, for each classifier learning at once).
	if t.kind != FixedSites || t.heldOut != nil {
		t.kd = mat.NewDense(d, d, nil)
	}
	if t.kind != FixedSites {
		t.dk = mat.NewDense(d, d, nil)
		t.ep = infer.NewEP(s.Noise, y, idx)
		copy(t.ep.M, t.m0)
		copy(t.ep.Beta, t.b0)
	}
	return t
}

// eval evaluates the term at the kernel's current parameters into t.f (and t.grad).
func (t *activeTerm) eval(sum *kern.Sum, wantGrad bool) (unconverged bool, st termStatus) {
	var g []float64
	if wantGrad {
		g = t.grad
	}
	if t.kind == FixedSites {
		v, err := t.fixed.eval(sum, t.xa, t.m0, t.b0, g)
		if err != nil {
			return false, termFactorFailed
		}
		t.f = v
		if t.heldOut != nil {
			sum.K(t.kd, t.xa, nil)
		}
	} else {
		if unconverged, st = t.evalEP(sum, g); st != termOK {
			return unconverged, st
		}
	}
	if t.heldOut != nil {
		f2, ok := t.heldOut.eval(sum, t.xa, t.kd, g)
		if !ok {
			return unconverged, termRefused
		}
		t.f += f2
	}
	return unconverged, termOK
}

// evalEP refits the sites by EP for the current kernel and sets t.f = −ln Z_EP and, when g
// is not nil, its gradient in g; t.kd holds K_II afterwards.
func (t *activeTerm) evalEP(sum *kern.Sum, g []float64) (unconverged bool, st termStatus) {
	d, _ := t.xa.Dims()
	sum.K(t.kd, t.xa, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			t.ep.K.SetSym(i, j, t.kd.At(i, j))
		}
	}
	_, err := t.ep.Run()
	if err != nil && !errors.Is(err, infer.ErrNotConverged) {
		// Start again from the selection's sites (the warm start may be far off).
		t.resetSites()
		_, err = t.ep.Run()
	}
	unconverged = errors.Is(err, infer.ErrNotConverged)
	if err != nil && !unconverged {
		t.resetSites()
		return false, termEPFailed
	}
	t.f = -t.ep.LogZ()
	if t.f < -1e-8*float64(d) && t.ep.Noise.Classes() != nil {
		// Labels are discrete (for the null category model, "not in the null region" too),
		// so their probability is at most one and −ln Z ≥ 0. EP's evidence can break that
		// when sites of a model that is not log-concave have their negative precisions
		// floored; such an evaluation is no approximation of anything, and the optimiser,
		// fed it as a value, runs off towards ln Z = +∞. Count it as a failed step.
		t.resetSites()
		return unconverged, termBadEvidence
	}
	if g != nil {
		if err := t.ep.DK(t.dk); err != nil {
			return unconverged, termEPFailed
		}
		sum.GradFree(g, t.xa, nil, t.dk)
	}
	return unconverged, termOK
}

// resetSites restarts EP from the selection's sites.
func (t *activeTerm) resetSites() {
	copy(t.ep.M, t.m0)
	copy(t.ep.Beta, t.b0)
}
