package ssmtr

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
)

// laplaceGrad adds the gradient of the Laplace objective F (see laplace) to g.
//
// With H⁻¹ = (K̃⁻¹ + W)⁻¹ = K̃ − K̃V B⁻¹ VᵀK̃ and a = K̃⁻¹f̂:
//
//   - explicit part, through K̃: ∂F/∂K̃ = −½aaᵀ + ½VB⁻¹Vᵀ (the paper's matrix B of §4.1,
//     rewritten without K̃⁻¹);
//   - through σ and ε: the likelihood terms and ½ tr(H⁻¹ ∂W);
//   - implicit part: f̂ moves with every hyperparameter, and F depends on f̂ through W
//     (the probit's third derivative). With s₃ = ∂F/∂f̂ = ½ Σ_j (a_jᵀH⁻¹a_j) ∂c_j/∂f and
//     q = (I + WK̃)⁻¹ s₃ = s₃ − VB⁻¹VᵀK̃s₃, the implicit term is qᵀ(∂K̃ a + K̃ ∂∇ℓ), which
//     adds ½(qaᵀ + aqᵀ) to ∂F/∂K̃ (Rasmussen & Williams, §5.5.1, for non-diagonal W).
//
// ∂F/∂K̃ = U Ĝ Uᵀ with U = [a, q, V] is carried to the base kernel through ∂K̃ =
// Sᵀ∂K S, i.e. dK_eff = (SU) Ĝ (SU)ᵀ, costing O(n²k) instead of O(n³).
func (t *task) laplaceGrad(h hyper, ks *kernelStage, kt, kv *mat.Dense, st *siteState,
	mode *laplaceMode, g *hgrad) error {
	n, l := t.n, t.l
	k := len(st.cols)
	a, f := mode.a, mode.f
	// Y = U_B⁻ᵀ (K̃V)ᵀ, so that (K̃V)B⁻¹(K̃V)ᵀ = YᵀY.
	var ub mat.TriDense
	mode.bch.UTo(&ub)
	y := mat.NewDense(k, n, nil)
	if err := infer.Solved(ub.SolveTo(y, true, kv.T())); err != nil {
		return err
	}
	hinv := func(i, j int) float64 {
		s := kt.At(i, j)
		for m := 0; m < k; m++ {
			s -= y.At(m, i) * y.At(m, j)
		}
		return s
	}
	nc := len(t.cons)
	aha := make([]float64, nc) // a_jᵀ H⁻¹ a_j
	s3 := make([]float64, n)
	eps := h.eps
	for j := range t.cons {
		c := &t.cons[j]
		var v float64
		for p, ip := range c.idx {
			for q, iq := range c.idx {
				v += c.coef[p] * c.coef[q] * hinv(ip, iq)
			}
		}
		aha[j] = v
		se := c.s * eps
		coef := 0.5 * v * st.hp[j] / (se * se * se)
		for p, ip := range c.idx {
			s3[ip] += coef * c.coef[p]
		}
	}
	// q = s₃ − V B⁻¹ Vᵀ K̃ s₃.
	q := append([]float64(nil), s3...)
	if nc > 0 {
		ks3 := mat.NewVecDense(n, nil)
		ks3.MulVec(kt, mat.NewVecDense(n, s3))
		x := mat.NewVecDense(k, infer.VtVec(st.cols, ks3.RawVector().Data))
		if err := infer.Solved(mode.bch.SolveVecTo(x, x)); err != nil {
			return err
		}
		infer.AddVx(q, st.cols, x.RawVector().Data, -1)
	}
	kqv := mat.NewVecDense(n, nil)
	kqv.MulVec(kt, mat.NewVecDense(n, q))
	kq := kqv.RawVector().Data

	// ∂F/∂ln σ.
	is := 1 / h.sigma2
	var rss, trH, imp float64
	for i := 0; i < l; i++ {
		d := t.y[i] - f[i]
		rss += d * d
		trH += hinv(i, i)
		imp += kq[i] * (-2 * is * d)
	}
	g.sigma += -is*rss + float64(l) - is*trH + imp

	// ∂F/∂ln ε.
	for j := range t.cons {
		c := &t.cons[j]
		om, r, hh, hp := st.omega[j], st.r[j], st.h[j], st.hp[j]
		se := c.s * eps
		g.epsilo += r*om + 0.5*aha[j]*(-om*hp-2*hh)/(se*se) + (hh*om-r)/se*c.dot(kq)
	}

	// Kernel parameters and α through U Ĝ Uᵀ.
	m := k + 2
	u := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		u.Set(i, 0, a[i])
		u.Set(i, 1, q[i])
	}
	for c, col := range st.cols {
		for p, i := range col.Idx {
			u.Set(i, c+2, u.At(i, c+2)+col.Val[p])
		}
	}
	ghat := mat.NewDense(m, m, nil)
	ghat.Set(0, 0, -0.5)
	ghat.Set(0, 1, 0.5)
	ghat.Set(1, 0, 0.5)
	var binv mat.SymDense
	if err := infer.Solved(mode.bch.InverseTo(&binv)); err != nil {
		return err
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			ghat.Set(i+2, j+2, 0.5*binv.At(i, j))
		}
	}
	su, err := ks.applyS(u)
	if err != nil {
		return err
	}
	sg := mat.NewDense(n, m, nil)
	sg.Mul(su, ghat)
	dk := mat.NewDense(n, n, nil)
	dk.Mul(sg, su.T())
	ks.kernelGrad(g.theta, h.theta, dk)
	if ks.graph() {
		// K̃U = [f, K̃q, K̃V]; E = Rᵀ K̃U.
		ku := mat.NewDense(n, m, nil)
		for i := 0; i < n; i++ {
			ku.Set(i, 0, f[i])
			ku.Set(i, 1, kq[i])
			for c := 0; c < k; c++ {
				ku.Set(i, c+2, kv.At(i, c))
			}
		}
		_, rr := t.r.Dims()
		e := mat.NewDense(rr, m, nil)
		e.Mul(t.r.T(), ku)
		g.alpha += h.alpha * alphaGrad(e, ghat)
	}
	return nil
}
