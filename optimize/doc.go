// Package optimize holds the optimisers used to learn kernel and noise
// parameters: Møller's scaled conjugate gradient (SCG) in the variant of
// Netlab's scg.m, and a bridge to gonum's L-BFGS.
//
// SCG (M. F. Møller, "A scaled conjugate gradient algorithm for fast
// supervised learning", Neural Networks 6:525–533, 1993) replaces the line
// search of nonlinear conjugate gradients by a Levenberg–Marquardt style
// trust-region step along each conjugate direction: the curvature along the
// direction p is estimated from one extra gradient at x + σp, a scale λ is
// added to it to keep the model positive definite, and λ is raised or lowered
// according to how well the quadratic model predicted the decrease. Every
// cycle costs one function value and at most two gradients. The reference
// MATLAB toolbox of the IVM learns its kernel parameters with Netlab's
// implementation (I. T. Nabney, "NETLAB: Algorithms for Pattern
// Recognition", Springer 2002; scg.m), and this package follows that file
// step by step, including its constants (σ₀ = 10⁻⁴, λ ∈ [10⁻¹⁵, 10¹⁰⁰]
// starting at 1, restart every n successful steps, stop when a successful
// step moves every coordinate by less than 10⁻⁴ and the function by less
// than 10⁻⁴). See the SCG type for the details and the deliberate
// differences (non-finite function values, counting of iterations).
//
// There are two ways in:
//
//   - SCG implements gonum's optimize.Method, so
//     optimize.Minimize(problem, x0, settings, &SCG{}) from
//     gonum.org/v1/gonum/optimize works with gonum's Settings, Recorder and
//     Converger.
//   - Minimize is a plain function for hot loops: it runs the same SCG code
//     without gonum's goroutines and channels on an objective that computes
//     its value and, on request, its gradient in one call (the usual shape of
//     a Gaussian-process log likelihood). Options.Method = MethodLBFGS runs
//     gonum's L-BFGS behind the same interface instead.
package optimize
