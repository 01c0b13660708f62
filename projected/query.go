package projected

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// queryCentres is the most centres a model's query part keeps. The file holds their Gram
// matrix, q(q+1)/2 values (33 000 for 256, about 0.7 MB); the full system of m centres
// (12.5 million values at m = 5 000) is not kept.
const queryCentres = 256

// Query is what a projected model keeps for active learning (Predictor.Query): q of its
// centres, chosen as the IVM chooses active points (choosePivots), and their Gram matrix
// G = K_qnK_nq over every training row. With λ and the kernel they give the posterior of
// the latent under the projected process of those centres (QueryPosterior): a coarser model
// than the m centres' whose means the model predicts, but of the same kernel, prior and
// rows, and enough to tell which inputs the training rows left uncertain.
type Query struct {
	// Centres are the query centres' rows in the model's centres.
	Centres []int
	// Gram is G, q × q.
	Gram *mat.SymDense
	// Scale is the latent's prior variance in the units of the targets: a regression's
	// variance (its targets were standardised), 1 for classes' codes.
	Scale float64
}

// newQuery chooses the query centres among the model's centres (choosePivots) and copies
// their Gram matrix from the upper triangle of the unregularised system g.
func newQuery(g *mat.Dense, k kern.Kernel, centres *mat.Dense) *Query {
	idx := choosePivots(k, centres, queryCentres)
	gram := mat.NewSymDense(len(idx), nil)
	for i, a := range idx {
		for j, b := range idx[i:] {
			gram.SetSym(i, i+j, g.At(min(a, b), max(a, b)))
		}
	}
	return &Query{Centres: idx, Gram: gram, Scale: 1}
}

// choosePivots returns up to q of the centres, each in turn the one whose kernel value the
// centres chosen before explain least (the largest residual variance k(c, c) − Q(c, c)):
// the pivots of K_mm's pivoted Cholesky factorisation, which is the IVM's entropy
// criterion for a latent observed without noise: the query centres spread over the inputs
// as far as q of them can. It stops early where every residual is below 10⁻⁸ of the prior
// variance.
func choosePivots(k kern.Kernel, centres *mat.Dense, q int) []int {
	m, dim := centres.Dims()
	q = min(q, m)
	resid := make([]float64, m)
	k.Diag(resid, centres)
	prior := floats.Max(resid)
	cols := make([][]float64, 0, q) // the factor's columns, each over the m centres
	col := mat.NewDense(m, 1, nil)
	var idx []int
	for len(idx) < q {
		p := floats.MaxIdx(resid)
		if !(resid[p] > 1e-8*prior) {
			break
		}
		k.K(col, centres, centres.Slice(p, p+1, 0, dim))
		c := slices.Clone(col.RawMatrix().Data)
		for _, prev := range cols {
			floats.AddScaled(c, -prev[p], prev)
		}
		floats.Scale(1/math.Sqrt(resid[p]), c)
		for i, v := range c {
			resid[i] -= v * v
		}
		resid[p] = 0
		cols, idx = append(cols, c), append(idx, p)
	}
	return idx
}

// QueryPosterior is the posterior of a projected model's latent through its query centres
// C (q of them): the projected process with kernel k, noise λ and the training rows' Gram
// matrix G. With φ(x) = L⁻¹k_C(x) (K_CC = LLᵀ) and H = L⁻¹GL⁻ᵀ = VDVᵀ, the latent
// has the prior covariance s·k(x, y) (s the scale) and the posterior variance
// s·(k(x, x) − Σ_j d_j/(λ + d_j)·(v_jᵀφ(x))²): the prior's less the squares of the row's
// projections, s^½·(d_j/(λ + d_j))^½·v_jᵀφ(x), in decreasing order of what they take. A
// row far from every training row keeps its prior variance.
type QueryPosterior struct {
	k       kern.Kernel
	centres *mat.Dense
	// proj is the projections' map, q × q: projections = k_C(x)ᵀ·proj.
	proj  *mat.Dense
	scale float64
}

