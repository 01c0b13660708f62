package kern

import (
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ivmlab/ivm/internal/rowdot"
)

// gram returns the a.rows×b.rows matrix (row-major, stride b.rows) of inner products
// Σ_k w_k a_ik b_jk (w nil: unweighted), computed as one matrix product by internal/rowdot:
// several times faster than pairwise dot products on the matrices learning and prediction
// build (K_II with hundreds of rows of hundreds of inputs; test rows against the active
// inputs). Products are summed in rowdot's order, so values equal dot's up to rounding.
//
// The result is read-only: it may be shared through the Gram cache (see cachedGram).
func gram(a, b raw, w []float64) []float64 {
	if work := a.rows * b.rows * a.cols; work >= minCachedWork && a.rows*b.rows <= maxCachedSize {
		return cachedGram(a, b, w)
	}
	return computeGram(a, b, w)
}

// computeGram is gram without the cache.
func computeGram(a, b raw, w []float64) []float64 {
	out := make([]float64, a.rows*b.rows)
	if a.rows == 0 || b.rows == 0 || a.cols == 0 {
		return out
	}
	A := blas64.General{Rows: a.rows, Cols: a.cols, Stride: a.str, Data: a.data}
	if w != nil {
		s := make([]float64, a.rows*a.cols)
		for i := 0; i < a.rows; i++ {
			r, d := a.row(i), s[i*a.cols:(i+1)*a.cols]
			for k, v := range r {
				d[k] = w[k] * v
			}
		}
		A = blas64.General{Rows: a.rows, Cols: a.cols, Stride: a.cols, Data: s}
	}
	B := blas64.General{Rows: b.rows, Cols: b.cols, Stride: b.str, Data: b.data}
	rowdot.ABt(blas64.General{Rows: a.rows, Cols: b.rows, Stride: b.rows, Data: out}, A, B)
	return out
}

// gramNorms returns the squared (weighted) norms of the rows of a and b for a kernel
// evaluated from g = gram(a, b, w): in the symmetric case (b is a) the diagonal of g itself,
// so that a row's distance to itself, (g_ii + g_ii) − 2g_ii, is exactly 0; otherwise dot's
// norms.
func gramNorms(g []float64, a, b raw, w []float64, sym bool) (na, nb []float64) {
	na = make([]float64, a.rows)
	if sym {
		for i := range na {
			na[i] = g[i*b.rows+i]
		}
		return na, na
	}
	norms(na, a, w)
	nb = make([]float64, b.rows)
	norms(nb, b, w)
	return na, nb
}

// The Gram cache. Learning evaluates the same kernel matrices over and over: every step of the
// optimiser computes K_II and its gradient on the same active inputs (and, for the full objective,
// the cross covariances of the held-out points), and without ARD their inner products do not depend
// on the parameters being optimised. The cache keeps the last few Gram matrices with exact copies
// of their inputs and weights; a lookup compares the inputs element by element, O((n₁ + n₂)·D)
// against the O(n₁·n₂·D) product it saves, so a reused buffer with new contents is never
// mistaken for the old one.
const (
	minCachedWork = 1 << 20 // multiply–adds below which the product is cheaper than the cache
	maxCachedSize = 1 << 20 // Gram entries above which a matrix is not kept (8 MB)
)

// gramCacheSlots is the number of Gram matrices kept: two per core, for the kernel matrix
// and the cross covariances of each learning problem running at once, at least 4.
var gramCacheSlots = max(4, 2*runtime.GOMAXPROCS(0))

type gramEntry struct {
	a, b, w    []float64 // compact copies of the inputs (b nil when b is a) and weights
	ar, br, nc int
	g          []float64
	used       uint64
}

var gramCache struct {
	sync.Mutex
	entries []*gramEntry
	clock   uint64
}

// sameRows reports whether the compact copy c holds exactly the rows of r.
func sameRows(c []float64, r raw) bool {
	for i := 0; i < r.rows; i++ {
		if !slices.Equal(c[i*r.cols:(i+1)*r.cols], r.row(i)) {
			return false
		}
	}
	return true
}

func compact(r raw) []float64 {
	c := make([]float64, 0, r.rows*r.cols)
	for i := 0; i < r.rows; i++ {
		c = append(c, r.row(i)...)
	}
	return c
}

// sameData reports whether a and b are views of the same storage.
func sameData(a, b raw) bool {
	return a.rows == b.rows && a.cols == b.cols && a.str == b.str && len(a.data) > 0 &&
		len(b.data) > 0 && &a.data[0] == &b.data[0]
}

// cachedGram is gram through the cache.
func cachedGram(a, b raw, w []float64) []float64 {
	sym := sameData(a, b)
	gramCache.Lock()
	gramCache.clock++
	for _, e := range gramCache.entries {
		if e.ar != a.rows || e.br != b.rows || e.nc != a.cols || (e.b == nil) != sym ||
			!slices.Equal(e.w, w) || (e.w == nil) != (w == nil) {
			continue
		}
		if sameRows(e.a, a) && (sym || sameRows(e.b, b)) {
			e.used = gramCache.clock
			g := e.g
			gramCache.Unlock()
			return g
		}
	}
	gramCache.Unlock()
	g := computeGram(a, b, w)
	e := &gramEntry{a: compact(a), ar: a.rows, br: b.rows, nc: a.cols, g: g, w: slices.Clone(w)}
	if !sym {
		e.b = compact(b)
	}
	gramCache.Lock()
	gramCache.clock++
	e.used = gramCache.clock
	if len(gramCache.entries) < gramCacheSlots {
		gramCache.entries = append(gramCache.entries, e)
	} else {
		old := 0
		for i, x := range gramCache.entries {
			if x.used < gramCache.entries[old].used {
				old = i
			}
		}
		gramCache.entries[old] = e
	}
	gramCache.Unlock()
	return g
}
