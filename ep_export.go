package ivm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
)

// ErrEPNotConverged is returned by SiteEP.Run when the sweeps reached their limit; the
// sites are still usable.
var ErrEPNotConverged = errEPNoConvergence

// SiteEP is expectation propagation on a fixed set of points — the engine's active-set EP,
// exported for packages that keep such sets of their own (multitask: one per task). The
// caller fills K with the points' covariance and M, Beta with starting sites; Run refines
// the sites in place.
type SiteEP struct {
	// K is the points' covariance (white noise on the diagonal included).
	K *mat.SymDense
	// M and Beta are the site means and precisions.
	M, Beta []float64
	e       activeEP
}

// NewSiteEP prepares EP for the points with targets y; index[i] is point i's row as the
// noise model knows it (its n in Moments).
func NewSiteEP(nm noise.Model, y []float64, index []int) *SiteEP {
	d := len(y)
	s := &SiteEP{K: mat.NewSymDense(d, nil), M: make([]float64, d), Beta: make([]float64, d)}
	s.e = activeEP{k: s.K, y: y, index: index, nm: nm, m: s.M, beta: s.Beta}
	return s
}

// Refresh factorises B = I + S½KS½ for the current sites and K.
func (s *SiteEP) Refresh() error { return s.e.refresh() }

// Run sweeps over the sites until they converge (ErrEPNotConverged at the sweep limit).
func (s *SiteEP) Run() error {
	_, err := s.e.run()
	return err
}

// LogZ is the EP approximation of the log marginal likelihood of the points' targets.
func (s *SiteEP) LogZ() float64 { return s.e.logZ() }

// DK writes ∂(−LogZ)/∂K into dst (exact at an EP fixed point).
func (s *SiteEP) DK(dst *mat.Dense) error { return s.e.dK(dst) }

// Alpha is A⁻¹m, A = K + S⁻¹, from the last factorisation.
func (s *SiteEP) Alpha() []float64 { return s.e.alpha }

// L returns the lower Cholesky factor of B = I + S½KS½ from the last factorisation, B = LLᵀ
// (a copy).
func (s *SiteEP) L() *mat.TriDense { return s.e.chol.lower() }
