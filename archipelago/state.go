package archipelago

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/ivmlab/ivm/param"
	"gonum.org/v1/gonum/mat"
)

// kind says which factor of eq. 8 a point contributes.
type kind int8

const (
	// kindLabelled is a labelled datum: exp{g_l}/(1 + Λ).
	kindLabelled kind = iota
	// kindUnlabelled is an unlabelled datum: Λ/(1 + Λ) (the label summed out).
	kindUnlabelled
	// kindRejection is a latent rejection: 1/(1 + Λ).
	kindRejection
	// kindSoftmax is a labelled datum of the softmax GP comparator: exp{g_l}/Λ (eq. 1).
	kindSoftmax
	// kindFree contributes no likelihood (the GP prior alone; tests).
	kindFree
)

// state is the latent state the Markov chain moves: the points at which the K
// functions are represented (data and rejections, in the order of the Cholesky
// factor), the function values g (n×K), the factor L of the shared covariance
// at the points, and the whitened values ν = L⁻¹g which HMC moves (eq. 12).
// g = Lν holds after every transition.
type state struct {
	dim, nc int
	n       int
	x       []float64 // n×dim
	g, nu   []float64 // n×nc
	lab     []int
	kind    []kind
	nRej    int
	// beta tempers the unlabelled points' factors in the function moves during
	// an annealed burn-in (Options.Anneal); 1 is the target of eq. 8.
	beta float64
	ch   chol
	cov  *Cov
	// jitter counts refactorisations that needed added diagonal jitter (a
	// recorded fallback; with the nugget it should stay 0).
	jitter int
	maxJit float64
	// jittered says the current factor L carries jitter, so it is not the
	// factor of the covariance at the current θ itself.
	jittered bool
	kcol     []float64
	work     []float64
	rowBuf   []float64
	gradBuf  []float64
	kbuf     []float64
	condMean []float64
}

func newState(dim, nc int, cov *Cov) *state {
	return &state{dim: dim, nc: nc, cov: cov, beta: 1}
}

// xmat returns the n×dim matrix of point locations (a view, no copy).
func (s *state) xmat() *mat.Dense {
	if s.n == 0 {
		return nil
	}
	return mat.NewDense(s.n, s.dim, s.x[:s.n*s.dim])
}

func (s *state) xrow(i int) []float64 { return s.x[i*s.dim : (i+1)*s.dim] }
func (s *state) grow(i int) []float64 { return s.g[i*s.nc : (i+1)*s.nc] }

func (s *state) bufs() {
	if len(s.kcol) < s.n+1 {
		c := 2*s.n + 16
		s.kcol = make([]float64, c)
		s.work = make([]float64, c+s.nc)
		s.condMean = make([]float64, s.nc)
		s.rowBuf = make([]float64, s.nc)
		s.gradBuf = make([]float64, s.nc)
	}
}

// softplus returns ln(1 + eˣ) without overflow.
var softplus = param.Softplus{}.Forward

