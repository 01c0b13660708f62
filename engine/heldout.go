package engine

import (
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// heldOutTerm is the second term of the FullData objective: −w Σ_{n∈R} ln Z_n(μ_n, ς_n), the
// predictive log likelihood of held-out training points R given the active set's sites (m, β) from
// the selection, as a function of the kernel (w = inactive points / |R| makes a random subset R an
// unbiased estimate of the sum over all inactive points):
//
//	μ_n = k_nᵀα, ς_n = k(x_n, x_n) − k_nᵀA⁻¹k_n, A = K_II + B⁻¹, α = A⁻¹m,
//
// with k_n = K(X_I, x_n). With g_n = ∂ln Z_n/∂μ_n and h_n = ∂ln Z_n/∂ς_n = (g_n² −
// ν_n)/2, w_n = A⁻¹k_n, the derivative of Σ ln Z_n is
//
//	Σ_n [g_n α + (−2h_n) w_n]ᵀ dk_n + h_n dk(x_n, x_n) + tr((Σ_n h_n w_n w_nᵀ − g_n w_n αᵀ)ᵀ dK_II),
//
// which the kernel turns into parameter gradients. One evaluation costs O(d²|R|).
type heldOutTerm struct {
	nm    noise.Model
	xr    *mat.Dense
	yr    []float64
	index []int
	m, b  []float64 // the selection's sites
	// weight scales the subset's sum to an estimate of the sum over all inactive points.
	weight float64

	kri      *mat.Dense // |R|×d cross covariance
	wt       mat.Dense  // d×|R|: A⁻¹K_IR
	kdiag    []float64
	g, h     []float64
	d1       *mat.Dense // |R|×d
	d2       *mat.Dense // d×d
	gtmp     []float64
	gw       []float64 // scratch: Σ_n g_n w_n
	wh       mat.Dense // scratch: W diag(h)
	a        *mat.SymDense
	chol     mat.Cholesky
	alphaVec *mat.VecDense
}

// newHeldOutTerm takes up to max inactive points of s (a random subset from rng when there
// are more) and the sites of its active set.
func newHeldOutTerm(s *Selector, max int, rng *rand.Rand, nfree int) *heldOutTerm {
	var idx []int
	for j, a := range s.active {
		if !a && !s.isSiteOnly(j) {
			idx = append(idx, j)
		}
	}
	weight := 1.0
	if len(idx) > max {
		weight = float64(len(idx)) / float64(max)
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:max]
	}
	if len(idx) == 0 {
		return nil
	}
	d, r := s.size, len(idx)
	t := &heldOutTerm{nm: s.Noise, xr: mat.NewDense(r, s.dim, nil), yr: make([]float64, r),
		index: idx, m: make([]float64, d), b: make([]float64, d), kri: mat.NewDense(r, d, nil),
		kdiag: make([]float64, r),
		g:     make([]float64, r), h: make([]float64, r), d1: mat.NewDense(r, d, nil),
		d2:   mat.NewDense(d, d, nil),
		gtmp: make([]float64, nfree), a: mat.NewSymDense(d, nil), alphaVec: mat.NewVecDense(d, nil)}
	t.weight = weight
	for i, j := range idx {
		t.xr.SetRow(i, s.X.RawRowView(j))
		t.yr[i] = s.Y[j]
	}
	for k, st := range s.steps {
		t.m[k], t.b[k] = st.SiteM, st.SiteBeta
	}
	return t
}

