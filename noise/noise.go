// Package noise provides the IVM's noise models (likelihoods): Gaussian, probit, ordered
// categorical and null category. Each gives, for a latent marginal N(μ, ς), the
// normaliser ln Z of the tilted distribution and its derivatives g = ∂ln Z/∂μ and
// ν = g² − 2 ∂ln Z/∂ς, which drive the assumed-density-filtering updates of the IVM paper
// (eqs. 12–16), and the output prediction at a latent marginal.
//
// The models, with the equations they implement (IVM paper: Lawrence, Seeger & Herbrich,
// "The informative vector machine: a practical probabilistic alternative to the support
// vector machine", 2005; extensions paper: Lawrence, Platt & Jordan, "Extensions of the
// informative vector machine", 2005):
//
//   - Gaussian: regression, Z = N(y − b | μ, σ² + ς), IVM paper §2.2 eqs. 17–18; its site
//     is exact (ExactSite).
//   - Probit: binary classification, Z = Φ(u), u = y(μ + b)/√(σ² + ς), IVM paper §2.3
//     eqs. 19–21.
//   - Ordinal: ordered categories, Z = Φ(u) − Φ(u'), IVM paper §2.4 eqs. 24–25.
//   - NullCategory: semi-supervised binary classification with a null category between
//     the classes, extensions paper §4.1; not log-concave.
//
// Each follows the reference MATLAB toolbox's conventions exactly (start-up parameters
// set by Init, the fixed slope variances, the floor of ν at Eps), so that the IVM selects
// the same active sets. Φ, ln Φ and the Gaussian ratios come from package special, which
// keeps them accurate where N(u) and Φ(u) underflow (the papers' footnotes 2–3): every
// model returns finite ln Z, g, ν for |μ| up to 1e4 and ς from 1e−12 to 1e6 at least.
//
// Marshal, Unmarshal and ByName read and write the models as JSON objects with their
// parameters by name, for model files.
package noise

import "github.com/ivmlab/ivm/param"

// Model is a noise model p(y | f).
//
// Moments, Predict and GradParams are safe for concurrent use once Init has returned.
type Model interface {
	// Name is the model's type as written in model files ("probit", "gaussian", "ordinal", "ncnm").
	Name() string
	// Init checks the training targets and sets the data-dependent start-up parameters
	// (probit bias Φ⁻¹(n₊/N), Gaussian bias mean(y), …) as the reference toolbox does.
	// It returns an error naming the first target that does not fit the model.
	Init(y []float64) error
	// Moments returns ln Z, g = ∂ln Z/∂μ and ν = g² − 2 ∂ln Z/∂ς for training point n
	// with target y at the latent marginal N(mu, varsigma). ν is never reported with
	// |ν| < eps (it is then set to eps, as the reference does).
	Moments(n int, y, mu, varsigma float64) (logZ, g, nu float64)
	// LogConcave reports whether ln p(y|f) is concave in f. Site precisions of a
	// log-concave model are never negative; a negative one is an error in the engine.
	LogConcave() bool
	// Classes returns the labels whose probabilities Predict reports, in order
	// (probit: −1, +1; ordinal: 0 … C−1); nil for regression.
	Classes() []float64
	// Predict fills p with the output prediction at the latent marginal N(mu, varsigma).
	Predict(p *Prediction, mu, varsigma float64)

	// NumParams, ParamNames, ParamKinds, Params and SetParams expose the model's
	// learnable parameters in natural space (bias, widths, γ, …), as kern.Kernel does.
	NumParams() int
	ParamNames() []string
	ParamKinds() []param.Kind
	Params(dst []float64)
	SetParams(src []float64) error
	// GradParams adds ∂ln Z_n/∂θ_p (natural parameters) for point n to dst[p]; summed over
	// the data it is the gradient of the noise objective of IVM paper eq. 34.
	GradParams(dst []float64, n int, y, mu, varsigma float64)
}

// ExactSite is implemented by noise models whose ADF site is known in closed form
// (Gaussian noise: β = precision, m = y − bias). The engine uses it instead of
// β = ν/(1 − νς), which cancels catastrophically when the noise is small.
type ExactSite interface {
	Site(n int, y float64) (m, beta float64)
}

// Prediction is a prediction at one input: a noise model's at one latent marginal, and
// every model family's (the root package's Predictor, multitask, ssmtr, archipelago), whose
// fields mean the same whatever the model's shape.
type Prediction struct {
	// Label is the predicted class or category as in the training data (a noise model's:
	// as in Classes()), or the predictive mean for regression.
	Label float64
	// Mean and Var are the predictive mean and variance of y for regression. For
	// classification they are the latent mean (bias included) and variance of the model
	// standing for the predicted class: a noise model's own latent (its Var the latent
	// variance ς of the two-class models); a one-vs-rest or projected multi-class model's
	// of the class of the largest probability; a two-class model's one model (a blend: its
	// first member; a projected model: its first class's latent); 0 where no model stands
	// for one class (one-vs-one) or where a family has no latent (a projected model's Var).
	Mean, Var float64
	// Prob holds the probability of each class, in order (a noise model's Classes(), a
	// family's classes); nil for regression and for predictions of labels alone.
	Prob []float64
	// Latent and LatentVar hold, for classification, the latent mean (bias included) and
	// variance of each of the model's binary models: the one model; each one-vs-rest
	// class's; each one-vs-one pair's (positive for the pair's second class); each blend
	// member's; a projected model's class latents f_c (LatentVar nil); a multi-task
	// model's row's task. nil for regression, for a noise model's own prediction and for
	// families without latents; LatentVar is nil for predictions of labels alone.
	Latent, LatentVar []float64
}

// Unfloored is implemented by noise models whose Moments floors ν (models that are not
// log-concave, where ν can be negative). Derivatives returns ln Z, ∂ln Z/∂μ and ∂ln Z/∂ς
// exactly, for uses that differentiate ln Z rather than update a posterior.
type Unfloored interface {
	Derivatives(n int, y, mu, varsigma float64) (logZ, dmu, dvarsigma float64)
}

// Derivatives returns ln Z, ∂ln Z/∂μ and ∂ln Z/∂ς of m for point n at N(mu, varsigma):
// from the model's Unfloored method when it has one, from Moments (∂ln Z/∂ς = (g² − ν)/2)
// otherwise.
func Derivatives(m Model, n int, y, mu, varsigma float64) (logZ, dmu, dvarsigma float64) {
	if u, ok := m.(Unfloored); ok {
		return u.Derivatives(n, y, mu, varsigma)
	}
	lz, g, nu := m.Moments(n, y, mu, varsigma)
	return lz, g, 0.5 * (g*g - nu)
}
