package kern

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/vmath"
)

// Columns computes kernel columns K(X, x_i) of one fixed input matrix X: the IVM's inclusion step,
// which needs one column for every point it includes.
//
// Every kernel of this package depends on its inputs only through inner products x·x' (weighted by
// the input scales for ARD kernels) and squared norms. Columns computes the inner products of a
// column once for all the components that share them, with gonum's assembly routines (below), and
// the squared norms of the rows once per parameter setting, where K would compute both for every
// component and every column with scalar loops. A kernel with a component from outside this package
// gets its columns from K.
//
// How the inner products are computed depends on the row length: gonum's NoTrans Dgemv on short
// rows, and one assembly dot product per row from rowDotMinCols inputs on, where that Dgemv is
// compute-bound and the row dots are faster, which counts because the kernel column is a large
// share of a selection's time. The row dots are summed exactly as the squared norms are, so a
// row's distance to itself, and to an identical row, is exactly 0; on the Dgemv path the
// self-product is set to the norm for the same reason.
//
// Columns made by NewInnerColumns read the inner products from an Inner instead.
//
// Values equal K's up to rounding: inner products are summed in Dgemv's or the dot product's order
// rather than K's.
//
// Column may be called from several goroutines at once on disjoint row ranges; Refresh must not run
// concurrently with Column.
type Columns struct {
	k     Kernel
	xm    *mat.Dense
	x     raw
	inner *Inner       // the unweighted inner products, precomputed; nil: computed per column
	parts []columnPart // nil: fall back to K
	views []*dotView
}

// columnKernel is implemented by the kernels of this package: addColumn adds k(x_j, x_i)
// to dst[j] given the inner products dots[j] = x_j·x_i, the squared norms norms[j] = x_j·x_j
// and normI = x_i·x_i (all weighted by weights() when that is not nil). Distinct points
// are assumed (no white noise).
type columnKernel interface {
	weights() []float64
	addColumn(dst, dots, norms []float64, normI float64)
}

type columnPart struct {
	k    columnKernel
	view *dotView
}

// dotView holds the inner products under one weighting of the inputs.
type dotView struct {
	w     []float64 // the kernel's live per-dimension weights; nil: plain inner products
	xs    []float64 // rows of X scaled by √w (row-major, stride cols); nil when w is nil
	norms []float64 // squared (weighted) norms of the rows
	dots  []float64 // the current column's inner products; goroutines write disjoint ranges
	inner *Inner    // where the (unweighted) products are read from; nil: dots computes them
	ready bool      // norms computed (plain norms do not depend on parameters)
}

// NewColumns prepares kernel columns of k on the rows of x (which must not change while
// the Columns is in use). Call Refresh after changing k's parameters.
func NewColumns(k Kernel, x *mat.Dense) *Columns { return newColumns(k, x, nil) }

// newColumns is NewColumns, reading the unweighted inner products from in when it is not nil.
func newColumns(k Kernel, x *mat.Dense, in *Inner) *Columns {
	c := &Columns{k: k, xm: x, x: asRaw(x), inner: in}
	parts := []Kernel{k}
	if s, ok := k.(*Sum); ok {
		parts = s.parts
	}
	for _, p := range parts {
		ck, ok := p.(columnKernel)
		if !ok {
			c.parts, c.views = nil, nil
			break
		}
		c.parts = append(c.parts, columnPart{k: ck, view: c.view(ck.weights())})
	}
	c.Refresh()
	return c
}

// view returns the view of weights w, making one the first time w is seen.
func (c *Columns) view(w []float64) *dotView {
	for _, v := range c.views {
		if (v.w == nil && w == nil) || (v.w != nil && w != nil && &v.w[0] == &w[0]) {
			return v
		}
	}
	n := c.x.rows
	v := &dotView{w: w, norms: make([]float64, n)}
	switch {
	case w != nil:
		v.xs = make([]float64, n*c.x.cols)
		v.dots = make([]float64, n)
	case c.inner != nil:
		v.inner = c.inner
	default:
		v.dots = make([]float64, n)
	}
	c.views = append(c.views, v)
	return v
}

// Refresh recomputes what depends on the kernel's parameters: the scaled inputs and norms
// of ARD components.
func (c *Columns) Refresh() {
	for _, v := range c.views {
		if v.w != nil || !v.ready {
			v.fill(c.x)
		}
	}
}