// eval returns −Σ ln Z_n and adds its gradient with respect to the free parameters to grad
// (when grad is not nil). kd holds K(X_I, X_I) (white noise included) for the current θ.
// ok is false when A cannot be factorised.
func (t *heldOutTerm) eval(sum *kern.Sum, xa *mat.Dense, kd *mat.Dense, grad []float64) (f float64,
	ok bool) {
	d, _ := xa.Dims()
	r := len(t.yr)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			t.a.SetSym(i, j, kd.At(i, j))
		}
		t.a.SetSym(i, i, kd.At(i, i)+1/t.b[i])
	}
	if !t.chol.Factorize(t.a) {
		return math.NaN(), false
	}
	if err := t.chol.SolveVecTo(t.alphaVec, mat.NewVecDense(d, t.m)); !conditionOnly(err) {
		return math.NaN(), false
	}
	alpha := t.alphaVec.RawVector().Data
	sum.K(t.kri, t.xr, xa)
	if !t.solveParallel() {
		return math.NaN(), false
	}
	sum.Diag(t.kdiag, t.xr)
	wt := t.wt.RawMatrix()
	kri := t.kri.RawMatrix()
	for n := 0; n < r; n++ {
		mu, q := 0.0, 0.0
		row := kri.Data[n*kri.Stride : n*kri.Stride+d]
		for j, v := range row {
			mu += v * alpha[j]
			q += v * wt.Data[j*wt.Stride+n]
		}
		vs := math.Max(0, t.kdiag[n]-q)
		lz, g, h := noise.Derivatives(t.nm, t.index[n], t.yr[n], mu, vs)
		f -= t.weight * lz
		t.g[n], t.h[n] = t.weight*g, t.weight*h
	}
	if grad == nil {
		return f, !math.IsNaN(f)
	}
	// Gradient of −Σ ln Z_n: D1 = −(g αᵀ − 2 h ∘ W), D2 = Σ g_n w_n αᵀ − W diag(h)
	// Wᵀ, D3 = −h.
	d1 := t.d1.RawMatrix()
	t.gw = resize(t.gw, d) // Σ_n g_n w_n
	gw := t.gw
	clear(gw)
	for n := 0; n < r; n++ {
		row := d1.Data[n*d1.Stride : n*d1.Stride+d]
		gn, hn := t.g[n], t.h[n]
		for j := range row {
			w := wt.Data[j*wt.Stride+n]
			row[j] = -(gn*alpha[j] - 2*hn*w)
			gw[j] += gn * w
		}
	}
	wh := &t.wh // W diag(h)
	wh.CloneFrom(&t.wt)
	whr := wh.RawMatrix()
	for j := 0; j < d; j++ {
		rowj := whr.Data[j*whr.Stride : j*whr.Stride+r]
		for n := range rowj {
			rowj[n] *= t.h[n]
		}
	}
	t.d2.Mul(wh, t.wt.T())
	d2 := t.d2.RawMatrix()
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			d2.Data[i*d2.Stride+j] = gw[i]*alpha[j] - d2.Data[i*d2.Stride+j]
		}
	}
	for n := range t.h {
		t.h[n] = -t.h[n]
	}
	sum.GradFree(t.gtmp, t.xr, xa, t.d1)
	addTo(grad, t.gtmp)
	sum.GradFree(t.gtmp, xa, nil, t.d2)
	addTo(grad, t.gtmp)
	sum.GradFreeDiag(t.gtmp, t.xr, t.h)
	addTo(grad, t.gtmp)
	return f, !math.IsNaN(f)
}

func addTo(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// solveParallel computes W = A⁻¹K_IR, split by columns over the available cores (gonum's
// triangular solves run on one).
func (t *heldOutTerm) solveParallel() bool {
	d := t.a.SymmetricDim()
	r := len(t.yr)
	if t.wt.IsEmpty() {
		t.wt.ReuseAs(d, r)
	}
	w := min(runtime.GOMAXPROCS(0), (r+127)/128)
	if w <= 1 {
		return conditionOnly(t.chol.SolveTo(&t.wt, t.kri.T()))
	}
	ok := make([]bool, w)
	chunk := (r + w - 1) / w
	pool.ForEach(w, w, func(p int) {
		lo, hi := p*chunk, min((p+1)*chunk, r)
		if lo >= hi {
			ok[p] = true
			return
		}
		var part mat.Dense
		if err := t.chol.SolveTo(&part, t.kri.Slice(lo, hi, 0, d).T()); !conditionOnly(err) {
			return
		}
		t.wt.Slice(0, d, lo, hi).(*mat.Dense).Copy(&part)
		ok[p] = true
	})
	for _, v := range ok {
		if !v {
			return false
		}
	}
	return true
}
