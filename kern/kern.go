// Package kern provides the covariance functions (kernels) of ivm: lin, rbf, mlp, bias,
// white, their ARD forms linard, rbfard and mlpard, and sums of any of them with tied
// parameters, following the IVM paper §4 (Lawrence, Seeger, Herbrich).
//
// A Kernel works in natural parameters and gives K(X, X'), its diagonal and the gradient
// of a scalar objective f with respect to its parameters given ∂f/∂K (GPy's
// update_gradients_full contract). Sum collects kernels, owns the flat parameter vector
// in transformed (unconstrained) space that optimisers see, and maps tied parameters to
// one entry of that vector.
//
// Kernels are written as spec strings such as
// "rbf(gamma=1,variance=1)+bias+white" (see Parse for the grammar; Sum.String writes one
// back exactly) and stored in model files as JSON (Sum.MarshalJSON).
//
// The RBF kernels compute squared distances as ‖x‖² + ‖x'‖² − 2x·x', clamped at 0, as
// the reference IVM toolbox does, in its order of operations, so that kernel values agree
// with it to the last bit wherever its BLAS sums in the same order
// (TestReferenceKernelObjective reproduces the toolbox's kernel objective and gradient to
// about 1e-14). Kernels read *mat.Dense inputs and their views through their raw row-major
// storage; one kernel column K(X, x_i), the IVM's inclusion step, does not allocate and
// may be computed from several goroutines on disjoint row blocks of X.
package kern

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/param"
)

// Kernel is a covariance function on the rows of a matrix.
//
// Methods that do not set parameters are safe for concurrent use: the engine computes
// blocks of one kernel column from several goroutines.
type Kernel interface {
	// Name is the kernel's type as written in specs and model files ("rbf", "linard", …).
	Name() string
	// NumParams is the number of natural parameters.
	NumParams() int
	// ParamNames returns the parameters' names in order ("gamma", "variance", "scale1", …).
	ParamNames() []string
	// ParamKinds returns the constraint of each parameter, which picks its transform.
	ParamKinds() []param.Kind
	// Params writes the natural parameters into dst (len NumParams).
	Params(dst []float64)
	// SetParams sets the natural parameters from src (len NumParams); it returns an error
	// naming the parameter when a value is outside its range or not finite.
	SetParams(src []float64) error

	// K writes the covariance into dst. With x2 == nil it is K(x1, x1), white noise on the
	// diagonal included, and dst is n1×n1. Otherwise the rows of x1 and x2 are treated as
	// distinct points (no white noise) and dst is n1×n2.
	K(dst *mat.Dense, x1, x2 mat.Matrix)
	// Diag writes k(x_i, x_i), white noise included, into dst (len = rows of x).
	Diag(dst []float64, x mat.Matrix)
	// White is the variance this kernel adds to the diagonal of K(X, X) only (zero unless
	// the kernel is or contains a white-noise term).
	White() float64
	// Grad adds Σ_ij dK_ij ∂K_ij/∂θ_p to dst[p] for every natural parameter θ_p, where K is
	// what K(·, x1, x2) computes (x2 == nil: the symmetric case with white noise).
	Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix)
	// GradDiag adds Σ_i d_i ∂k(x_i, x_i)/∂θ_p to dst[p] (white noise included).
	GradDiag(dst []float64, x mat.Matrix, d []float64)
}
