package multitask

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
)

// siteEP is expectation propagation on one task's active set: the GP prior K (the kernel on
// the active inputs, white noise included) and one likelihood term per active point, whose
// Gaussian sites (m_i, β_i) are refitted until every site matches the moments of its tilted
// distribution at its cavity. It makes the EPEvidence objective a function of the kernel
// alone, not of sites fitted for an earlier kernel.
//
// Everything is computed through B = I + S^½ K S^½ (S = diag β), whose eigenvalues are at
// least 1 whatever the site precisions (Rasmussen & Williams, GPML §3.6): A⁻¹ = (K + S⁻¹)⁻¹
// = S^½ B⁻¹ S^½, Σ = K − K S^½ B⁻¹ S^½ K, α = A⁻¹m and μ = Kα.
type siteEP struct {
	nm    noise.Model
	y     []float64
	index []int // row of each active point in its task (the noise model's n)
	k     *mat.SymDense

	m, beta []float64

	sqb   []float64
	bmat  *mat.SymDense
	chol  mat.Cholesky
	v     *mat.Dense
	sigma *mat.SymDense
	alpha []float64
	mu    []float64
	bm    []float64
}

// EP's limits: sweeps end when no site precision changes by more than epTol relative to
// itself and no site mean by more than epTol site standard deviations, or after epMaxSweeps.
// Sites of a model that is not log-concave are floored at epMinBeta.
const (
	epTol       = 1e-4
	epMaxSweeps = 100
	epMinBeta   = 1e-10
)

var errEPNotConverged = errors.New("multitask: EP on the active set did not converge")

func newSiteEP(nm noise.Model, y []float64, index []int) *siteEP {
	d := len(y)
	return &siteEP{nm: nm, y: y, index: index, k: mat.NewSymDense(d, nil),
		m: make([]float64, d), beta: make([]float64, d), sqb: make([]float64, d),
		bmat: mat.NewSymDense(d, nil), v: mat.NewDense(d, d, nil), sigma: mat.NewSymDense(d, nil),
		alpha: make([]float64, d), mu: make([]float64, d), bm: make([]float64, d)}
}

// refresh factorises B for the current sites and recomputes Σ, α and μ from scratch.
func (e *siteEP) refresh() error {
	d := len(e.m)
	for i, b := range e.beta {
		e.sqb[i] = math.Sqrt(b)
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := e.sqb[i] * e.k.At(i, j) * e.sqb[j]
			if i == j {
				v++
			}
			e.bmat.SetSym(i, j, v)
		}
	}
	if !e.chol.Factorize(e.bmat) {
		return errors.New("multitask: EP: I + S½KS½ is not positive definite")
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			e.v.Set(i, j, e.sqb[i]*e.k.At(i, j))
		}
	}
	var l mat.TriDense
	e.chol.LTo(&l)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), e.v.RawMatrix())
	e.sigma.CopySym(e.k)
	blas64.Syrk(blas.Trans, -1, e.v.RawMatrix(), 1, e.sigma.RawSymmetric())
	for i := range e.bm {
		e.bm[i] = e.sqb[i] * e.m[i]
	}
	w := mat.NewVecDense(d, nil)
	if err := e.chol.SolveVecTo(w, mat.NewVecDense(d, e.bm)); err != nil {
		return fmt.Errorf("multitask: EP: %w", err)
	}
	for i := range e.alpha {
		e.alpha[i] = e.sqb[i] * w.AtVec(i)
	}
	mat.NewVecDense(d, e.mu).MulVec(e.k, mat.NewVecDense(d, e.alpha))
	return nil
}

// cavity returns the marginal of point i without its site.
func (e *siteEP) cavity(i int) (mu, vs float64, ok bool) {
	s := e.sigma.At(i, i)
	tau := 1/s - e.beta[i]
	if !(tau > 0) || math.IsInf(tau, 0) {
		return 0, 0, false
	}
	vs = 1 / tau
	return vs * (e.mu[i]/s - e.beta[i]*e.m[i]), vs, true
}

