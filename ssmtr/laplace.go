package ssmtr

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// sparseCol is one column of the factor V of the likelihood curvature W = VVᵀ: σ⁻¹e_i for a
// labelled point, √c_j a_j for a constraint.
type sparseCol struct {
	idx []int
	val []float64
}

// siteState is the likelihood at a latent vector f.
type siteState struct {
	ell  float64   // ln p(y, ξ | f)
	grad []float64 // ∇ℓ
	wf   []float64 // W f
	cols []sparseCol
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
		st.cols = append(st.cols, sparseCol{idx: []int{i}, val: []float64{sd}})
	}
	st.ell = -0.5*is*rss - 0.5*float64(l)*math.Log(2*math.Pi*hp.sigma2)
	nc := len(t.cons)
	st.omega, st.r, st.h, st.hp = make([]float64, nc), make([]float64, nc), make([]float64, nc), make([]float64, nc)
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
		col := sparseCol{idx: c.idx, val: make([]float64, len(c.idx))}
		sq := math.Sqrt(cj)
		for k, i := range c.idx {
			st.grad[i] += r / se * c.coef[k]
			st.wf[i] += cj * af * c.coef[k]
			col.val[k] = sq * c.coef[k]
		}
		st.cols = append(st.cols, col)
	}
	return st, nil
}

// mulKV returns K̃V (n×k).
func mulKV(kt *mat.Dense, cols []sparseCol) *mat.Dense {
	n, _ := kt.Dims()
	out := mat.NewDense(n, len(cols), nil)
	for c, col := range cols {
		for k, i := range col.idx {
			v := col.val[k]
			for r := 0; r < n; r++ {
				out.Set(r, c, out.At(r, c)+v*kt.At(r, i))
			}
		}
	}
	return out
}

// vtVec returns Vᵀx.
func vtVec(cols []sparseCol, x []float64) []float64 {
	out := make([]float64, len(cols))
	for c, col := range cols {
		for k, i := range col.idx {
			out[c] += col.val[k] * x[i]
		}
	}
	return out
}

// addVx adds s·V x to dst.
func addVx(dst []float64, cols []sparseCol, x []float64, s float64) {
	for c, col := range cols {
		for k, i := range col.idx {
			dst[i] += s * col.val[k] * x[c]
		}
	}
}

