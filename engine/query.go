package engine

import "gonum.org/v1/gonum/mat"

// Projections returns, for each row x* of x, the row k*ᵀU⁻¹ (U the upper Cholesky factor of
// A = K_II + diag(1/β), k* the kernel values against the active inputs): its squared norm is
// what the latent variance takes from the prior's, and the inner product of two rows' is
// what the active set takes from their prior covariance, so the latent posterior covariance
// of x_a and x_b is k(x_a, x_b) − u_a·u_b. Active learning's batches (the root package's
// Query) need it to update a candidate's variance as if other candidates were included. x
// must have at least one row.
func (m *Model) Projections(x mat.Matrix) *mat.Dense {
	n, _ := x.Dims()
	out := mat.NewDense(n, m.Size(), nil)
	m.Kernel.K(out, x, m.XActive)
	m.solveRows(out)
	return out
}
