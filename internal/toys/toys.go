// Package toys holds every seeded generator of synthetic data that the demo figure, the plots,
// the tests and the reproductions share: the two-dimensional toy problems of the IVM paper
// §4.1 (Lawrence, Seeger & Herbrich 2005) and the draws from Gaussian-process priors they
// rest on (this file), the null category toys of the extensions paper (ncnm.go), the toys
// only the figures need (figures.go) and the GP-sampled tasks of the multi-task regression
// experiment (gptasks.go). A generator's output is fixed by its random source: golden files
// and reproductions depend on it.
package toys

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// Parameters of the toy problems, as the IVM paper §4.1 states them.
const (
	// RegressionGamma is the inverse width γ of the RBF-ARD kernel that Regression
	// samples from.
	RegressionGamma = 20
	// RegressionVariance is that kernel's process variance θ_rbf.
	RegressionVariance = 1
	// RegressionNoise is the variance of the Gaussian noise Regression adds to the
	// sampled function.
	RegressionNoise = 0.001
	// ClassificationGamma is the inverse width γ of the RBF kernel that
	// ClassificationGP samples its latent function from.
	ClassificationGamma = 10
	// ClassificationVariance is that kernel's process variance θ_rbf.
	ClassificationVariance = 100
	// OrdinalSpacing is the distance between the means of neighbouring categories in
	// Ordinal.
	OrdinalSpacing = 3
	// MixtureOffset is the distance of the two positive components of
	// ClassificationMixture from the negative one, along the second input.
	MixtureOffset = 6
)

// MaxJitter is the largest diagonal jitter SampleNormal adds to a covariance matrix to
// factorise it, relative to the mean of its diagonal.
const MaxJitter = 1e-6

// minJitter is the first jitter SampleNormal tries, relative to the mean diagonal; it
// grows tenfold up to MaxJitter. The ladder is its own rather than infer.FactorizeJitter's
// (which starts at 10⁻⁶ and goes up to 10³ times the mean diagonal, a model's fallback):
// a sample drawn for a toy wants the least jitter that works, and the toys' data depend
// on these rungs.
const minJitter = 1e-12

// errNilRand is returned by every generator given a nil source.
var errNilRand = errors.New("toys: nil random source")

// SampleNormal draws one sample f ~ N(0, cov) as f = L z, with L the Cholesky factor of
// cov and z standard normal (z drawn with rng.NormFloat64, one per row, in order).
//
// When cov is not numerically positive definite (a smooth kernel on many points has
// eigenvalues at rounding level) a jitter of 1e−12 times the mean diagonal is added to the
// diagonal, and raised tenfold until the factorisation succeeds; the jitter used (0 when
// none was needed) is returned. If even MaxJitter times the mean diagonal does not make
// cov positive definite, or cov is empty or not finite, SampleNormal returns an error.
func SampleNormal(cov mat.Symmetric, rng *rand.Rand) (f []float64, jitter float64, err error) {
	if rng == nil {
		return nil, 0, errNilRand
	}
	if cov == nil {
		return nil, 0, errors.New("toys: nil covariance matrix")
	}
	n := cov.SymmetricDim()
	if n == 0 {
		return nil, 0, errors.New("toys: empty covariance matrix")
	}
	mean := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := cov.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, fmt.Errorf("toys: covariance entry (%d, %d) is %v", i, j, v)
			}
		}
		mean += cov.At(i, i)
	}
	mean /= float64(n)
	if !(mean > 0) {
		return nil, 0,
			fmt.Errorf("toys: covariance matrix is not positive definite (mean diagonal %g)", mean)
	}
	var chol mat.Cholesky
	ok := chol.Factorize(cov)
	if !ok {
		a := mat.NewSymDense(n, nil)
		for rel := minJitter; rel <= MaxJitter*(1+1e-9); rel *= 10 {
			a.CopySym(cov)
			jitter = rel * mean
			for i := 0; i < n; i++ {
				a.SetSym(i, i, a.At(i, i)+jitter)
			}
			if ok = chol.Factorize(a); ok {
				break
			}
		}
		if !ok {
			return nil, 0, fmt.Errorf("toys: covariance matrix is not positive definite "+
				"even with a diagonal jitter of %g (%g × its mean diagonal)", jitter, MaxJitter)
		}
	}
	var l mat.TriDense
	chol.LTo(&l)
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	f = make([]float64, n)
	mat.NewVecDense(n, f).MulVec(&l, mat.NewVecDense(n, z))
	return f, jitter, nil
}

