package ssmtr

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
)

// laplaceGrad adds the gradient of the Laplace objective F (see laplace) to g.
//
// With H⁻¹ = (K̃⁻¹ + W)⁻¹ = K̃ − K̃V B⁻¹ VᵀK̃ and a = K̃⁻¹f̂:
//
//   - explicit part, through K̃: ∂F/∂K̃ = −½aaᵀ + ½VB⁻¹Vᵀ (the paper's matrix B of
//     §4.1, rewritten without K̃⁻¹);
//   - through σ and ε: the likelihood terms and ½ tr(H⁻¹ ∂W);
//   - implicit part: f̂ moves with every hyperparameter, and F depends on f̂ through W
//     (the probit's third derivative). With s₃ = ∂F/∂f̂ = ½ Σ_j (a_jᵀH⁻¹a_j)
//     ∂c_j/∂f and q = (I + WK̃)⁻¹ s₃ = s₃ − VB⁻¹VᵀK̃s₃, the implicit term is
//     qᵀ(∂K̃ a + K̃ ∂∇ℓ), which adds ½(qaᵀ + aqᵀ) to ∂F/∂K̃
//     (Rasmussen & Williams, §5.5.1, for non-diagonal W).
//
// ∂F/∂K̃ = U Ĝ Uᵀ with U = [a, q, V] is carried to the base kernel through ∂K̃ =
// Sᵀ∂K S, i.e. dK_eff = (SU) Ĝ (SU)ᵀ, costing O(n²k) instead of O(n³).
func (t *task) laplaceGrad(h hyper, ks *kernelStage, kt, kv *mat.Dense, st *siteState,
	mode *laplaceMode, g *hgrad) error {
	hinv, err := newHessInv(kt, kv, mode.bch)
	if err != nil {
		return err
	}
	aha, s3 := t.thirdOrder(hinv, st, h.eps)
	q, kq, err := t.implicitDir(kt, st, mode.bch, s3)
	if err != nil {
		return err
	}
	t.noiseGrad(h, hinv, st, mode.f, aha, kq, g)
	u := laplaceU(mode.a, q, st.cols, t.n)
	ghat, err := laplaceGhat(mode.bch, len(st.cols))
	if err != nil {
		return err
	}
	su, err := ks.applyS(u)
	if err != nil {
		return err
	}
	n, m := u.Dims()
	sg := mat.NewDense(n, m, nil)
	sg.Mul(su, ghat)
	dk := mat.NewDense(n, n, nil)
	dk.Mul(sg, su.T())
	ks.kernelGrad(g.theta, h.theta, dk)
	if ks.graph() {
		g.alpha += h.alpha * alphaGrad(t.graphE(mode.f, kq, kv), ghat)
	}
	return nil
}

// hessInv gives the entries of H⁻¹ = K̃ − YᵀY, with Y = U_B⁻ᵀ (K̃V)ᵀ so that
// (K̃V)B⁻¹(K̃V)ᵀ = YᵀY, without forming the n×n matrix: only a few entries are needed.
type hessInv struct {
	kt, y *mat.Dense
	k     int // rows of y, the columns of V
}

// newHessInv factors H⁻¹ from K̃, K̃V and the Cholesky factor of B.
func newHessInv(kt, kv *mat.Dense, bch *mat.Cholesky) (hessInv, error) {
	n, k := kv.Dims()
	var ub mat.TriDense
	bch.UTo(&ub)
	y := mat.NewDense(k, n, nil)
	if err := infer.Solved(ub.SolveTo(y, true, kv.T())); err != nil {
		return hessInv{}, err
	}
	return hessInv{kt: kt, y: y, k: k}, nil
}

// at returns (H⁻¹)_ij.
func (h hessInv) at(i, j int) float64 {
	s := h.kt.At(i, j)
	for m := 0; m < h.k; m++ {
		s -= h.y.At(m, i) * h.y.At(m, j)
	}
	return s
}

// thirdOrder returns a_jᵀH⁻¹a_j per constraint and s₃ = ∂F/∂f̂, through which F depends
// on f̂ by the probit's third derivative in W.
func (t *task) thirdOrder(hinv hessInv, st *siteState, eps float64) (aha, s3 []float64) {
	aha = make([]float64, len(t.cons)) // a_jᵀ H⁻¹ a_j
	s3 = make([]float64, t.n)
	for j := range t.cons {
		c := &t.cons[j]
		var v float64
		for p, ip := range c.idx {
			for q, iq := range c.idx {
				v += c.coef[p] * c.coef[q] * hinv.at(ip, iq)
			}
		}
		aha[j] = v
		se := c.s * eps
		coef := 0.5 * v * st.hp[j] / (se * se * se)
		for p, ip := range c.idx {
			s3[ip] += coef * c.coef[p]
		}
	}
	return aha, s3
}

