package ssmtr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
)

// siteState is the likelihood at a latent vector f.
type siteState struct {
	ell  float64           // ln p(y, ξ | f)
	grad []float64         // ∇ℓ
	wf   []float64         // W f
	cols []infer.SparseCol // V, W = VVᵀ: σ⁻¹e_i for a labelled point, √c_j a_j per constraint
	// per constraint: ω, r, h, h'
	omega, r, h, hp []float64
}

// sites evaluates the Gaussian likelihood of the labelled points and the probit likelihood
// of the constraints (paper §4) at f.
func (t *task) sites(f []float64, hp hyper) (*siteState, error) {
	n, l := t.n, t.l
	st := &siteState{grad: make([]float64, n), wf: make([]float64, n)}
	is := 1 / hp.sigma2
	sd := math.Sqrt(is)
	var rss float64
	for i := 0; i < l; i++ {
		d := t.y[i] - f[i]
		rss += d * d
		st.grad[i] = is * d
		st.wf[i] = is * f[i]
		st.cols = append(st.cols, infer.SparseCol{Idx: []int{i}, Val: []float64{sd}})
	}
	st.ell = -0.5*is*rss - 0.5*float64(l)*math.Log(2*math.Pi*hp.sigma2)
	nc := len(t.cons)
	st.omega, st.r, st.h, st.hp = make([]float64, nc), make([]float64, nc), make([]float64, nc),
		make([]float64, nc)
	for j := range t.cons {
		c := &t.cons[j]
		om, lp, r, h, hpr := probitTerms(c, f, hp.eps)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			return nil, fmt.Errorf("ssmtr: constraint %d: ln Φ(%g) is not finite", j, om)
		}
		st.ell += lp
		st.omega[j], st.r[j], st.h[j], st.hp[j] = om, r, h, hpr
		se := c.s * hp.eps
		cj := h / (se * se)
		af := c.dot(f)
		col := infer.SparseCol{Idx: c.idx, Val: make([]float64, len(c.idx))}
		sq := math.Sqrt(cj)
		for k, i := range c.idx {
			st.grad[i] += r / se * c.coef[k]
			st.wf[i] += cj * af * c.coef[k]
			col.Val[k] = sq * c.coef[k]
		}
		st.cols = append(st.cols, col)
	}
	return st, nil
}

// The siteState is the likelihood infer.LaplaceMode works with.
func (st *siteState) LogLik() float64      { return st.ell }
func (st *siteState) Grad() []float64      { return st.grad }
func (st *siteState) WF() []float64        { return st.wf }
func (st *siteState) V() []infer.SparseCol { return st.cols }

// laplaceMode holds the Laplace approximation at the mode, for prediction.
type laplaceMode struct {
	ks   *kernelStage
	a, f []float64
	cols []infer.SparseCol
	bch  *mat.Cholesky
}

// laplace returns the Laplace approximation to −ln p(y, ξ) for one task (paper §4.1), with the
// latent f over all n training points, prior N(0, K̃) (K̃ of eq. 6, or K without a graph), the
// Gaussian likelihood on the labelled points and the probit likelihood of the constraints:
//
//	F = ½ f̂ᵀK̃⁻¹f̂ − ln p(y, ξ | f̂) + ½ ln|I + VᵀK̃V|,   W = VVᵀ = −∇∇ ln p(y, ξ | f̂).
//
// f̂ is found by Newton's method on the convex objective of §4.1 in the form f = K̃a, so that
// K̃ is never inverted (infer.LaplaceMode). With g != nil the exact gradient of F is added,
// including the implicit dependence of f̂ on the hyperparameters through W (the paper's formulas
// omit it; without it the gradient would not match finite differences).
func (t *task) laplace(h hyper, withGraph bool, g *hgrad) (float64, *laplaceMode, error) {
	ks, err := t.newKernelStage(h, withGraph, true)
	if err != nil {
		return math.NaN(), nil, err
	}
	kt, err := ks.fullKt()
	if err != nil {
		return math.NaN(), nil, err
	}
	a, f, sv, err := infer.LaplaceMode(kt, func(f []float64) (infer.Sites, error) {
		return t.sites(f, h)
	}, t.aWarm)
	if err != nil {
		return math.NaN(), nil, fmt.Errorf("ssmtr: Laplace mode: %w", err)
	}
	st := sv.(*siteState)
	t.aWarm = append(t.aWarm[:0], a...)
	kv := infer.MulKV(kt, st.cols)
	bch, err := infer.BMatrix(st.cols, kv)
	if err != nil {
		return math.NaN(), nil, fmt.Errorf("ssmtr: %w", err)
	}
	fval := 0.5*floats(a, f) - st.ell + 0.5*bch.LogDet()
	mode := &laplaceMode{ks: ks, a: a, f: f, cols: st.cols, bch: bch}
	if g == nil {
		return fval, mode, nil
	}
	if err := t.laplaceGrad(h, ks, kt, kv, st, mode, g); err != nil {
		return math.NaN(), nil, err
	}
	return fval, mode, nil
}

func floats(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
