package infer

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SparseCol is one column of a sparse matrix: the values Val at the rows Idx.
type SparseCol struct {
	Idx []int
	Val []float64
}

// Sites is a likelihood p(y | f) evaluated at a latent vector f, as the Laplace
// approximation needs it: ln p(y | f), its gradient ∇ ln p, and the curvature
// W = −∇∇ ln p(y | f) in factored form W = VVᵀ (V's columns sparse; W need not be
// diagonal, so likelihoods of several latent values, such as pairwise constraints, fit)
// together with W f.
type Sites interface {
	LogLik() float64
	Grad() []float64
	WF() []float64
	V() []SparseCol
}

// ErrNewton reports a Laplace mode search that did not converge.
var ErrNewton = errors.New("infer: Newton's method for the Laplace mode did not converge")

// LaplaceMode finds the mode f̂ of ln p(y | f) − ½ fᵀK⁻¹f, the Laplace approximation's
// centre, by Newton's method in the form f = K a (Rasmussen & Williams, Algorithm 3.1, with
// a non-diagonal W = VVᵀ), so that K is never inverted: each step solves with
// B = I + VᵀKV, whose eigenvalues are ≥ 1, and backtracks along the Newton direction on
// the objective Ψ(a) = ½ aᵀKa − ln p(y | Ka), which is convex in a for a log-concave
// likelihood. sites evaluates the likelihood at f (an error marks f outside its domain).
// The search starts from warm when it has K's size (and from 0 if warm is outside the
// domain). It returns a and f = Ka at the mode and the likelihood there.
//
// Newton converges quadratically: the search stops once a step changes f by less than
// 1e-9 relative and Ψ by rounding only. When rounding keeps the line search from any
// decrease, a mode already located to 1e-6 is accepted.
func LaplaceMode(k *mat.Dense, sites func(f []float64) (Sites, error), warm []float64) (a,
	f []float64, st Sites, err error) {
	n, _ := k.Dims()
	a = make([]float64, n)
	if len(warm) == n {
		copy(a, warm)
	}
	fv := mat.NewVecDense(n, nil)
	psi := func(av *mat.VecDense) (float64, Sites, error) {
		fv.MulVec(k, av)
		st, err := sites(fv.RawVector().Data)
		if err != nil {
			return 0, nil, err
		}
		return 0.5*mat.Dot(av, fv) - st.LogLik(), st, nil
	}
	av := mat.NewVecDense(n, a)
	cur, st, err := psi(av)
	if err != nil {
		// The warm start may sit outside the likelihood's domain: start from 0.
		clear(a)
		if cur, st, err = psi(av); err != nil {
			return nil, nil, nil, err
		}
	}
	f = make([]float64, n)
	copy(f, fv.RawVector().Data)
	converged := false
	lastDF := math.Inf(1)
	for it := 0; it < 100 && !converged; it++ {
		anew, err := newtonTarget(k, st)
		if err != nil {
			return nil, nil, nil, err
		}
		next, nst, trial, ok := backtrack(a, anew, cur, psi)
		fmax := 0.0
		for i := 0; i < n; i++ {
			fmax = math.Max(fmax, math.Abs(f[i]))
		}
		if !ok {
			if lastDF <= 1e-6*(1+fmax) {
				// Restore f = Ka for the accepted a.
				fv.MulVec(k, mat.NewVecDense(n, a))
				if st, err = sites(fv.RawVector().Data); err != nil {
					return nil, nil, nil, err
				}
				converged = true
				break
			}
			return nil, nil, nil, fmt.Errorf("%w: no decrease along the Newton direction",
				ErrNewton)
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
		return nil, nil, nil, ErrNewton
	}
	copy(f, fv.RawVector().Data)
	return a, f, st, nil
}

// newtonTarget returns the full Newton step's a: with b = W f + ∇ ln p,
// a_new = b − V B⁻¹ VᵀK b, B = I + VᵀKV.
func newtonTarget(k *mat.Dense, st Sites) ([]float64, error) {
	n, _ := k.Dims()
	wf, grad, cols := st.WF(), st.Grad(), st.V()
	b := make([]float64, n)
	for i := range b {
		b[i] = wf[i] + grad[i]
	}
	bch, err := BMatrix(cols, MulKV(k, cols))
	if err != nil {
		return nil, err
	}
	kb := mat.NewVecDense(n, nil)
	kb.MulVec(k, mat.NewVecDense(n, b))
	x := mat.NewVecDense(len(cols), VtVec(cols, kb.RawVector().Data))
	if err := Solved(bch.SolveVecTo(x, x)); err != nil {
		return nil, fmt.Errorf("infer: Newton step: solving with I + VᵀKV: %w", err)
	}
	AddVx(b, cols, x.RawVector().Data, -1)
	return b, nil
}

// backtrack halves the step from a towards anew until psi does not increase (up to 40
// times); it returns psi's value and sites at the accepted point, the point, and whether
// one was found.
func backtrack(a, anew []float64, cur float64, psi func(*mat.VecDense) (float64, Sites,
	error)) (float64, Sites, []float64, bool) {
	n := len(a)
	trial := make([]float64, n)
	step := 1.0
	for k := 0; k < 40; k++ {
		for i := range trial {
			trial[i] = a[i] + step*(anew[i]-a[i])
		}
		next, nst, err := psi(mat.NewVecDense(n, trial))
		if err == nil && next <= cur+1e-14*math.Abs(cur) {
			return next, nst, trial, true
		}
		step /= 2
	}
	return 0, nil, trial, false
}

// Solved passes on the error of a gonum solve or inverse except mat.Condition, which warns
// that the system is ill-conditioned but still gives the result.
func Solved(err error) error {
	var c mat.Condition
	if errors.As(err, &c) {
		return nil
	}
	return err
}

// MulKV returns KV (n×k) for K (n×n) and V's sparse columns.
func MulKV(k *mat.Dense, cols []SparseCol) *mat.Dense {
	n, _ := k.Dims()
	out := mat.NewDense(n, len(cols), nil)
	for c, col := range cols {
		for m, i := range col.Idx {
			v := col.Val[m]
			for r := 0; r < n; r++ {
				out.Set(r, c, out.At(r, c)+v*k.At(r, i))
			}
		}
	}
	return out
}

// VtVec returns Vᵀx.
func VtVec(cols []SparseCol, x []float64) []float64 {
	out := make([]float64, len(cols))
	for c, col := range cols {
		for m, i := range col.Idx {
			out[c] += col.Val[m] * x[i]
		}
	}
	return out
}

// AddVx adds s·V x to dst.
func AddVx(dst []float64, cols []SparseCol, x []float64, s float64) {
	for c, col := range cols {
		for m, i := range col.Idx {
			dst[i] += s * col.Val[m] * x[c]
		}
	}
}

// BMatrix factorises B = I + VᵀKV given KV.
func BMatrix(cols []SparseCol, kv *mat.Dense) (*mat.Cholesky, error) {
	k := len(cols)
	b := mat.NewSymDense(k, nil)
	for c, col := range cols {
		for d := c; d < k; d++ {
			var s float64
			for m, i := range col.Idx {
				s += col.Val[m] * kv.At(i, d)
			}
			if d == c {
				s++
			}
			b.SetSym(c, d, s)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, errors.New("infer: I + VᵀKV is not positive definite")
	}
	return &ch, nil
}
