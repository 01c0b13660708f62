package archipelago

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// logDensity returns ln p(q) up to a constant and writes ∇ ln p(q) into grad.
// It returns −Inf (gradient ignored) outside the support.
type logDensity func(q, grad []float64) float64

// hmc makes one Hamiltonian Monte Carlo transition from q (Neal 1997, 2011)
// with unit masses: momenta p ~ N(0, I), steps leapfrog steps of size eps,
// accept with probability min(1, exp(−ΔH)). q is updated in place when the
// proposal is accepted. The step count and size are drawn at random around
// the given values (uniform on [⌈steps/2⌉, steps] and eps·U(0.8, 1.2)) to avoid
// periodic trajectories; the draws do not depend on q, so detailed balance holds.
func hmc(q []float64, f logDensity, eps float64, steps int, rng *rand.Rand) (accepted bool) {
	n := len(q)
	grad := make([]float64, n)
	lp0 := f(q, grad)
	if math.IsInf(lp0, -1) || math.IsNaN(lp0) {
		return false
	}
	p := make([]float64, n)
	var k0 float64
	for i := range p {
		p[i] = rng.NormFloat64()
		k0 += 0.5 * p[i] * p[i]
	}
	qn := append([]float64(nil), q...)
	e := eps * (0.8 + 0.4*rng.Float64())
	lo := (steps + 1) / 2
	l := lo + rng.IntN(steps-lo+1)
	lp := lp0
	for i := range p {
		p[i] += 0.5 * e * grad[i]
	}
	for s := 0; s < l; s++ {
		for i := range qn {
			qn[i] += e * p[i]
		}
		lp = f(qn, grad)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			return false
		}
		w := e
		if s == l-1 {
			w = 0.5 * e
		}
		for i := range p {
			p[i] += w * grad[i]
		}
	}
	var k1 float64
	for _, v := range p {
		k1 += 0.5 * v * v
	}
	logA := lp - k1 - (lp0 - k0)
	if math.IsNaN(logA) {
		return false
	}
	if logA >= 0 || rng.Float64() < math.Exp(logA) {
		copy(q, qn)
		return true
	}
	return false
}

// gTarget is eq. 12 for function k in whitened coordinates ν_k (g_k = Lν_k):
// ln p = −½ν_kᵀν_k + Σ_i ln(point factor at g_i), with gradient
// −ν_k + Lᵀ ∂/∂g_k. Other functions are held at their current values.
func (s *state) gTarget(k int) logDensity {
	gk := make([]float64, s.n)
	dg := make([]float64, s.n)
	row := make([]float64, s.nc)
	grow := make([]float64, s.nc)
	return func(nu, grad []float64) float64 {
		s.ch.mulL(gk, nu)
		var lp float64
		for i := 0; i < s.n; i++ {
			copy(row, s.grow(i))
			row[k] = gk[i]
			ll := pointLogLik(s.kind[i], s.lab[i], row, grow)
			if s.kind[i] == kindUnlabelled && s.beta != 1 {
				ll *= s.beta
				grow[k] *= s.beta
			}
			lp += ll
			dg[i] = grow[k]
		}
		s.ch.mulLT(grad, dg)
		for i, v := range nu {
			lp -= 0.5 * v * v
			grad[i] -= v
		}
		return lp
	}
}

// updateG makes one HMC transition on each function in turn (§3.3) and returns
// the number accepted.
func (s *state) updateG(eps float64, steps int, rng *rand.Rand) int {
	acc := 0
	nu := make([]float64, s.n)
	gk := make([]float64, s.n)
	for k := 0; k < s.nc; k++ {
		for i := 0; i < s.n; i++ {
			nu[i] = s.nu[i*s.nc+k]
		}
		if hmc(nu, s.gTarget(k), eps, steps, rng) {
			acc++
			s.columnFromNu(k, nu, gk)
		}
	}
	return acc
}

// hyperTarget is ln p(θ) + Σ_k ln N(g_k | 0, K_θ) with g held fixed (Neal 1997):
// gradient ½ tr((AAᵀ − K·K⁻¹) ∂K/∂θ) + ∇ ln p(θ), A = K⁻¹G, K the number of
// functions. It works on a clone of the covariance.
//
// Each evaluation costs a covariance, a factorisation and an inverse, O(n³).
// Two of them are saved: the first call, at the current θ, takes the sampler's
// own factor when it is the exact one (no jitter), and the factor of the last
// call is kept in last so that an accepted trajectory need not refactorise.
type hyperTarget struct {
	s     *state
	cv    *Cov
	first bool
	kb    []float64
	dk    []float64
	a     []float64
	gm    *mat.Dense // a copy of g, which the trajectory holds fixed
	inv   mat.SymDense
	last  mat.Cholesky
}

func (s *state) newHyperTarget(cv *Cov) *hyperTarget {
	n := s.n
	return &hyperTarget{s: s, cv: cv, first: !s.jittered, kb: make([]float64, n*n),
		dk: make([]float64, n*n), a: make([]float64, n*s.nc),
		gm: mat.NewDense(n, s.nc, append([]float64(nil), s.g[:n*s.nc]...))}
}

func (h *hyperTarget) logDensity(theta, grad []float64) float64 {
	s, cv, n := h.s, h.cv, h.s.n
	x := s.xmat()
	if err := cv.SetTheta(theta); err != nil {
		return math.Inf(-1)
	}
	if h.first && slices.Equal(theta, s.cov.theta) {
		h.first = false
		s.ch.toGonum(&h.last)
	} else {
		cv.full(h.kb, x)
		if !h.last.Factorize(mat.NewSymDense(n, h.kb)) {
			return math.Inf(-1)
		}
	}
	ch := &h.last
	for i := range grad {
		grad[i] = 0
	}
	lp := cv.logPrior(theta, grad)
	lp -= 0.5 * float64(s.nc) * ch.LogDet()
	am := mat.NewDense(n, s.nc, h.a)
	if err := ch.SolveTo(am, h.gm); err != nil {
		return math.Inf(-1)
	}
	a := h.a
	for i, v := range a {
		lp -= 0.5 * v * s.g[i]
	}
	if err := ch.InverseTo(&h.inv); err != nil {
		return math.Inf(-1)
	}
	raw := h.inv.RawSymmetric()
	dk := h.dk
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var aa float64
			for k := 0; k < s.nc; k++ {
				aa += a[i*s.nc+k] * a[j*s.nc+k]
			}
			v := 0.5 * (aa - float64(s.nc)*raw.Data[i*raw.Stride+j])
			dk[i*n+j], dk[j*n+i] = v, v
		}
	}
	cv.gradTheta(grad, x, dk)
	return lp
}

// updateHyper makes one HMC transition on θ given g. An accepted θ takes the
// factor of the trajectory's last evaluation, which was made at that θ.
func (s *state) updateHyper(eps float64, steps int, rng *rand.Rand) (bool, error) {
	if s.cov.fixed || s.n == 0 {
		return false, nil
	}
	h := s.newHyperTarget(s.cov.Clone())
	theta := s.cov.Theta()
	if !hmc(theta, h.logDensity, eps, steps, rng) {
		return false, nil
	}
	if err := s.cov.SetTheta(theta); err != nil {
		return false, err
	}
	s.ch.setFrom(&h.last)
	s.jittered = false
	s.whiten()
	return true, nil
}
