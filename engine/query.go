package engine

import (
	"gonum.org/v1/gonum/mat"
)

// Projections returns, for each row x* of x, the row k*ᵀU⁻¹ (U the upper Cholesky factor of
// A = K_II + diag(1/β), k* the kernel values against the active inputs): its squared norm is
// what the latent variance takes from the prior's, and the inner product of two rows' is
// what the active set takes from their prior covariance, so the latent posterior covariance
// of x_a and x_b is k(x_a, x_b) − u_a·u_b. Active learning's batches (the root package's
// Query) need it to update a candidate's variance as if other candidates were included. x
// must have at least one row.
func (m *Model) Projections(x mat.Matrix) *mat.Dense {
	return m.ProjectionsAndMeans(x, nil)
}

// ProjectionsAndMeans is Projections, and sets mu, when it is not nil, to Latent's means at
// the rows of x, from the same kernel values.
func (m *Model) ProjectionsAndMeans(x mat.Matrix, mu []float64) *mat.Dense {
	n, _ := x.Dims()
	out := mat.NewDense(n, m.Size(), nil)
	m.Kernel.K(out, x, m.XActive)
	if mu != nil {
		m.LatentMeanFromKernel(out, mu)
	}
	m.solveRows(out)
	return out
}

// LatentBound returns Latent's means at the rows of x and, for each, an upper bound on its
// latent variance: the prior's less what the first r active points take from it (the
// leading r coordinates of the row's projection, whose leading r×r block of U they alone
// need). It costs r² flops a row where Latent's variance costs d², and is Latent when r ≥ d.
// Active learning ranks a large pool by it and solves in full only the rows that could win.
func (m *Model) LatentBound(x mat.Matrix, r int, mu, varsigma []float64) {
	r = min(max(r, 0), m.Size())
	m.Kernel.Diag(varsigma, x)
	m.kernelChunks(x, func(kt *mat.Dense, lo, hi int) {
		m.LatentMeanFromKernel(kt, mu[lo:hi])
		m.takeProjections(kt.RawMatrix(), r, varsigma[lo:hi])
	})
}
