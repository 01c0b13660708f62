package ivm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/param"
)

// Objective picks the function of the kernel parameters that Algorithm 2 minimises on the
// current active set.
type Objective int

const (
	// FullData, the default, approximates the marginal likelihood of all N labels by the
	// chain rule p(y) = p(y_I) p(y_R | y_I): −ln Z_EP(y_I | θ) − Σ_{n∉I} ln p(y_n | y_I, θ)
	// − ln p(θ). The first term is EPEvidence; the second is the predictive log likelihood
	// of the inactive points given the active set's sites from the selection (up to
	// LearnOptions.HeldOut of them, a fixed random subset). Counting every label removes
	// the bias of an active set chosen for being surprising. For noise models that are not
	// log-concave (null category) EP is unreliable and the first term is FixedSites'.
	FullData Objective = iota
	// EPEvidence is −ln Z_EP(y_I | θ) − ln p(θ): the expectation-propagation approximation
	// of the marginal likelihood of the active points' labels, with the sites refitted by EP
	// on the active set for every θ the optimiser tries. Its gradient,
	// ½ tr((A⁻¹ − ααᵀ) ∂K_II/∂θ), is exact at the EP fixed point. For noise models that are
	// not log-concave it is FixedSites.
	EPEvidence
	// FixedSites is the reference toolbox's objective (IVM paper eq. 32): with the site
	// means m and precisions β of the last selection held fixed,
	// ½ ln|A| + ½ mᵀA⁻¹m − ln p(θ), A = K_II + B⁻¹.
	FixedSites
)

// String returns "full", "ep" or "fixed".
func (o Objective) String() string {
	switch o {
	case FixedSites:
		return "fixed"
	case EPEvidence:
		return "ep"
	}
	return "full"
}

// ParseObjective parses "full", "ep" or "fixed".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "full", "":
		return FullData, nil
	case "ep":
		return EPEvidence, nil
	case "fixed":
		return FixedSites, nil
	}
	return 0, fmt.Errorf("ivm: unknown objective %q (want full, ep or fixed)", s)
}

// Prior is a prior density on one natural parameter, given by its log density and that
// density's derivative (both up to the constant the optimiser does not need).
type Prior interface {
	LogPDF(theta float64) float64
	DLogPDF(theta float64) float64
}

// GammaPrior is the gamma density with shape a and rate b on a positive parameter.
type GammaPrior struct{ Shape, Rate float64 }

// LogPDF implements Prior: (a − 1) ln θ − bθ + a ln b − ln Γ(a).
func (p GammaPrior) LogPDF(theta float64) float64 {
	lg, _ := math.Lgamma(p.Shape)
	return (p.Shape-1)*math.Log(theta) - p.Rate*theta + p.Shape*math.Log(p.Rate) - lg
}

// DLogPDF implements Prior.
func (p GammaPrior) DLogPDF(theta float64) float64 { return (p.Shape-1)/theta - p.Rate }

// ExponentialPrior is the exponential density with the given rate: an L1 penalty on a
// positive parameter (the null category model's penalty on process variances).
type ExponentialPrior struct{ Rate float64 }

// LogPDF implements Prior: ln λ − λθ.
func (p ExponentialPrior) LogPDF(theta float64) float64 { return math.Log(p.Rate) - p.Rate*theta }

// DLogPDF implements Prior.
func (p ExponentialPrior) DLogPDF(float64) float64 { return -p.Rate }

// ActiveSetObjective returns the reference toolbox's kernel objective (IVM paper eq. 32,
// the FixedSites objective without priors) for active inputs xActive with site means and
// precisions, and writes its gradient with respect to the kernel's free (transformed)
// parameters into grad when grad is not nil.
func ActiveSetObjective(k *kern.Sum, xActive *mat.Dense, siteM, siteBeta, grad []float64) (float64, error) {
	return new(fixedSitesWork).eval(k, xActive, siteM, siteBeta, grad)
}

// conditionOnly reports whether err from a solve with a successful Cholesky factor of
// A = K_II + B⁻¹ is nil or only gonum's warning that A's condition number is large. Such
// a warning is expected and harmless here: a null-category site whose precision is near
// zero (down to machine epsilon) puts 1/β ≈ 10¹⁵ on A's diagonal, and an ill-conditioning
// that comes from diagonal scaling costs a Cholesky solve no accuracy (the selection's
// model, which solves with the same A, accepts it too and records the condition number).
// Before, the warning made the objective undefined at exactly the parameters a selection
// had just used, and learning stopped (seen on the Archipelago comparators' wine runs).
func conditionOnly(err error) bool {
	var c mat.Condition
	return err == nil || errors.As(err, &c)
}

// fixedSitesWork holds ActiveSetObjective's matrices between evaluations: the optimiser
// evaluates it hundreds of times per outer iteration on the same active set, and reusing
// its d×d buffers keeps learning's garbage, and so its peak memory, down. A is factorised
// by cholFactor (no condition estimate: it would be a third of the factorisation's time,
// and A's ill-conditioning is diagonal scaling, harmless here — see conditionOnly).
type fixedSitesWork struct {
	kd    mat.Dense // K_II; with a gradient, then ½(A⁻¹ − ααᵀ)
	a     []float64 // A = K_II + B⁻¹ (upper triangle), factorised in place
	chol  cholFactor
	alpha []float64
	d     int
}