// implicitDir returns q = (I + WK̃)⁻¹ s₃ = s₃ − V B⁻¹ Vᵀ K̃ s₃ and K̃q, which
// carry the implicit dependence of f̂ on the hyperparameters.
func (t *task) implicitDir(kt *mat.Dense, st *siteState, bch *mat.Cholesky,
	s3 []float64) (q, kq []float64, err error) {
	n, k := t.n, len(st.cols)
	q = append([]float64(nil), s3...)
	if len(t.cons) > 0 {
		ks3 := mat.NewVecDense(n, nil)
		ks3.MulVec(kt, mat.NewVecDense(n, s3))
		x := mat.NewVecDense(k, infer.VtVec(st.cols, ks3.RawVector().Data))
		if err := infer.Solved(bch.SolveVecTo(x, x)); err != nil {
			return nil, nil, err
		}
		infer.AddVx(q, st.cols, x.RawVector().Data, -1)
	}
	kqv := mat.NewVecDense(n, nil)
	kqv.MulVec(kt, mat.NewVecDense(n, q))
	return q, kqv.RawVector().Data, nil
}

// noiseGrad adds ∂F/∂ln σ and ∂F/∂ln ε to g: the likelihood terms, ½ tr(H⁻¹ ∂W) and
// the implicit term through K̃q, at the mode f.
func (t *task) noiseGrad(h hyper, hinv hessInv, st *siteState, f, aha, kq []float64,
	g *hgrad) {
	is := 1 / h.sigma2
	var rss, trH, imp float64
	for i := 0; i < t.l; i++ {
		d := t.y[i] - f[i]
		rss += d * d
		trH += hinv.at(i, i)
		imp += kq[i] * (-2 * is * d)
	}
	g.sigma += -is*rss + float64(t.l) - is*trH + imp

	eps := h.eps
	for j := range t.cons {
		c := &t.cons[j]
		om, r, hh, hp := st.omega[j], st.r[j], st.h[j], st.hp[j]
		se := c.s * eps
		g.epsilo += r*om + 0.5*aha[j]*(-om*hp-2*hh)/(se*se) + (hh*om-r)/se*c.dot(kq)
	}
}

// laplaceU returns U = [a, q, V] (n × (k+2)), the factor of ∂F/∂K̃ = U Ĝ Uᵀ.
func laplaceU(a, q []float64, cols []infer.SparseCol, n int) *mat.Dense {
	u := mat.NewDense(n, len(cols)+2, nil)
	for i := 0; i < n; i++ {
		u.Set(i, 0, a[i])
		u.Set(i, 1, q[i])
	}
	for c, col := range cols {
		for p, i := range col.Idx {
			u.Set(i, c+2, u.At(i, c+2)+col.Val[p])
		}
	}
	return u
}

// laplaceGhat returns Ĝ of ∂F/∂K̃ = U Ĝ Uᵀ: −½ for aaᵀ, ½ for qaᵀ + aqᵀ and
// ½B⁻¹ for V's block, from the Cholesky factor of B (k×k).
func laplaceGhat(bch *mat.Cholesky, k int) (*mat.Dense, error) {
	m := k + 2
	ghat := mat.NewDense(m, m, nil)
	ghat.Set(0, 0, -0.5)
	ghat.Set(0, 1, 0.5)
	ghat.Set(1, 0, 0.5)
	var binv mat.SymDense
	if err := infer.Solved(bch.InverseTo(&binv)); err != nil {
		return nil, err
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			ghat.Set(i+2, j+2, 0.5*binv.At(i, j))
		}
	}
	return ghat, nil
}

// graphE returns E = Rᵀ K̃U with K̃U = [f, K̃q, K̃V], which carries ∂F/∂K̃ to the graph
// weight α.
func (t *task) graphE(f, kq []float64, kv *mat.Dense) *mat.Dense {
	n, k := kv.Dims()
	ku := mat.NewDense(n, k+2, nil)
	for i := 0; i < n; i++ {
		ku.Set(i, 0, f[i])
		ku.Set(i, 1, kq[i])
		for c := 0; c < k; c++ {
			ku.Set(i, c+2, kv.At(i, c))
		}
	}
	_, rr := t.r.Dims()
	e := mat.NewDense(rr, k+2, nil)
	e.Mul(t.r.T(), ku)
	return e
}
