package ssmtr

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/kern"
)

// errNotPD reports a Cholesky failure inside an evaluation. The optimisers treat the point
// as outside the objective's domain (an unsuccessful step); no jitter is added.
var errNotPD = errors.New("ssmtr: matrix not positive definite")

// hyper holds one task's hyperparameters in natural form.
type hyper struct {
	theta  []float64 // kernel parameters
	alpha  float64   // graph weight (ignored without a graph)
	sigma2 float64   // Gaussian noise variance
	eps    float64   // constraint noise (SSMTRPI)
}

// hgrad receives the gradient of a task's negative log evidence with respect to the logs of
// the hyperparameters.
type hgrad struct {
	theta                []float64
	alpha, sigma, epsilo float64
}

// task is one task's data in the form the evaluators need.
type task struct {
	x    *mat.Dense // training inputs: the l labelled rows, then the unlabelled ones
	l, n int
	y    []float64  // standardised labelled targets
	r    *mat.Dense // n×r factor of the Laplacian (L = RRᵀ), nil without a graph
	cons []constraint
	k    *kern.Sum
	p    int

	// aWarm is the last Laplace mode (in the a = K̃⁻¹f form), a warm start.
	aWarm []float64
}

// kernelStage holds K and the factorisation of the data-dependent kernel of paper eq. 6,
//
//	K̃ = (K⁻¹ + αL)⁻¹ = K − α K P K,  P = R M⁻¹ Rᵀ,  M = I + α RᵀKR,
//
// for one evaluation. With S = I − αPK, K̃ = KS and ∂K̃ = Sᵀ ∂K S, which is how kernel
// gradients are carried back to the base kernel.
type kernelStage struct {
	t     *task
	xs    *mat.Dense // rows the kernel is computed on
	kmat  *mat.Dense // K (rows × rows)
	alpha float64
	tm    *mat.Dense // T = RᵀK (r×n); nil without a graph
	chol  mat.Cholesky
}

// newKernelStage computes K on the rows the method needs and, with a graph, factorises M.
func (t *task) newKernelStage(h hyper, withGraph, allRows bool) (*kernelStage, error) {
	if err := t.k.SetParams(h.theta); err != nil {
		return nil, err
	}
	ks := &kernelStage{t: t, alpha: h.alpha}
	ks.xs = t.x
	withGraph = withGraph && t.r != nil
	if !allRows && !withGraph {
		ks.xs = t.x.Slice(0, t.l, 0, t.x.RawMatrix().Cols).(*mat.Dense)
	}
	nr, _ := ks.xs.Dims()
	ks.kmat = mat.NewDense(nr, nr, nil)
	t.k.K(ks.kmat, ks.xs, nil)
	if !withGraph {
		return ks, nil
	}
	_, rr := t.r.Dims()
	ks.tm = mat.NewDense(rr, nr, nil)
	ks.tm.Mul(t.r.T(), ks.kmat)
	q := mat.NewDense(rr, rr, nil)
	q.Mul(ks.tm, t.r)
	m := mat.NewSymDense(rr, nil)
	for i := 0; i < rr; i++ {
		for j := i; j < rr; j++ {
			v := 0.5 * h.alpha * (q.At(i, j) + q.At(j, i))
			if i == j {
				v++
			}
			m.SetSym(i, j, v)
		}
	}
	if !ks.chol.Factorize(m) {
		return nil, fmt.Errorf("%w: I + αRᵀKR (α = %g)", errNotPD, h.alpha)
	}
	return ks, nil
}

// graph reports whether the stage has a graph term.
func (ks *kernelStage) graph() bool { return ks.tm != nil }

// minvT returns M⁻¹ T[:, cols] for the column range [0, c).
func (ks *kernelStage) minvT(c int) (*mat.Dense, error) {
	rr, _ := ks.tm.Dims()
	z := mat.NewDense(rr, c, nil)
	if err := infer.Solved(ks.chol.SolveTo(z, ks.tm.Slice(0, rr, 0, c))); err != nil {
		return nil, err
	}
	return z, nil
}

// applyS returns S U = U − α R M⁻¹ T U for U (n×k); U itself without a graph.
func (ks *kernelStage) applyS(u *mat.Dense) (*mat.Dense, error) {
	n, k := u.Dims()
	out := mat.NewDense(n, k, nil)
	out.Copy(u)
	if !ks.graph() {
		return out, nil
	}
	rr, _ := ks.tm.Dims()
	tu := mat.NewDense(rr, k, nil)
	tu.Mul(ks.tm, u)
	z := mat.NewDense(rr, k, nil)
	if err := infer.Solved(ks.chol.SolveTo(z, tu)); err != nil {
		return nil, err
	}
	rz := mat.NewDense(n, k, nil)
	rz.Mul(ks.t.r, z)
	out.Sub(out, scaled(ks.alpha, rz))
	return out, nil
}

// fullKt returns K̃ on all rows.
func (ks *kernelStage) fullKt() (*mat.Dense, error) {
	n, _ := ks.kmat.Dims()
	kt := mat.NewDense(n, n, nil)
	kt.Copy(ks.kmat)
	if !ks.graph() {
		return kt, nil
	}
	z, err := ks.minvT(n)
	if err != nil {
		return nil, err
	}
	tz := mat.NewDense(n, n, nil)
	tz.Mul(ks.tm.T(), z)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := kt.At(i, j) - 0.5*ks.alpha*(tz.At(i, j)+tz.At(j, i))
			kt.Set(i, j, v)
			kt.Set(j, i, v)
		}
	}
	return kt, nil
}

