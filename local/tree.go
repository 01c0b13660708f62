package local

import (
	"cmp"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// leafRows bounds the rows of a tree's leaf, which a search scans.
const leafRows = 32

// tree is a k-d tree of the rows of x whose leaves hold up to leafRows rows. gonum's
// kdtree keeps a node per row; on the weighted, often repeated rows of tabular data its
// searches were slower than a scan of every row, and a leaf's scan runs at the speed of one.
type tree struct {
	x     *mat.Dense
	order []int // row numbers, each node's contiguous
	nodes []node
}

// node is a range of tree.order: a leaf (dim < 0), or split at split on input dim into
// the nodes left (values below) and right.
type node struct {
	lo, hi      int
	dim         int
	split       float64
	left, right int
}

// newTree returns the tree of the rows rows of x (every row where rows is nil).
func newTree(x *mat.Dense, rows []int) *tree {
	if rows == nil {
		n, _ := x.Dims()
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	t := &tree{x: x, order: slices.Clone(rows)}
	t.build(0, len(rows))
	return t
}

// build adds the node of order[lo:hi] and those below it, and returns its number.
func (t *tree) build(lo, hi int) int {
	at := len(t.nodes)
	t.nodes = append(t.nodes, node{lo: lo, hi: hi, dim: -1})
	if hi-lo <= leafRows {
		return at
	}
	dim, spread := t.widest(lo, hi)
	if spread == 0 {
		return at // all the same row
	}
	rows := t.order[lo:hi]
	slices.SortFunc(rows, func(a, b int) int {
		if c := cmp.Compare(t.x.At(a, dim), t.x.At(b, dim)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	mid := lo + (hi-lo)/2
	split := t.x.At(t.order[mid], dim)
	// Rows equal to the split value go right, so that the left holds values below it.
	for mid > lo && t.x.At(t.order[mid-1], dim) == split {
		mid--
	}
	if mid == lo {
		for mid < hi && t.x.At(t.order[mid], dim) == split {
			mid++
		}
		split = t.x.At(t.order[mid], dim)
	}
	left := t.build(lo, mid)
	right := t.build(mid, hi)
	t.nodes[at].dim, t.nodes[at].split = dim, split
	t.nodes[at].left, t.nodes[at].right = left, right
	return at
}

// widest returns the input whose values spread most among order[lo:hi], and its spread.
func (t *tree) widest(lo, hi int) (int, float64) {
	_, dim := t.x.Dims()
	first := t.x.RawRowView(t.order[lo])
	low, high := slices.Clone(first), slices.Clone(first)
	for _, r := range t.order[lo+1 : hi] {
		for j, v := range t.x.RawRowView(r) {
			low[j], high[j] = min(low[j], v), max(high[j], v)
		}
	}
	best, spread := 0, -1.0
	for j := range dim {
		if s := high[j] - low[j]; s > spread {
			best, spread = j, s
		}
	}
	return best, spread
}

// nearest writes into idx and d2 the numbers and squared distances of the len(idx) rows of
// t nearest q, leaving out row self (−1: none), nearest first; it returns how many it found.
func (t *tree) nearest(q []float64, self int, idx []int, d2 []float64) int {
	k := 0
	t.search(0, q, self, idx, d2, &k)
	return k
}

// search is nearest below node at, with the k found so far.
func (t *tree) search(at int, q []float64, self int, idx []int, d2 []float64, k *int) {
	nd := &t.nodes[at]
	if nd.dim < 0 {
		for _, r := range t.order[nd.lo:nd.hi] {
			if r != self {
				*k = keep(t.x.RawRowView(r), r, q, idx, d2, *k)
			}
		}
		return
	}
	gap := q[nd.dim] - nd.split
	near, far := nd.left, nd.right
	if gap >= 0 {
		near, far = far, near
	}
	t.search(near, q, self, idx, d2, k)
	if *k < len(idx) || gap*gap < d2[*k-1] {
		t.search(far, q, self, idx, d2, k)
	}
}

// keep adds row number i, whose values are row, to the k nearest of q so far (idx, d2,
// nearest first) where it is nearer than the farthest of a full list, and returns how many
// the list then holds. Of equally near rows the first kept stays.
func keep(row []float64, i int, q []float64, idx []int, d2 []float64, k int) int {
	var d float64
	for j, v := range row {
		e := v - q[j]
		d += e * e
	}
	if k == len(idx) && d >= d2[k-1] {
		return k
	}
	at := min(k, len(idx)-1)
	for at > 0 && d2[at-1] > d {
		d2[at], idx[at] = d2[at-1], idx[at-1]
		at--
	}
	d2[at], idx[at] = d, i
	return min(k+1, len(idx))
}