// QueryPosterior returns the model's query posterior, or an error where the model keeps
// no query part (its file was written before models had one).
func (pr *Model) QueryPosterior() (*QueryPosterior, error) {
	if pr.Query == nil {
		return nil, errors.New("the projected model keeps no query part: its file was " +
			"written before ivm kept one; train it again")
	}
	q := pr.Query.Gram.SymmetricDim()
	_, dim := pr.Centres.Dims()
	c := mat.NewDense(q, dim, nil)
	for i, r := range pr.Query.Centres {
		c.SetRow(i, pr.Centres.RawRowView(r))
	}
	kcc := mat.NewDense(q, q, nil)
	pr.k.K(kcc, c, c)
	l, err := choleskyJittered(kcc)
	if err != nil {
		return nil, err
	}
	// H = L⁻¹GL⁻ᵀ, symmetrised against rounding.
	var t, h mat.Dense
	if err := t.Solve(l, pr.Query.Gram); err != nil {
		return nil, fmt.Errorf("projected model's query part: %w", err)
	}
	if err := h.Solve(l, t.T()); err != nil {
		return nil, fmt.Errorf("projected model's query part: %w", err)
	}
	hs := mat.NewSymDense(q, nil)
	for i := range q {
		for j := i; j < q; j++ {
			hs.SetSym(i, j, (h.At(i, j)+h.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(hs, true) {
		return nil, errors.New("projected model's query part: the eigendecomposition of " +
			"its Gram matrix failed")
	}
	d := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	// proj = L⁻ᵀ·V·diag(√(s·d/(λ + d))), columns in decreasing order of d.
	var linv mat.TriDense
	if err := linv.InverseTri(l); err != nil {
		return nil, fmt.Errorf("projected model's query part: %w", err)
	}
	phi := mat.DenseCopyOf(linv.T())
	scaled := mat.NewDense(q, q, nil)
	for j := range q {
		src := q - 1 - j // EigenSym orders the values ascending
		w := math.Sqrt(pr.Query.Scale * max(d[src], 0) / (pr.Lambda + max(d[src], 0)))
		for i := range q {
			scaled.Set(i, j, v.At(i, src)*w)
		}
	}
	proj := mat.NewDense(q, q, nil)
	proj.Mul(phi, scaled)
	if err := finite("query part's projection", proj.RawMatrix().Data); err != nil {
		return nil, fmt.Errorf("%w: its Gram matrix is not one of these centres", err)
	}
	return &QueryPosterior{k: pr.k, centres: c, proj: proj, scale: pr.Query.Scale}, nil
}

// choleskyJittered returns the lower Cholesky factor of the kernel matrix a, adding to its
// diagonal 10⁻¹⁰, 10⁻⁸, … of its mean where it is not positive definite in floating
// point (centres that repeat a row).
func choleskyJittered(a *mat.Dense) (*mat.TriDense, error) {
	q, _ := a.Dims()
	mean := 0.0
	for i := range q {
		mean += a.At(i, i) / float64(q)
	}
	for _, jit := range jitters {
		s := mat.NewSymDense(q, nil)
		for i := range q {
			for j := i; j < q; j++ {
				s.SetSym(i, j, a.At(i, j))
			}
			s.SetSym(i, i, a.At(i, i)+jit*mean)
		}
		var ch mat.Cholesky
		if ch.Factorize(s) {
			var l mat.TriDense
			ch.LTo(&l)
			return &l, nil
		}
	}
	return nil, errors.New("projected model's query centres: their kernel matrix is not " +
		"positive definite, even with a jitter")
}

// Size is q, the number of query centres.
func (qp *QueryPosterior) Size() int { r, _ := qp.centres.Dims(); return r }

// features returns k_C(x) of the scaled rows xs (rows × q).
func (qp *QueryPosterior) features(xs mat.Matrix) *mat.Dense {
	n, _ := xs.Dims()
	kx := mat.NewDense(max(n, 1), qp.Size(), nil)
	if n > 0 {
		qp.k.K(kx, xs, qp.centres)
	}
	return kx
}

// K writes the latent's prior covariances s·k(x, y) between the rows of x and y into dst.
func (qp *QueryPosterior) K(dst *mat.Dense, x, y mat.Matrix) {
	qp.k.K(dst, x, y)
	dst.Scale(qp.scale, dst)
}

// Diag writes the latent's prior variance s·k(x, x) at each row of x into dst.
func (qp *QueryPosterior) Diag(dst []float64, x mat.Matrix) {
	qp.k.Diag(dst, x)
	floats.Scale(qp.scale, dst)
}

// Projections returns the projections of the rows of x (rows × q): the posterior variance
// is Diag's less the sum of their squares, and the posterior covariance of two rows K's
// less their inner product.
func (qp *QueryPosterior) Projections(x mat.Matrix) *mat.Dense {
	var p mat.Dense
	p.Mul(qp.features(x), qp.proj)
	return &p
}

// Bound writes into vs an upper bound on the posterior variance at each row of x: the prior
// variance less the squares of the row's first r projections, which take the most.
func (qp *QueryPosterior) Bound(x mat.Matrix, r int, vs []float64) {
	q := qp.Size()
	r = min(max(r, 0), q)
	qp.Diag(vs, x)
	if r == 0 {
		return
	}
	var p mat.Dense
	p.Mul(qp.features(x), qp.proj.Slice(0, q, 0, r))
	for i := range vs {
		row := p.RawRowView(i)
		vs[i] = max(0, vs[i]-floats.Dot(row, row))
	}
}
