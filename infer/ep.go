package infer

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
)

// EP is expectation propagation on a fixed set of points: the GP prior K (d×d, the
// kernel on the points, white noise included) and one likelihood term per point. The
// engine runs it on an active set inside the EP-evidence objective of kernel learning
// (for a given kernel it refits the sites, so that the objective is the approximate
// marginal likelihood ln Z_EP of the active labels, not a function of stale sites); the
// multi-task IVM predicts from it (one per task).
//
// The caller fills K and the starting sites M, Beta; Run refines the sites in place.
// The algebra follows Rasmussen & Williams (GPML) §3.6 in the numerically safe form with
// S = diag(β): B = I + S^½ K S^½, A⁻¹ = (K + S⁻¹)⁻¹ = S^½ B⁻¹ S^½.
type EP struct {
	// K is the points' covariance (white noise on the diagonal included).
	K *mat.SymDense
	// Y are the points' targets and Index their rows as the noise model knows them (its n
	// in Moments).
	Y     []float64
	Index []int
	Noise noise.Model
	// M and Beta are the site means and precisions.
	M, Beta []float64
	// Tol is the convergence tolerance of the sweeps (0: 1e−4).
	Tol float64

	// posterior Σ = (K⁻¹ + S)⁻¹ and μ = Σ S m, kept in step with the sites
	sigma *mat.SymDense
	mu    []float64

	// from the last factorisation
	chol  Chol      // of B
	alpha []float64 // A⁻¹ m
}

// NewEP prepares EP for the points with targets y (index[i]: point i's row as the noise
// model knows it), with K and the sites allocated and zero.
func NewEP(nm noise.Model, y []float64, index []int) *EP {
	d := len(y)
	return &EP{K: mat.NewSymDense(d, nil), Y: y, Index: index, Noise: nm, M: make([]float64, d),
		Beta: make([]float64, d)}
}

// Alpha is A⁻¹m, A = K + S⁻¹, from the last factorisation (EP's own slice).
func (e *EP) Alpha() []float64 { return e.alpha }

// L returns the lower Cholesky factor of B = I + S½KS½ from the last factorisation,
// B = LLᵀ (a copy).
func (e *EP) L() *mat.TriDense { return e.chol.Lower() }

// epMaxSweeps and epTol bound the sweeps; a sweep whose largest change of a site precision,
// relative to the precision, and of a site mean, relative to the site's standard deviation,
// are both below epTol ends the iteration.
const (
	epMaxSweeps = 100
	epTol       = 1e-4
	// epMinBeta is the floor of an EP site precision for models that are not log-concave,
	// where a moment-matched site can come out negative: such a site is left at the floor
	// (the point then says almost nothing) instead of making Σ indefinite.
	epMinBeta = 1e-10
	// epRefreshEvery is how often, in sweeps, Σ and μ are recomputed from scratch.
	epRefreshEvery = 5
)

// ErrNotConverged reports sweeps that did not converge; the result is still usable.
var ErrNotConverged = errors.New("ivm: EP on the active set did not converge")

// Refresh refactorises B and recomputes α = A⁻¹m, μ and (for sites EP refines) Σ from
// the sites from scratch (O(d³)).
func (e *EP) Refresh() error {
	d := len(e.M)
	sq := make([]float64, d)
	for i, b := range e.Beta {
		sq[i] = math.Sqrt(b)
	}
	b := blas64.Symmetric{N: d, Stride: d, Data: make([]float64, d*d), Uplo: blas.Upper}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := sq[i] * e.K.At(i, j) * sq[j]
			if i == j {
				v++
			}
			b.Data[i*d+j] = v
		}
	}
	if !e.chol.Factorize(b) {
		return errors.New("ivm: EP: I + S½KS½ is not positive definite")
	}
	// Exact (Gaussian) sites are never refined, and ln Z and its gradient need only B's
	// factor and α: skipping Σ saves two of the three O(d³) products, where a learner that
	// evaluates the EP objective on Gaussian tasks spends most of its time.
	if _, exact := e.Noise.(noise.ExactSite); !exact {
		e.posteriorCov(sq)
	}
	// α = A⁻¹m = S½ B⁻¹ S½ m, μ = K α.
	e.alpha = resize(e.alpha, d)
	for i := range sq {
		e.alpha[i] = sq[i] * e.M[i]
	}
	e.chol.SolveVec(e.alpha)
	for i := range e.alpha {
		e.alpha[i] *= sq[i]
	}
	e.mu = resize(e.mu, d)
	mat.NewVecDense(d, e.mu).MulVec(e.K, mat.NewVecDense(d, e.alpha))
	return nil
}

// posteriorCov sets Σ = K − K S½ B⁻¹ S½ K = K − VᵀV with V = L⁻¹ S½ K from B's
// factor; sq holds the square roots of the site precisions.
func (e *EP) posteriorCov(sq []float64) {
	d := len(sq)
	v := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v.Set(i, j, sq[i]*e.K.At(i, j))
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, e.chol.U, v.RawMatrix()) // L⁻¹ = U⁻ᵀ
	if e.sigma == nil {
		e.sigma = mat.NewSymDense(d, nil)
	}
	e.sigma.CopySym(e.K)
	blas64.Syrk(blas.Trans, -1, v.RawMatrix(), 1, e.sigma.RawSymmetric())
}

