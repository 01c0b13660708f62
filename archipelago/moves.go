package archipelago

import (
	"math"
)

// The moves of §3.1–3.2 over the latent rejections. All of them draw function
// values at a new location from the GP conditional on every current value, so
// the GP prior cancels from the Metropolis–Hastings ratios, which leaves the
// ratios of eqs. 9–11. Each costs one triangular solve, O(n²), plus an O(n²)
// extension or removal of the Cholesky factor when accepted.

// insertRejection proposes a new rejection at x̂ ~ π with g(x̂) drawn from the
// GP conditional and accepts with eq. 9, for a constant b:
// a = (1−b)(M+N+P) / (b(M+1)(1+Λ(x̂))).
func (sp *Sampler) insertRejection() bool {
	s := sp.st
	xn := make([]float64, s.dim)
	sp.base.Sample(xn, sp.rng)
	d, ok := s.conditional(xn)
	if !ok {
		// Zero conditional variance: the proposal is an existing location (measure
		// zero under π); count it as rejected.
		return false
	}
	gn := make([]float64, s.nc)
	s.drawConditional(gn, d, sp.rng)
	m := float64(s.nRej)
	b := sp.opt.InsertProb
	logA := math.Log(1-b) + math.Log(m+float64(sp.nData)) - math.Log(b) - math.Log(m+1) -
		softplus(logSumExp(gn))
	if logA >= 0 || sp.rng.Float64() < math.Exp(logA) {
		s.appendPoint(xn, gn, kindRejection, -1, d)
		return true
	}
	return false
}

// deleteRejection picks one of the M rejections uniformly and removes it with
// eq. 10: a = b·M·(1+Λ(x_m)) / ((1−b)(M+N+P−1)).
func (sp *Sampler) deleteRejection() bool {
	s := sp.st
	if s.nRej == 0 {
		return false
	}
	j := sp.rejectionIndex(sp.rng.IntN(s.nRej))
	m := float64(s.nRej)
	b := sp.opt.InsertProb
	logA := math.Log(b) + math.Log(m) + softplus(logSumExp(s.grow(j))) - math.Log(1-b) -
		math.Log(m+float64(sp.nData)-1)
	if logA >= 0 || sp.rng.Float64() < math.Exp(logA) {
		s.removePoint(j)
		return true
	}
	return false
}

// rejectionIndex returns the position of the r-th rejection (0-based) among the
// points. Data come first and are never removed, so rejections follow them.
func (sp *Sampler) rejectionIndex(r int) int { return sp.nData + r }

// moveRejection proposes moving rejection j to x̂ = x_j + ε, ε ~ N(0, s²Σ_diag)
// (symmetric, so q cancels), with g(x̂) drawn conditional on all current values
// including those at x_j, and accepts with eq. 11:
// a = π(x̂)(1+Λ(x_j)) / (π(x_j)(1+Λ(x̂))).
func (sp *Sampler) moveRejection(j int) bool {
	s := sp.st
	xo := s.xrow(j)
	xn := make([]float64, s.dim)
	for i := range xn {
		xn[i] = xo[i] + sp.stepSD[i]*sp.rng.NormFloat64()
	}
	d, ok := s.conditional(xn)
	if !ok {
		return false
	}
	gn := make([]float64, s.nc)
	s.drawConditional(gn, d, sp.rng)
	logA := sp.base.LogPDF(xn) + softplus(logSumExp(s.grow(j))) - sp.base.LogPDF(xo) -
		softplus(logSumExp(gn))
	if logA >= 0 || sp.rng.Float64() < math.Exp(logA) {
		s.appendPoint(xn, gn, kindRejection, -1, d)
		s.removePoint(j)
		return true
	}
	return false
}

// stepSizes sets the random-walk scales of moveRejection from the base
// covariance's diagonal.
func (sp *Sampler) stepSizes() {
	cv := sp.base.Cov()
	sp.stepSD = sp.stepSD[:0]
	for i := 0; i < sp.st.dim; i++ {
		sp.stepSD = append(sp.stepSD, sp.opt.MoveScale*math.Sqrt(cv.At(i, i)))
	}
}

// rejectionMoves makes opt.BirthDeath insert-or-delete proposals, then one
// location move per rejection, and records acceptances.
func (sp *Sampler) rejectionMoves() {
	for i := 0; i < sp.opt.BirthDeath; i++ {
		if sp.rng.Float64() < sp.opt.InsertProb {
			sp.stats.InsertTried++
			if sp.insertRejection() {
				sp.stats.InsertAccepted++
			}
		} else {
			sp.stats.DeleteTried++
			if sp.deleteRejection() {
				sp.stats.DeleteAccepted++
			}
		}
	}
	sp.stepSizes()
	// The scan runs from the last rejection to the first. Moving the rejection
	// at j appends the new location at the end and removes j, which leaves every
	// earlier point where it was, so the t-th rejection from the end is always
	// at n−t; and removing it costs a rank-one update of the t−1 rows below it,
	// O(t²) — a third of the O(M²) a front-to-back scan pays on average.
	n := sp.st.n
	for t := 1; t <= sp.st.nRej; t++ {
		sp.stats.MoveTried++
		if sp.moveRejection(n - t) {
			sp.stats.MoveAccepted++
		}
	}
}