func (w *fixedSitesWork) eval(k *kern.Sum, xActive *mat.Dense, siteM, siteBeta, grad []float64) (float64, error) {
	d, _ := xActive.Dims()
	if w.alpha == nil || w.d != d {
		w.kd = *mat.NewDense(d, d, nil)
		w.a = make([]float64, d*d)
		w.alpha = make([]float64, d)
		w.d = d
	}
	kd := &w.kd
	kd.Zero()
	k.K(kd, xActive, nil)
	kr := kd.RawMatrix()
	for i := 0; i < d; i++ {
		copy(w.a[i*d+i:i*d+d], kr.Data[i*kr.Stride+i:i*kr.Stride+d])
		w.a[i*d+i] += 1 / siteBeta[i]
	}
	if !w.chol.factorize(blas64.Symmetric{N: d, Stride: d, Data: w.a, Uplo: blas.Upper}) {
		return math.NaN(), errors.New("ivm: K_II + B⁻¹ is not positive definite")
	}
	copy(w.alpha, siteM)
	w.chol.solveVec(w.alpha)
	f := 0.5*w.chol.logDet() + 0.5*floats.Dot(siteM, w.alpha)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN(), errors.New("ivm: eq. 32 objective not finite")
	}
	if grad != nil {
		w.chol.inverse(kd) // K_II is not needed any more: its buffer takes A⁻¹
		al := w.alpha
		for i := 0; i < d; i++ {
			row := kr.Data[i*kr.Stride : i*kr.Stride+d]
			for j := range row {
				row[j] = 0.5 * (row[j] - al[i]*al[j])
			}
		}
		k.GradFree(grad, xActive, nil, kd)
	}
	return f, nil
}

// kernelProblem is the kernel objective of one outer iteration of Algorithm 2, as a
// function of the kernel's free parameters.
type kernelProblem struct {
	sum    *kern.Sum
	kind   Objective
	xa     *mat.Dense
	priors []Prior // per free parameter; nil entries are flat
	ep     activeEP
	m0, b0 []float64 // the selection's sites: EP's start and the FixedSites sites
	kd, dk *mat.Dense
	ks     *mat.SymDense
	gtmp   []float64
	fixed  fixedSitesWork
	// heldOut is FullData's second term (nil for the other objectives).
	heldOut *heldOutTerm
	// epFailures counts evaluations where EP failed even from the selection's sites.
	epFailures, epUnconverged int
}

// newKernelProblem sets up the kernel objective on s's current active set. For FullData,
// heldOut inactive points (a random subset from rng when there are more) enter the second term.
func newKernelProblem(s *Selector, sum *kern.Sum, kind Objective, priors []Prior, heldOut int, rng *rand.Rand) *kernelProblem {
	d := s.size
	p := &kernelProblem{sum: sum, kind: kind, priors: priors,
		xa: mat.NewDense(d, s.dim, nil), gtmp: make([]float64, sum.NumFree())}
	p.m0, p.b0 = make([]float64, d), make([]float64, d)
	p.ep = activeEP{k: p.ks, y: make([]float64, d), index: make([]int, d), nm: s.Noise,
		m: make([]float64, d), beta: make([]float64, d)}
	for k, st := range s.steps {
		p.xa.SetRow(k, s.X.RawRowView(st.Index))
		p.m0[k], p.b0[k] = st.SiteM, st.SiteBeta
		p.ep.y[k], p.ep.index[k] = s.Y[st.Index], st.Index
	}
	copy(p.ep.m, p.m0)
	copy(p.ep.beta, p.b0)
	if kind == FullData && heldOut > 0 {
		p.heldOut = newHeldOutTerm(s, heldOut, rng, sum.NumFree())
	}
	if kind != FixedSites && !s.Noise.LogConcave() {
		// EP on the active set is not reliable for a noise model that is not log-concave:
		// sites whose precision comes out negative are floored, and the "evidence" can
		// then exceed one (measured on the null category toy: −ln Z = −1.9e9). Such models
		// (null category) use the selection's sites for the active term, as the papers do,
		// and keep FullData's predictive term over the inactive points.
		p.kind = FixedSites
	}
	// The d×d buffers of the EP objectives and of the predictive term, only when used
	// (three of them are 6 MB at d = 500, for each classifier learning at once).
	if p.kind != FixedSites || p.heldOut != nil {
		p.kd = mat.NewDense(d, d, nil)
	}
	if p.kind != FixedSites {
		p.dk, p.ks = mat.NewDense(d, d, nil), mat.NewSymDense(d, nil)
		p.ep.k = p.ks
	}
	return p
}