// SampleGP draws the values f ~ N(0, K(X, X)) of one function from the Gaussian-process
// prior with covariance function k at the rows of x, white noise of k included. It
// factorises K(X, X) as SampleNormal does (with a jitter of at most MaxJitter times the
// mean diagonal, only if needed; call k.K and SampleNormal to learn the jitter), and
// returns an error when that fails or when x does not have the columns an ARD kernel
// was built for.
func SampleGP(x *mat.Dense, k kern.Kernel, rng *rand.Rand) ([]float64, error) {
	if x == nil || x.IsEmpty() {
		return nil, errors.New("toys: SampleGP needs inputs")
	}
	if k == nil {
		return nil, errors.New("toys: SampleGP needs a kernel")
	}
	if rng == nil {
		return nil, errNilRand
	}
	n, dim := x.Dims()
	if dk, ok := k.(interface{ Dim() int }); ok && dk.Dim() > 0 && dk.Dim() != dim {
		return nil, fmt.Errorf("toys: kernel %s has input dimension %d, inputs have %d columns",
			k.Name(), dk.Dim(), dim)
	}
	var kx mat.Dense
	k.K(&kx, x, nil)
	f, _, err := SampleNormal(symmetric(&kx, n), rng)
	return f, err
}

// symmetric returns the symmetric matrix of the upper triangle of the n×n matrix a.
func symmetric(a *mat.Dense, n int) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, a.At(i, j))
		}
	}
	return s
}

// TwoGaussianMixture returns n two-dimensional inputs (n×2) from the mixture of two
// Gaussians of the IVM paper's regression toys (§4.1.1): means [−1, −1] and [1, 1], shared
// covariance 0.25·I, equal weights. The components are not drawn at random: the first
// ⌈n/2⌉ rows come from the first component, the rest from the second (as in the reference
// toolbox's generateRegressionData).
func TwoGaussianMixture(n int, rng *rand.Rand) (*mat.Dense, error) {
	if n <= 0 {
		return nil, fmt.Errorf("toys: TwoGaussianMixture needs n > 0, got %d", n)
	}
	if rng == nil {
		return nil, errNilRand
	}
	const sd = 0.5 // √0.25
	x := mat.NewDense(n, 2, nil)
	half := (n + 1) / 2
	for i := 0; i < n; i++ {
		m := -1.0
		if i >= half {
			m = 1
		}
		x.Set(i, 0, m+sd*rng.NormFloat64())
		x.Set(i, 1, m+sd*rng.NormFloat64())
	}
	return x, nil
}

// Regression returns the regression toy problem of the IVM paper §4.1.1 (Fig. 2): n
// inputs from TwoGaussianMixture and targets y = f(x) + ε, where f is one draw from the
// Gaussian-process prior with the RBF-ARD covariance
//
//	k(x, x') = RegressionVariance · exp(−½ RegressionGamma Σ_d α_d (x_d − x'_d)²)
//
// with input scales α = scales, and ε is Gaussian noise of variance RegressionNoise.
// The paper's two problems are scales [0, 1] and [1, 0.2].
//
// The scales may be any finite non-negative numbers: the covariance is computed here from
// the differences of the inputs (not through kern.RBFARD, whose scales lie in the open
// interval (0, 1)), so a scale of exactly 0 makes f exactly constant along that input.
// f is drawn by SampleNormal (Cholesky factor of the covariance with a jitter of at most
// MaxJitter only if needed).
func Regression(n int, scales [2]float64, rng *rand.Rand) (*mat.Dense, []float64, error) {
	for d, a := range scales {
		if !(a >= 0) || math.IsInf(a, 0) {
			return nil, nil, fmt.Errorf("toys: Regression: input scale %d is %v, "+
				"want a finite number ≥ 0", d+1, a)
		}
	}
	x, err := TwoGaussianMixture(n, rng)
	if err != nil {
		return nil, nil, err
	}
	cov := mat.NewSymDense(n, nil)
	h := 0.5 * RegressionGamma
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			r := 0.0
			for d, a := range scales {
				diff := x.At(i, d) - x.At(j, d)
				r += a * diff * diff
			}
			cov.SetSym(i, j, RegressionVariance*math.Exp(-h*r))
		}
	}
	f, _, err := SampleNormal(cov, rng)
	if err != nil {
		return nil, nil, fmt.Errorf("toys: Regression: %w", err)
	}
	sd := math.Sqrt(RegressionNoise)
	for i := range f {
		f[i] += sd * rng.NormFloat64()
	}
	return x, f, nil
}

