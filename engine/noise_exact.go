package engine

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// exactTerm is one task's part of the noise step for homoscedastic Gaussian noise: the log
// predictive probability of the task's inactive targets given its active ones, with the active
// set's posterior recomputed for every noise variance v (and bias b) the optimiser tries, rather
// than held at the selection's marginals:
//
//	ln Z_n = ln N(y_n − b | μ_n, ς_n + v),  μ_n = k_nᵀ(K + vI)⁻¹(y_I − b),
//	ς_n = k_nn − k_nᵀ(K + vI)⁻¹k_n,
//
// K the kernel on the active inputs, k_n its column at inactive point n. With K = QΛQᵀ every
// evaluation is O(d·n): μ_n = Σ_j c_nj z_j/(λ_j + v) and ς_n = k_nn − Σ_j c_nj²/(λ_j
// + v), c_n = Qᵀk_n, z = Qᵀ(y_I − b).
//
// Why: with the marginals held fixed (eq. 34 as written) the variance and the selection it was made
// with feed back on each other — a selection made with too large a variance gives smooth inactive
// marginals whose residuals ask for a small one, and the next the reverse, so the variance
// swings about the truth from one outer iteration to the next instead of settling, and the
// learnt kernel's error with it (bench/RESULTS.md records the runs).
type exactTerm struct {
	lambda []float64
	c      *mat.Dense // d × n: Qᵀ K_{I,inactive}
	zy, z1 []float64  // Qᵀ y_I and Qᵀ 1
	kdiag  []float64  // k_nn at the inactive points
	y      []float64  // inactive targets
}

// newExactTerm prepares the term of sel's current active set (name: the task's, for errors).
func newExactTerm(sel *Selector, name string) (*exactTerm, error) {
	act := sel.Active()
	d := len(act)
	n, dim := sel.X.Dims()
	xa := mat.NewDense(max(d, 1), dim, nil)
	for k, i := range act {
		xa.SetRow(k, sel.X.RawRowView(i))
	}
	var inact []int
	for i := 0; i < n; i++ {
		if !sel.IsActive(i) {
			inact = append(inact, i)
		}
	}
	term := &exactTerm{y: make([]float64, len(inact)), kdiag: make([]float64, len(inact))}
	if d == 0 || len(inact) == 0 {
		return term, nil
	}
	xi := mat.NewDense(len(inact), dim, nil)
	for k, i := range inact {
		xi.SetRow(k, sel.X.RawRowView(i))
		term.y[k] = sel.Y[i]
	}
	sel.Kernel.Diag(term.kdiag, xi)
	kd := mat.NewDense(d, d, nil)
	sel.Kernel.K(kd, xa, nil)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, kd.RawMatrix().Data), true) {
		return nil, fmt.Errorf("ivm: task %q: the eigendecomposition of the active kernel failed",
			name)
	}
	term.lambda = eig.Values(nil)
	var q mat.Dense
	eig.VectorsTo(&q)
	kin := mat.NewDense(d, len(inact), nil)
	sel.Kernel.K(kin, xa, xi)
	term.c = mat.NewDense(d, len(inact), nil)
	term.c.Mul(q.T(), kin)
	ya, ones := mat.NewVecDense(d, nil), mat.NewVecDense(d, nil)
	for k, i := range act {
		ya.SetVec(k, sel.Y[i])
		ones.SetVec(k, 1)
	}
	term.zy, term.z1 = make([]float64, d), make([]float64, d)
	mat.NewVecDense(d, term.zy).MulVec(q.T(), ya)
	mat.NewVecDense(d, term.z1).MulVec(q.T(), ones)
	return term, nil
}

// eval returns Σ_n ln Z_n over the term's inactive points at bias b and variance v, and
// its derivatives in b and v; ok is false when a predictive variance is not positive.
func (t *exactTerm) eval(b, v float64) (lz, db, dv float64, ok bool) {
	d := len(t.lambda)
	if d == 0 {
		return 0, 0, 0, true
	}
	dinv, z := make([]float64, d), make([]float64, d)
	for j, l := range t.lambda {
		dinv[j] = 1 / (l + v)
		z[j] = t.zy[j] - b*t.z1[j]
	}
	c := t.c.RawMatrix()
	n := len(t.y)
	mu, dmuV, dmuB := make([]float64, n), make([]float64, n), make([]float64, n)
	vs, dvsV := append([]float64(nil), t.kdiag...), make([]float64, n)
	for j := 0; j < d; j++ {
		row := c.Data[j*c.Stride : j*c.Stride+n]
		dj, dj2 := dinv[j], dinv[j]*dinv[j]
		zj, z1j := z[j]*dj, t.z1[j]*dj
		for k, ck := range row {
			mu[k] += ck * zj
			dmuV[k] -= ck * z[j] * dj2
			dmuB[k] -= ck * z1j
			vs[k] -= ck * ck * dj
			dvsV[k] += ck * ck * dj2
		}
	}
	for k, y := range t.y {
		s := math.Max(vs[k], 0) + v
		if !(s > 0) {
			return 0, 0, 0, false
		}
		e := y - b - mu[k]
		lz += -0.5 * (math.Log(2*math.Pi*s) + e*e/s)
		// ∂/∂v: s' = ς' + 1, e' = −μ'; ∂/∂b: e' = −1 − μ', s' = 0.
		ds := dvsV[k] + 1
		dv += -0.5*ds/s + e*dmuV[k]/s + 0.5*e*e*ds/(s*s)
		db += e * (1 + dmuB[k]) / s
	}
	return lz, db, dv, true
}