// kernelGrad turns dK_eff = ∂F/∂K (rows × rows, symmetric) into ∂F/∂ln θ.
func (ks *kernelStage) kernelGrad(dst []float64, theta []float64, dk *mat.Dense) {
	nat := make([]float64, len(theta))
	ks.t.k.Grad(nat, ks.xs, nil, dk)
	for i := range nat {
		dst[i] += theta[i] * nat[i]
	}
}

// alphaGrad returns ∂F/∂α = −tr(G K̃ L K̃) for G = U Ĝ Uᵀ given E = Rᵀ K̃ U:
// ∂K̃/∂α = −K̃ L K̃ = −(K̃R)(K̃R)ᵀ, so the trace is Σ Ĝ ⊙ EᵀE.
func alphaGrad(e *mat.Dense, ghat *mat.Dense) float64 {
	_, k := e.Dims()
	ete := mat.NewDense(k, k, nil)
	ete.Mul(e.T(), e)
	var s float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			s += ghat.At(i, j) * ete.At(i, j)
		}
	}
	return -s
}

func scaled(f float64, a *mat.Dense) *mat.Dense {
	a.Scale(f, a)
	return a
}

// exact returns F = −ln N(y | 0, K̃_LL + σ²I), the task's negative log evidence under
// the Gaussian likelihood on its labelled points (paper §2.1; with a graph §3.1, where
// K̃_LL is the labelled block of eq. 6 after the unlabelled latents are integrated
// out), and with g != nil adds its gradient with respect to ln θ, ln α and ln σ.
func (t *task) exact(h hyper, withGraph bool, g *hgrad) (float64, error) {
	ks, err := t.newKernelStage(h, withGraph, false)
	if err != nil {
		return math.NaN(), err
	}
	l := t.l
	c := mat.NewSymDense(l, nil)
	var sl *mat.Dense // S[:, L] (n×l) with a graph
	var tl, zl *mat.Dense
	if ks.graph() {
		rr, _ := ks.tm.Dims()
		tl = ks.tm.Slice(0, rr, 0, l).(*mat.Dense)
		if zl, err = ks.minvT(l); err != nil {
			return math.NaN(), err
		}
		tz := mat.NewDense(l, l, nil)
		tz.Mul(tl.T(), zl)
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				c.SetSym(i, j, ks.kmat.At(i, j)-0.5*h.alpha*(tz.At(i, j)+tz.At(j, i)))
			}
		}
	} else {
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				c.SetSym(i, j, ks.kmat.At(i, j))
			}
		}
	}
	for i := 0; i < l; i++ {
		c.SetSym(i, i, c.At(i, i)+h.sigma2)
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		return math.NaN(), fmt.Errorf("%w: K̃ + σ²I (σ² = %g)", errNotPD, h.sigma2)
	}
	beta := mat.NewVecDense(l, nil)
	if err := infer.Solved(ch.SolveVecTo(beta, mat.NewVecDense(l, t.y))); err != nil {
		return math.NaN(), fmt.Errorf("ssmtr: solving with K̃ + σ²I: %w", err)
	}
	f := 0.5*mat.Dot(beta, mat.NewVecDense(l, t.y)) + 0.5*ch.LogDet() +
		0.5*float64(l)*math.Log(2*math.Pi)
	if g == nil {
		return f, nil
	}
	var cinv mat.SymDense
	if err := infer.Solved(ch.InverseTo(&cinv)); err != nil {
		return math.NaN(), fmt.Errorf("ssmtr: inverting K̃ + σ²I: %w", err)
	}
	// G = ∂F/∂K̃_LL = ½(C⁻¹ − ββᵀ).
	gm := mat.NewDense(l, l, nil)
	var trC, bb float64
	for i := 0; i < l; i++ {
		trC += cinv.At(i, i)
		bb += beta.AtVec(i) * beta.AtVec(i)
		for j := 0; j < l; j++ {
			gm.Set(i, j, 0.5*(cinv.At(i, j)-beta.AtVec(i)*beta.AtVec(j)))
		}
	}
	g.sigma += h.sigma2 * (trC - bb)
	if !ks.graph() {
		ks.kernelGrad(g.theta, h.theta, gm)
		return f, nil
	}
	n := t.n
	// S[:, L] = E_L − α R M⁻¹ T[:, L].
	rz := mat.NewDense(n, l, nil)
	rz.Mul(t.r, zl)
	sl = mat.NewDense(n, l, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < l; j++ {
			v := -h.alpha * rz.At(i, j)
			if i == j {
				v++
			}
			sl.Set(i, j, v)
		}
	}
	w1 := mat.NewDense(n, l, nil)
	w1.Mul(sl, gm)
	dk := mat.NewDense(n, n, nil)
	dk.Mul(w1, sl.T())
	ks.kernelGrad(g.theta, h.theta, dk)
	// E = Rᵀ K̃[:, L] = T S[:, L].
	rr, _ := ks.tm.Dims()
	e := mat.NewDense(rr, l, nil)
	e.Mul(ks.tm, sl)
	g.alpha += h.alpha * alphaGrad(e, gm)
	return f, nil
}
