package engine

import (
	"fmt"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// ColumnCache holds kernel columns over one matrix of new rows for the Extends of several
// models with the same kernel on those rows (the classes of a one-vs-rest model), so that
// a row that several of them include has its column computed once: the classes of USPS
// include many of the same rows. It is safe for concurrent Extends.
type ColumnCache struct {
	x      *mat.Dense
	mu     sync.Mutex
	k      kern.Kernel // the kernel of the columns, the first one an Extend brought
	cols   map[int]*cachedColumn
	floats int
}

type cachedColumn struct {
	once sync.Once
	v    []float64
}

// maxCacheFloats bounds a ColumnCache's columns (1 GiB); past it columns are computed by
// each model as without a cache.
const maxCacheFloats = 1 << 27

// NewColumnCache returns an empty cache of the kernel columns over the rows of x, the new
// rows that the Extends sharing it are given.
func NewColumnCache(x *mat.Dense) *ColumnCache {
	return &ColumnCache{x: x, cols: map[int]*cachedColumn{}}
}

// accepts reports whether the cache holds columns of kernel k over x, making k its
// kernel if it has none yet.
func (c *ColumnCache) accepts(k kern.Kernel, x *mat.Dense) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.x != x {
		return false
	}
	if c.k == nil {
		c.k = k
	}
	return sameKernel(c.k, k)
}

// column returns the column of new row j (without white noise), computed by fill the first
// time, or nil when the cache is full.
func (c *ColumnCache) column(j int, fill func([]float64)) []float64 {
	n, _ := c.x.Dims()
	c.mu.Lock()
	e := c.cols[j]
	if e == nil {
		if c.floats+n > maxCacheFloats {
			c.mu.Unlock()
			return nil
		}
		e = &cachedColumn{}
		c.cols[j], c.floats = e, c.floats+n
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.v = make([]float64, n)
		fill(e.v)
	})
	return e.v
}

// sameKernel reports whether a and b are the same covariance function: of one type, with
// equal parameters and, where they print as specs, equal specs.
func sameKernel(a, b kern.Kernel) bool {
	if a == b {
		return true
	}
	if a.Name() != b.Name() || a.NumParams() != b.NumParams() ||
		fmt.Sprint(a) != fmt.Sprint(b) {
		return false
	}
	pa, pb := make([]float64, a.NumParams()), make([]float64, b.NumParams())
	a.Params(pa)
	b.Params(pb)
	return slices.Equal(pa, pb)
}