// run sweeps over the sites until they converge. Each site update changes Σ by a rank-one
// correction (O(d²)) and μ a rank-one one (O(d)); Σ and μ are recomputed from scratch
// after the sweeps. Exact (Gaussian) sites need no sweep.
func (e *siteEP) run() error {
	if err := e.refresh(); err != nil {
		return err
	}
	if _, exact := e.nm.(noise.ExactSite); exact {
		return nil
	}
	d := len(e.m)
	col := make([]float64, d)
	sig := e.sigma.RawSymmetric()
	concave := e.nm.LogConcave()
	for sweep := 0; sweep < epMaxSweeps; sweep++ {
		change := 0.0
		for i := 0; i < d; i++ {
			cm, cv, ok := e.cavity(i)
			if !ok {
				continue
			}
			_, g, nu := e.nm.Moments(e.index[i], e.y[i], cm, cv)
			nb := nu / (1 - nu*cv)
			if !(nb >= 0) || math.IsInf(nb, 0) {
				if concave {
					return fmt.Errorf("multitask: EP: site precision %v for a log-concave noise model", nb)
				}
				nb = epMinBeta
			}
			nb = math.Max(nb, epMinBeta)
			nm := cm + g/nu
			if math.IsNaN(nm) || math.IsInf(nm, 0) {
				return fmt.Errorf("multitask: EP: site mean %v", nm)
			}
			db := nb - e.beta[i]
			change = math.Max(change, math.Abs(db)/math.Max(nb, e.beta[i]))
			change = math.Max(change, math.Abs(nm-e.m[i])*math.Sqrt(math.Min(nb, e.beta[i])))
			for j := 0; j < d; j++ {
				if j <= i {
					col[j] = sig.Data[j*sig.Stride+i]
				} else {
					col[j] = sig.Data[i*sig.Stride+j]
				}
			}
			// Σ' = Σ − c cᵀ δβ/(1 + δβ cᵢ) with c = Σ·ᵢ; μ' = Σ'(Sm)' gives
			// μ' = μ + c (δ(βm) − δβ μᵢ)/(1 + δβ cᵢ).
			den := 1 + db*col[i]
			blas64.Syr(-db/den, blas64.Vector{N: d, Inc: 1, Data: col}, sig)
			r := (nb*nm - e.beta[i]*e.m[i] - db*e.mu[i]) / den
			for j := range e.mu {
				e.mu[j] += col[j] * r
			}
			e.beta[i], e.m[i] = nb, nm
		}
		if change < epTol {
			return e.refresh()
		}
		if (sweep+1)%10 == 0 {
			if err := e.refresh(); err != nil {
				return err
			}
		}
	}
	if err := e.refresh(); err != nil {
		return err
	}
	return errEPNotConverged
}

// logZ is the EP approximation of ln p(y_I) (GPML eqs. 3.65 and 3.73): the Gaussian
// likelihood of the site means, ln N(m | 0, K + S⁻¹), plus for every site the log of its
// tilted normaliser at the cavity and the terms that cancel the site's own normalisation.
// For exact sites it is ln N(m | 0, K + S⁻¹) alone, the exact marginal likelihood.
func (e *siteEP) logZ() float64 {
	_, exact := e.nm.(noise.ExactSite)
	lz := -0.5 * e.chol.LogDet()
	for i := range e.m {
		lz += 0.5*math.Log(e.beta[i]) - 0.5*e.m[i]*e.alpha[i] - 0.5*math.Log(2*math.Pi)
		if exact {
			continue
		}
		cm, cv, ok := e.cavity(i)
		if !ok {
			continue
		}
		l, _, _ := e.nm.Moments(e.index[i], e.y[i], cm, cv)
		t := cv + 1/e.beta[i]
		lz += l + 0.5*math.Log(2*math.Pi*t) + (cm-e.m[i])*(cm-e.m[i])/(2*t)
	}
	return lz
}

// dK writes ∂(−ln Z_EP)/∂K = ½(A⁻¹ − ααᵀ) into dst: exact at an EP fixed point, where the
// sites' own dependence on K drops out (GPML eq. 3.74).
func (e *siteEP) dK(dst *mat.Dense) error {
	var binv mat.SymDense
	if err := e.chol.InverseTo(&binv); err != nil {
		return fmt.Errorf("multitask: EP: %w", err)
	}
	d := len(e.m)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			dst.Set(i, j, 0.5*(e.sqb[i]*binv.At(i, j)*e.sqb[j]-e.alpha[i]*e.alpha[j]))
		}
	}
	return nil
}