// bMatrix factorises B = I + VᵀK̃V given KV = K̃V.
func bMatrix(cols []sparseCol, kv *mat.Dense) (*mat.Cholesky, error) {
	k := len(cols)
	b := mat.NewSymDense(k, nil)
	for c, col := range cols {
		for d := c; d < k; d++ {
			var s float64
			for m, i := range col.idx {
				s += col.val[m] * kv.At(i, d)
			}
			if d == c {
				s++
			}
			b.SetSym(c, d, s)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, fmt.Errorf("%w: I + VᵀK̃V", errNotPD)
	}
	return &ch, nil
}

// errNewton reports a Laplace mode search that did not converge.
var errNewton = errors.New("ssmtr: Newton's method for the Laplace mode did not converge")

// laplaceMode holds the Laplace approximation at the mode, for prediction.
type laplaceMode struct {
	ks   *kernelStage
	a, f []float64
	cols []sparseCol
	bch  *mat.Cholesky
}

// laplace returns the Laplace approximation to −ln p(y, ξ) for one task (paper §4.1), with
// the latent f over all n training points, prior N(0, K̃) (K̃ of eq. 6, or K without a
// graph), the Gaussian likelihood on the labelled points and the probit likelihood of the
// constraints:
//
//	F = ½ f̂ᵀK̃⁻¹f̂ − ln p(y, ξ | f̂) + ½ ln|I + VᵀK̃V|,   W = VVᵀ = −∇∇ ln p(y, ξ | f̂).
//
// f̂ is found by Newton's method on the convex objective of §4.1 in the form f = K̃a, so
// that K̃ is never inverted. With g != nil the exact gradient of F is added, including the
// implicit dependence of f̂ on the hyperparameters through W (the paper's formulas omit
// it; without it the gradient would not match finite differences).
func (t *task) laplace(h hyper, withGraph bool, g *hgrad) (float64, *laplaceMode, error) {
	ks, err := t.newKernelStage(h, withGraph, true)
	if err != nil {
		return math.NaN(), nil, err
	}
	n := t.n
	kt, err := ks.fullKt()
	if err != nil {
		return math.NaN(), nil, err
	}
	a := make([]float64, n)
	if len(t.aWarm) == n {
		copy(a, t.aWarm)
	}
	fv := mat.NewVecDense(n, nil)
	av := mat.NewVecDense(n, a)
	psi := func(av *mat.VecDense) (float64, *siteState, error) {
		fv.MulVec(kt, av)
		st, err := t.sites(fv.RawVector().Data, h)
		if err != nil {
			return 0, nil, err
		}
		return 0.5*mat.Dot(av, fv) - st.ell, st, nil
	}
	cur, st, err := psi(av)
	if err != nil {
		// The warm start may sit where a constraint's ln Φ underflows: start from 0.
		clear(a)
		if cur, st, err = psi(av); err != nil {
			return math.NaN(), nil, err
		}
	}
	f := make([]float64, n)
	copy(f, fv.RawVector().Data)
	// Newton converges quadratically: stop once a step changes f by less than 1e-9
	// relative and Ψ by rounding only. When rounding keeps the line search from any
	// decrease, a mode already located to 1e-6 is accepted.
	converged := false
	lastDF := math.Inf(1)
	for it := 0; it < 100 && !converged; it++ {
		b := make([]float64, n)
		for i := range b {
			b[i] = st.wf[i] + st.grad[i]
		}
		kv := mulKV(kt, st.cols)
		bch, err := bMatrix(st.cols, kv)
		if err != nil {
			return math.NaN(), nil, err
		}
		kb := mat.NewVecDense(n, nil)
		kb.MulVec(kt, mat.NewVecDense(n, b))
		x := mat.NewVecDense(len(st.cols), vtVec(st.cols, kb.RawVector().Data))
		if err := solved(bch.SolveVecTo(x, x)); err != nil {
			return math.NaN(), nil, fmt.Errorf("ssmtr: Newton step: solving with I + VᵀK̃V: %w", err)
		}
		anew := append([]float64(nil), b...)
		addVx(anew, st.cols, x.RawVector().Data, -1)
		// Backtrack along the Newton direction in a (the objective is convex in a).
		step := 1.0
		var next float64
		var nst *siteState
		trial := make([]float64, n)
		ok := false
		for k := 0; k < 40; k++ {
			for i := range trial {
				trial[i] = a[i] + step*(anew[i]-a[i])
			}
			next, nst, err = psi(mat.NewVecDense(n, trial))
			if err == nil && next <= cur+1e-14*math.Abs(cur) {
				ok = true
				break
			}
			step /= 2
		}
		fmax := 0.0
		for i := 0; i < n; i++ {
			fmax = math.Max(fmax, math.Abs(f[i]))
		}
		if !ok {
			if lastDF <= 1e-6*(1+fmax) {
				// Restore f = K̃a for the accepted a.
				fv.MulVec(kt, mat.NewVecDense(n, a))
				if st, err = t.sites(fv.RawVector().Data, h); err != nil {
					return math.NaN(), nil, err
				}
				converged = true
				break
			}
			return math.NaN(), nil, fmt.Errorf("%w: no decrease along the Newton direction", errNewton)
		}
		var df float64
		for i := 0; i < n; i++ {
			nf := fv.AtVec(i)
			df = math.Max(df, math.Abs(nf-f[i]))
			f[i] = nf
		}
		copy(a, trial)
		dec := cur - next
		cur, st = next, nst
		lastDF = df
		converged = df <= 1e-9*(1+fmax) && dec <= 1e-12*(1+math.Abs(cur))
	}
	if !converged && lastDF <= 1e-6 {
		converged = true
	}
	if !converged {
		return math.NaN(), nil, errNewton
	}
	copy(f, fv.RawVector().Data)
	t.aWarm = append(t.aWarm[:0], a...)
	kv := mulKV(kt, st.cols)
	bch, err := bMatrix(st.cols, kv)
	if err != nil {
		return math.NaN(), nil, err
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
