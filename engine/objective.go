package engine

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/internal/enum"
	"github.com/ivmlab/ivm/kern"
)

// Objective picks the function of the kernel parameters that Algorithm 2 minimises on the
// current active set. It is one enum for every family: the multi-task IVM's Objective is
// this type, with the same names and numbers. Its zero value, ObjectiveAuto, is each
// family's documented default: FullData for the single-task IVM (Learn, RunLearn,
// ivm.Fit), EPEvidence for the multi-task IVM (the multi-task papers' objective).
type Objective int

const (
	// ObjectiveAuto is the family's default (see Objective): FullData here.
	ObjectiveAuto Objective = iota
	// FullData approximates the marginal likelihood of all N labels by the chain rule
	// p(y) = p(y_I) p(y_R | y_I): −ln Z_EP(y_I | θ) − Σ_{n∉I} ln p(y_n | y_I, θ)
	// − ln p(θ). The first term is EPEvidence; the second is the predictive log likelihood
	// of the inactive points given the active set's sites from the selection (up to
	// LearnOptions.HeldOut of them, a fixed random subset). Counting every label removes
	// the bias of an active set chosen for being surprising. For noise models that are not
	// log-concave (null category) EP is unreliable and the first term is FixedSites'.
	FullData
	// EPEvidence is −ln Z_EP(y_I | θ) − ln p(θ): the expectation-propagation approximation of
	// the marginal likelihood of the active points' labels, with the sites refitted by EP on the
	// active set for every θ the optimiser tries. Its gradient, ½ tr((A⁻¹ − ααᵀ)
	// ∂K_II/∂θ), is exact at the EP fixed point. For noise models that are not log-concave it is
	// FixedSites.
	EPEvidence
	// FixedSites is the reference toolbox's objective (IVM paper eq. 32): with the site
	// means m and precisions β of the last selection held fixed,
	// ½ ln|A| + ½ mᵀA⁻¹m − ln p(θ), A = K_II + B⁻¹.
	FixedSites
)

// String returns "auto", "full", "ep" or "fixed".
func (o Objective) String() string { return enum.String("Objective", objectiveNames, int(o)) }

// ParseObjective parses "auto" (or ""), "full", "ep" or "fixed".
func ParseObjective(s string) (Objective, error) {
	v, err := enum.Parse("ivm", "objective", objectiveNames, s)
	return Objective(v), err
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
func ActiveSetObjective(k *kern.Sum, xActive *mat.Dense, siteM, siteBeta, grad []float64) (float64,
	error) {
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
// by infer.Chol (no condition estimate: it would be a third of the factorisation's time,
// and A's ill-conditioning is diagonal scaling, harmless here — see conditionOnly).
type fixedSitesWork struct {
	kd    mat.Dense // K_II; with a gradient, then ½(A⁻¹ − ααᵀ)
	a     []float64 // A = K_II + B⁻¹ (upper triangle), factorised in place
	chol  infer.Chol
	alpha []float64
	d     int
}

func (w *fixedSitesWork) eval(k *kern.Sum, xActive *mat.Dense, siteM, siteBeta,
	grad []float64) (float64, error) {
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
	if !w.chol.Factorize(blas64.Symmetric{N: d, Stride: d, Data: w.a, Uplo: blas.Upper}) {
		return math.NaN(), errors.New("ivm: K_II + B⁻¹ is not positive definite")
	}
	copy(w.alpha, siteM)
	w.chol.SolveVec(w.alpha)
	f := 0.5*w.chol.LogDet() + 0.5*floats.Dot(siteM, w.alpha)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN(), errors.New("ivm: eq. 32 objective not finite")
	}
	if grad != nil {
		w.chol.Inverse(kd) // K_II is not needed any more: its buffer takes A⁻¹
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

// HeldOutLogLik returns the mean of ln Z_n = ln p(y_n | active set) over the inactive
// training points at the current posterior: the predictive log probability of the
// training labels the active set did not use. It is NaN when every point is active.
func (s *Selector) HeldOutLogLik() float64 {
	sum, n := 0.0, 0
	for j, a := range s.active {
		if !a && !s.isSiteOnly(j) {
			sum += s.logZ[j]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