// ClassificationGP returns the classification toy problem of the IVM paper §4.1.2
// (Fig. 3 right): n inputs uniform on the unit square [0, 1)², a latent function f drawn
// by SampleGP from the prior with the RBF covariance of inverse width
// ClassificationGamma and variance ClassificationVariance, and labels y_i = +1 with
// probability Φ(f(x_i)), −1 otherwise.
func ClassificationGP(n int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	if n <= 0 {
		return nil, nil, fmt.Errorf("toys: ClassificationGP needs n > 0, got %d", n)
	}
	if rng == nil {
		return nil, nil, errNilRand
	}
	x := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, rng.Float64())
		x.Set(i, 1, rng.Float64())
	}
	k, err := kern.NewRBF(ClassificationGamma, ClassificationVariance)
	if err != nil {
		return nil, nil, err
	}
	f, err := SampleGP(x, k, rng)
	if err != nil {
		return nil, nil, fmt.Errorf("toys: ClassificationGP: %w", err)
	}
	y := make([]float64, n)
	for i, fi := range f {
		y[i] = -1
		if rng.Float64() < 0.5*math.Erfc(-fi/math.Sqrt2) {
			y[i] = 1
		}
	}
	return x, y, nil
}

// Ordinal returns the linear ordered-categories toy problem of the IVM paper §4.1.3
// (Fig. 4 left): perClass points of each of categories categories, labelled 0 … C−1.
// The points of category k are drawn from the isotropic unit-variance Gaussian with mean
// [0, OrdinalSpacing·(k − (C−1)/2)], so the means lie 3 units apart along the second
// input and the first input carries no information. Rows are grouped by category, category
// 0 first. Package noise's ordinal model needs categories ≥ 3; 2 gives a binary problem
// with labels 0 and 1.
func Ordinal(perClass, categories int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	if perClass <= 0 {
		return nil, nil, fmt.Errorf("toys: Ordinal needs perClass > 0, got %d", perClass)
	}
	if categories < 2 {
		return nil, nil, fmt.Errorf("toys: Ordinal needs at least 2 categories, got %d", categories)
	}
	if rng == nil {
		return nil, nil, errNilRand
	}
	n := perClass * categories
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for c := 0; c < categories; c++ {
		m := OrdinalSpacing * (float64(c) - 0.5*float64(categories-1))
		for i := c * perClass; i < (c+1)*perClass; i++ {
			x.Set(i, 0, rng.NormFloat64())
			x.Set(i, 1, m+rng.NormFloat64())
			y[i] = float64(c)
		}
	}
	return x, y, nil
}

// ClassificationMixture returns the mixture-of-Gaussians classification toy of the IVM
// paper §4.1.2 (Fig. 3 left), as the reference toolbox's demClassification1 generates it:
// perComponent points from each of three isotropic unit-variance Gaussians with means
// [0, −MixtureOffset] and [0, +MixtureOffset] (label +1) and [0, 0] (label −1). The
// means share their first coordinate, so only the second input decides the class (and
// not linearly: the negative class lies between the two positive components). Rows are
// grouped by component in that order: 2·perComponent positive points, then perComponent
// negative ones.
func ClassificationMixture(perComponent int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	if perComponent <= 0 {
		return nil, nil, fmt.Errorf("toys: ClassificationMixture needs perComponent > 0, got %d",
			perComponent)
	}
	if rng == nil {
		return nil, nil, errNilRand
	}
	means := [3]float64{-MixtureOffset, MixtureOffset, 0}
	labels := [3]float64{1, 1, -1}
	n := 3 * perComponent
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for c := range means {
		for i := c * perComponent; i < (c+1)*perComponent; i++ {
			x.Set(i, 0, rng.NormFloat64())
			x.Set(i, 1, means[c]+rng.NormFloat64())
			y[i] = labels[c]
		}
	}
	return x, y, nil
}