// cavity returns the cavity marginal of site i: the posterior without site i.
func (e *EP) cavity(i int) (mu, vs float64, ok bool) {
	s := e.sigma.At(i, i)
	tau := 1/s - e.Beta[i]
	if !(tau > 0) {
		return 0, 0, false
	}
	vs = 1 / tau
	mu = vs * (e.mu[i]/s - e.Beta[i]*e.M[i])
	return mu, vs, true
}

// Run sweeps sequentially over the sites until they converge; Σ and μ follow every site
// update by a rank-one correction (O(d²)) and are recomputed from scratch after the last
// sweep and every epRefreshEvery sweeps to stop rounding drift.
func (e *EP) Run() (sweeps int, err error) {
	if err := e.Refresh(); err != nil {
		return 0, err
	}
	if _, exact := e.Noise.(noise.ExactSite); exact {
		return 0, nil // Gaussian sites are exact: nothing to refine
	}
	d := len(e.M)
	sig := e.sigma.RawSymmetric() // upper triangle, row-major
	col := make([]float64, d)
	concave := e.Noise.LogConcave()
	tol := e.Tol
	if tol == 0 {
		tol = epTol
	}
	for sweeps = 1; sweeps <= epMaxSweeps; sweeps++ {
		change := 0.0
		for i := 0; i < d; i++ {
			cm, cv, ok := e.cavity(i)
			if !ok {
				continue
			}
			_, g, nu := e.Noise.Moments(e.Index[i], e.Y[i], cm, cv)
			newBeta := nu / (1 - nu*cv)
			if !(newBeta >= 0) || math.IsInf(newBeta, 0) {
				if concave {
					return sweeps, fmt.Errorf("ivm: EP: site precision %v "+
						"for a log-concave noise model", newBeta)
				}
				newBeta = epMinBeta
			}
			newBeta = math.Max(newBeta, epMinBeta)
			newM := cm + g/nu
			db := newBeta - e.Beta[i]
			change = math.Max(change, math.Abs(db)/math.Max(newBeta, e.Beta[i]))
			change = math.Max(change, math.Abs(newM-e.M[i])*math.Sqrt(math.Min(newBeta, e.Beta[i])))
			// Σ' = Σ − Σ·ᵢΣᵢ· db/(1 + db Σᵢᵢ);
			// μ' = μ − Σ·ᵢ db μᵢ/(1 + db Σᵢᵢ) + Σ'·ᵢ (β'm' − βm),
			// with Σ'·ᵢ = Σ·ᵢ/(1 + db Σᵢᵢ).
			for j := 0; j < d; j++ {
				if j <= i {
					col[j] = sig.Data[j*sig.Stride+i]
				} else {
					col[j] = sig.Data[i*sig.Stride+j]
				}
			}
			den := 1 + db*col[i]
			blas64.Syr(-db/den, blas64.Vector{N: d, Inc: 1, Data: col}, sig)
			dm := newBeta*newM - e.Beta[i]*e.M[i]
			mi := e.mu[i]
			for a := 0; a < d; a++ {
				e.mu[a] += col[a] * (dm - db*mi) / den
			}
			e.Beta[i], e.M[i] = newBeta, newM
		}
		last := change < tol || sweeps == epMaxSweeps
		if last || sweeps%epRefreshEvery == 0 {
			if err := e.Refresh(); err != nil {
				return sweeps, err
			}
		}
		if change < tol {
			return sweeps, nil
		}
	}
	return epMaxSweeps, ErrNotConverged
}

// LogZ returns the EP approximation of ln p(y_I | θ) (GPML eq. 3.65 with eq. 3.73's
// terms), at the current sites: the Gaussian marginal likelihood of the site means plus,
// for every site, the log of its tilted normaliser at the cavity and the Gaussian
// normalisation terms that cancel the site.
func (e *EP) LogZ() float64 {
	d := len(e.M)
	_, exact := e.Noise.(noise.ExactSite)
	// −½ ln|K + S⁻¹| − ½ mᵀ(K + S⁻¹)⁻¹m = −½ ln|B| + ½ Σ ln β − ½ mᵀα.
	lz := -0.5 * e.chol.LogDet()
	for i := 0; i < d; i++ {
		lz += 0.5*math.Log(e.Beta[i]) - 0.5*e.M[i]*e.alpha[i] - 0.5*math.Log(2*math.Pi)
		if exact {
			continue // exact Gaussian sites: the site terms cancel, ln Z is ln N(m | 0, K + S⁻¹)
		}
		cm, cv, ok := e.cavity(i)
		if !ok {
			continue
		}
		l, _, _ := e.Noise.Moments(e.Index[i], e.Y[i], cm, cv)
		// ln Z_i + ½ ln(2π(cv + 1/β)) + (cm − m)²/(2(cv + 1/β)): the site's own normaliser.
		t := cv + 1/e.Beta[i]
		lz += l + 0.5*math.Log(2*math.Pi*t) + (cm-e.M[i])*(cm-e.M[i])/(2*t)
	}
	return lz
}

// DK writes ∂(−ln Z_EP)/∂K = ½(A⁻¹ − ααᵀ) into dst, exact at an EP fixed point
// (GPML eq. 3.74), where the sites' own dependence on K drops out.
func (e *EP) DK(dst *mat.Dense) error {
	d := len(e.M)
	e.chol.Inverse(dst) // B⁻¹
	raw := dst.RawMatrix()
	sq := make([]float64, d)
	for i, b := range e.Beta {
		sq[i] = math.Sqrt(b)
	}
	for i := 0; i < d; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j := range row {
			row[j] = 0.5 * (sq[i]*row[j]*sq[j] - e.alpha[i]*e.alpha[j])
		}
	}
	return nil
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}
