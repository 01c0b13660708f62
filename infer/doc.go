// Package infer is the inference layer the model families share: the numerical pieces
// that turn a Gaussian-process prior and per-point likelihood terms into a posterior, with
// no knowledge of how the points were chosen.
//
//   - Chol is the Cholesky factor of a symmetric positive definite matrix by LAPACK's
//     potrf, without the condition estimate gonum adds (ln|B|, B⁻¹x, B⁻¹, L). It never
//     adds jitter: a matrix that is not positive definite is refused and the caller
//     decides.
//   - FactorizeJitter is the one place jitter is added: only as a fallback when a
//     factorisation fails, growing tenfold from 10⁻⁶ of the mean diagonal as the
//     reference toolbox does, and returned so that the caller records and reports it
//     (engine.Model.Jitter; the CLI warns). Nothing in the module adds jitter silently.
//   - EP is expectation propagation on a fixed set of points (GPML §3.6, in the
//     B = I + S½KS½ form that stays well conditioned when K is nearly singular): the
//     sites, the evidence ln Z_EP and its gradient with respect to K.
//
// Package engine uses EP inside the kernel objective of Algorithm 2 (the sites of an
// active set refitted for every kernel the optimiser tries) and Chol for the reference's
// fixed-site objective; package multitask predicts each task from an EP over its points.
//
// Errors are returned, never panics; a sweep limit reached by EP is ErrNotConverged, with
// the sites still usable.
package infer