// fill computes the scaled rows (ARD) and the squared norms. With precomputed inner
// products the norms are their diagonal, summed as the other products are, so that a
// row's distance to itself and to an identical row is exactly 0.
func (v *dotView) fill(x raw) {
	if v.inner != nil {
		for i := range v.norms {
			v.norms[i] = v.inner.row(i)[i]
		}
		v.ready = true
		return
	}
	d := x.cols
	for i := 0; i < x.rows; i++ {
		r := x.row(i)
		if v.w != nil {
			s := v.xs[i*d : (i+1)*d]
			for k, a := range r {
				s[k] = a * math.Sqrt(v.w[k])
			}
			r = s
		}
		v.norms[i] = dotUnitary(r, r)
	}
	v.ready = true
}

// rows returns the general-matrix view of rows lo…hi−1.
func (v *dotView) rows(x raw, lo, hi int) blas64.General {
	if v.xs == nil {
		return blas64.General{Rows: hi - lo, Cols: x.cols, Stride: x.str, Data: x.data[lo*x.str:]}
	}
	return blas64.General{Rows: hi - lo, Cols: x.cols, Stride: x.cols, Data: v.xs[lo*x.cols:]}
}

// rowDotMinCols is the row length from which Column takes one dot product per row instead of
// one Dgemv: the row length at which the row dots became faster on the project's machine
// (bench/RESULTS.md records the timings).
const rowDotMinCols = 32

// dotUnitary is Σ a_k b_k summed as gonum's assembly dot product sums it.
func dotUnitary(a, b []float64) float64 {
	return blas64.Dot(blas64.Vector{N: len(a), Inc: 1, Data: a},
		blas64.Vector{N: len(a), Inc: 1, Data: b})
}

// Column writes k(x_j, x_i) for j = lo…hi−1 into dst (len hi − lo), the rows being treated
// as distinct points: no white noise, also at j = i.
func (c *Columns) Column(dst []float64, lo, hi, i int) {
	if c.parts == nil {
		d := c.x.cols
		c.k.K(mat.NewDense(hi-lo, 1, dst[:hi-lo]),
			c.xm.Slice(lo, hi, 0, d), c.xm.Slice(i, i+1, 0, d))
		return
	}
	for _, v := range c.views {
		if v.inner != nil {
			continue
		}
		rows := v.rows(c.x, lo, hi)
		xi := v.rows(c.x, i, i+1).Data[:c.x.cols]
		dots := v.dots[lo:hi]
		if c.x.cols >= rowDotMinCols {
			for j := range dots {
				dots[j] = dotUnitary(rows.Data[j*rows.Stride:j*rows.Stride+rows.Cols], xi)
			}
			continue
		}
		blas64.Gemv(blas.NoTrans, 1, rows, blas64.Vector{N: c.x.cols, Inc: 1, Data: xi}, 0,
			blas64.Vector{N: hi - lo, Inc: 1, Data: dots})
		if lo <= i && i < hi {
			v.dots[i] = v.norms[i]
		}
	}
	clear(dst[:hi-lo])
	for _, p := range c.parts {
		v := p.view
		dots := v.dots
		if v.inner != nil {
			dots = v.inner.row(i)
		}
		p.k.addColumn(dst[:hi-lo], dots[lo:hi], v.norms[lo:hi], v.norms[i])
	}
}

func (k *rbfCore) addColumn(dst, dots, norms []float64, normI float64) {
	h, v := 0.5*k.p[0], k.p[1]
	norms = norms[:len(dst)]
	dots = dots[:len(dst)]
	var e [expChunk]float64
	for lo := 0; lo < len(dst); lo += expChunk {
		c := e[:min(expChunk, len(dst)-lo)]
		for j := range c {
			c[j] = -sqDist(norms[lo+j], normI, dots[lo+j]) * h
		}
		vmath.Exp(c, c)
		for j, ej := range c {
			dst[lo+j] += v * ej
		}
	}
}

func (k *linCore) addColumn(dst, dots, _ []float64, _ float64) {
	v := k.p[0]
	dots = dots[:len(dst)]
	for j := range dst {
		dst[j] += v * dots[j]
	}
}

func (k *mlpCore) addColumn(dst, dots, norms []float64, normI float64) {
	wt, bs, v := k.p[0], k.p[1], k.p[2]
	di := normI*wt + bs + 1
	norms = norms[:len(dst)]
	dots = dots[:len(dst)]
	for j := range dst {
		arg, _ := mlpArg(wt, bs, dots[j], norms[j]*wt+bs+1, di)
		dst[j] += v * math.Asin(arg)
	}
}

func (k *Bias) addColumn(dst, _, _ []float64, _ float64) {
	v := k.p[0]
	for j := range dst {
		dst[j] += v
	}
}

func (k *White) addColumn([]float64, []float64, []float64, float64) {}