// eval is the objective and its gradient at free parameters x; NaN (a failed step for the
// optimiser) when the parameters are out of range or a factorisation fails.
func (p *kernelProblem) eval(x, grad []float64) float64 {
	if err := p.sum.SetFree(x); err != nil {
		return math.NaN()
	}
	d, _ := p.xa.Dims()
	var f float64
	switch p.kind {
	case FixedSites:
		v, err := p.fixed.eval(p.sum, p.xa, p.m0, p.b0, grad)
		if err != nil {
			return math.NaN()
		}
		f = v
		if p.heldOut != nil {
			p.sum.K(p.kd, p.xa, nil)
			f2, ok := p.heldOut.eval(p.sum, p.xa, p.kd, grad)
			if !ok {
				return math.NaN()
			}
			f += f2
		}
	default:
		p.sum.K(p.kd, p.xa, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				p.ks.SetSym(i, j, p.kd.At(i, j))
			}
		}
		_, err := p.ep.run()
		if err != nil && !errors.Is(err, errEPNoConvergence) {
			// Start again from the selection's sites (the warm start may be far off).
			copy(p.ep.m, p.m0)
			copy(p.ep.beta, p.b0)
			_, err = p.ep.run()
		}
		switch {
		case errors.Is(err, errEPNoConvergence):
			p.epUnconverged++
		case err != nil:
			p.epFailures++
			copy(p.ep.m, p.m0)
			copy(p.ep.beta, p.b0)
			return math.NaN()
		}
		f = -p.ep.logZ()
		if f < -1e-8*float64(d) && p.ep.nm.Classes() != nil {
			// Labels are discrete (for the null category model, "not in the null
			// region" too), so their probability is at most one and −ln Z ≥ 0. EP's
			// evidence can break that when sites of a model that is not log-concave
			// have their negative precisions floored; such an evaluation is no
			// approximation of anything, and the optimiser, fed it as a value, runs off
			// towards ln Z = +∞ (measured: an ncnm objective of −1.9e9). Count it as
			// a failed step.
			p.epFailures++
			copy(p.ep.m, p.m0)
			copy(p.ep.beta, p.b0)
			return math.NaN()
		}
		if grad != nil {
			if err := p.ep.dK(p.dk); err != nil {
				return math.NaN()
			}
			p.sum.GradFree(grad, p.xa, nil, p.dk)
		}
		if p.heldOut != nil {
			f2, ok := p.heldOut.eval(p.sum, p.xa, p.kd, grad)
			if !ok {
				return math.NaN()
			}
			f += f2
		}
	}
	f -= p.logPrior(x, grad)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

// logPrior returns Σ ln p(θ_f) over the free parameters with a prior and subtracts its
// gradient (with respect to the free parameters) from grad when grad is not nil.
func (p *kernelProblem) logPrior(x, grad []float64) float64 {
	lp := 0.0
	for f, pr := range p.priors {
		if pr == nil {
			continue
		}
		tr := p.sum.FreeTransform(f)
		theta := tr.Forward(x[f])
		lp += pr.LogPDF(theta)
		if grad != nil {
			grad[f] -= pr.DLogPDF(theta) * tr.Factor(theta)
		}
	}
	return lp
}

// noiseProblem is the noise-parameter objective of IVM paper eq. 34, −Σ_n ln Z_n at the
// current posterior marginals of all N training points, as a function of the noise
// model's parameters in transformed space.
type noiseProblem struct {
	s     *Selector
	trans []param.Transform
	nat   []float64
	g     []float64
}

func newNoiseProblem(s *Selector, positive param.Transform) *noiseProblem {
	np := s.Noise.NumParams()
	p := &noiseProblem{s: s, nat: make([]float64, np), g: make([]float64, np)}
	for _, k := range s.Noise.ParamKinds() {
		p.trans = append(p.trans, param.Default(k, positive))
	}
	return p
}

// free returns the noise model's parameters in transformed space.
func (p *noiseProblem) free() ([]float64, error) {
	p.s.Noise.Params(p.nat)
	x := make([]float64, len(p.nat))
	for i, v := range p.nat {
		u, err := p.trans[i].Inverse(v)
		if err != nil {
			return nil, fmt.Errorf("ivm: noise parameter %s: %w", p.s.Noise.ParamNames()[i], err)
		}
		x[i] = u
	}
	return x, nil
}

func (p *noiseProblem) eval(x, grad []float64) float64 {
	for i, u := range x {
		p.nat[i] = p.trans[i].Forward(u)
	}
	if err := p.s.Noise.SetParams(p.nat); err != nil {
		return math.NaN()
	}
	clear(p.g)
	s := p.s
	f := 0.0
	for n := 0; n < s.n; n++ {
		lz, _, _ := s.Noise.Moments(n, s.Y[n], s.mu[n], s.varsigma[n])
		f -= lz
		if grad != nil {
			s.Noise.GradParams(p.g, n, s.Y[n], s.mu[n], s.varsigma[n])
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

// HeldOutLogLik returns the mean of ln Z_n = ln p(y_n | active set) over the inactive
// training points at the current posterior: the predictive log probability of the
// training labels the active set did not use. It is NaN when every point is active.
func (s *Selector) HeldOutLogLik() float64 {
	sum, n := 0.0, 0
	for j, a := range s.active {
		if !a {
			sum += s.logZ[j]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