// logSumExp returns ln Σ exp(g_k) = ln Λ.
func logSumExp(g []float64) float64 {
	m := math.Inf(-1)
	for _, v := range g {
		m = math.Max(m, v)
	}
	var s float64
	for _, v := range g {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// pointLogLik returns the log factor of eq. 8 (or of the softmax GP) for a point
// with function values g, and when grad is not nil writes its gradient in g.
func pointLogLik(k kind, lab int, g, grad []float64) float64 {
	if k == kindFree {
		for i := range grad {
			grad[i] = 0
		}
		return 0
	}
	lse := logSumExp(g)
	sp := softplus(lse) // ln(1 + Λ)
	var ll float64
	switch k {
	case kindLabelled:
		ll = g[lab] - sp
	case kindUnlabelled:
		ll = lse - sp
	case kindRejection:
		ll = -sp
	case kindSoftmax:
		ll = g[lab] - lse
	}
	if grad != nil {
		for i, v := range g {
			pa := math.Exp(v - sp)  // e^{g_i}/(1+Λ)
			ps := math.Exp(v - lse) // e^{g_i}/Λ
			switch k {
			case kindLabelled:
				grad[i] = -pa
			case kindUnlabelled:
				grad[i] = ps - pa
			case kindRejection:
				grad[i] = -pa
			case kindSoftmax:
				grad[i] = -ps
			}
		}
		if k == kindLabelled || k == kindSoftmax {
			grad[lab]++
		}
	}
	return ll
}

// logLik returns the sum of the points' log factors.
func (s *state) logLik() float64 {
	var ll float64
	for i := 0; i < s.n; i++ {
		ll += pointLogLik(s.kind[i], s.lab[i], s.grow(i), nil)
	}
	return ll
}

// conditional computes, for a new location xn, v = L⁻¹k(X, xn) (into s.kcol),
// the conditional standard deviation d and the conditional means of the K
// functions (into s.condMean, from ν: E[g_k(xn)] = vᵀν_k). ok is false when the
// conditional variance is not positive.
func (s *state) conditional(xn []float64) (d float64, ok bool) {
	s.bufs()
	xm := mat.NewDense(1, s.dim, xn)
	v := s.kcol[:s.n]
	if s.n > 0 {
		s.cov.cross(v, s.xmat(), xm)
		s.ch.solveL(v)
	}
	vv := 0.0
	for _, a := range v {
		vv += a * a
	}
	va := s.cov.diag(xm) - vv
	for q := 0; q < s.nc; q++ {
		var m float64
		for i, a := range v {
			m += a * s.nu[i*s.nc+q]
		}
		s.condMean[q] = m
	}
	if !(va > 0) {
		return 0, false
	}
	return math.Sqrt(va), true
}

// drawConditional fills gn with a draw of the K functions at the location last
// passed to conditional.
func (s *state) drawConditional(gn []float64, d float64, rng *rand.Rand) {
	for q := range gn {
		gn[q] = s.condMean[q] + d*rng.NormFloat64()
	}
}

// appendPoint adds a point whose conditional (v in s.kcol, d) was just computed.
func (s *state) appendPoint(xn, gn []float64, k kind, lab int, d float64) {
	n := s.n
	s.ch.extend(s.kcol[:n], d)
	s.x = append(s.x[:n*s.dim], xn...)
	s.g = append(s.g[:n*s.nc], gn...)
	for q := range gn {
		s.nu = append(s.nu[:n*s.nc+q], (gn[q]-s.condMean[q])/d)
	}
	s.lab = append(s.lab[:n], lab)
	s.kind = append(s.kind[:n], k)
	s.n++
	if k == kindRejection {
		s.nRej++
	}
}

// removePoint deletes point j, keeping g at the other points.
func (s *state) removePoint(j int) {
	s.bufs()
	s.ch.remove(j, s.work, s.nu, s.nc)
	n := s.n
	if s.kind[j] == kindRejection {
		s.nRej--
	}
	copy(s.x[j*s.dim:], s.x[(j+1)*s.dim:n*s.dim])
	copy(s.g[j*s.nc:], s.g[(j+1)*s.nc:n*s.nc])
	copy(s.lab[j:], s.lab[j+1:n])
	copy(s.kind[j:], s.kind[j+1:n])
	s.n--
	s.x, s.g, s.nu = s.x[:s.n*s.dim], s.g[:s.n*s.nc], s.nu[:s.n*s.nc]
	s.lab, s.kind = s.lab[:s.n], s.kind[:s.n]
}

// refactor recomputes L from the covariance at the points and ν = L⁻¹g. If the
// factorisation fails, jitter (10⁻⁸σ², ×10 up to 10⁻²σ²) is added and counted in
// s.jitter: a recorded fallback, not a silent fix.
//
// This ladder is not infer.FactorizeJitter with other parameters: that one starts at
// 10⁻⁶ × the mean diagonal, computes rung k as start·10^k and replaces the previous rung's
// jitter (the diagonal holds one rung), on a mat.Cholesky; this one starts at 10⁻⁸σ² (σ²
// the kernel's amplitude at a point), multiplies the rung by 10 each try, adds every rung
// on top of the last (the diagonal holds their sum), stops past 10⁻²σ² rather than after
// a count, counts each fallback for the chain's statistics, and factorises into the
// growable factor that extend and remove update. One function with parameters for start,
// growth and tries would still need a switch for each of these, and any rung computed the
// other way would change the chain's numbers in their last bits.
func (s *state) refactor() error {
	n := s.n
	if n == 0 {
		s.ch.n = 0
		return nil
	}
	if cap(s.kbuf) < n*n {
		s.kbuf = make([]float64, n*n, 2*n*n)
	}
	s.kbuf = s.kbuf[:n*n]
	s.cov.full(s.kbuf, s.xmat())
	err := s.ch.factor(s.kbuf, n)
	s.jittered = err != nil
	for jit := 1e-8 * s.cov.diag(mat.NewDense(1, s.dim, s.xrow(0))); err != nil; jit *= 10 {
		if jit > 1e-2*s.cov.diag(mat.NewDense(1, s.dim, s.xrow(0))) {
			return errors.New("archipelago: covariance not positive definite even with jitter")
		}
		for i := 0; i < n; i++ {
			s.kbuf[i*n+i] += jit
		}
		err = s.ch.factor(s.kbuf, n)
		if err == nil {
			s.jitter++
			s.maxJit = math.Max(s.maxJit, jit)
		}
	}
	s.whiten()
	return nil
}

// whiten sets ν = L⁻¹g.
func (s *state) whiten() {
	s.bufs()
	s.nu = append(s.nu[:0], make([]float64, s.n*s.nc)...)
	col := s.kcol[:s.n]
	for q := 0; q < s.nc; q++ {
		for i := 0; i < s.n; i++ {
			col[i] = s.g[i*s.nc+q]
		}
		s.ch.solveL(col)
		for i := 0; i < s.n; i++ {
			s.nu[i*s.nc+q] = col[i]
		}
	}
}

// columnFromNu sets g_k = Lν_k.
func (s *state) columnFromNu(k int, nuk, gk []float64) {
	s.ch.mulL(gk, nuk)
	for i := 0; i < s.n; i++ {
		s.nu[i*s.nc+k] = nuk[i]
		s.g[i*s.nc+k] = gk[i]
	}
}
