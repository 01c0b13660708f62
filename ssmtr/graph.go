package ssmtr

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Laplacian chooses the graph Laplacian of SSMTR's prior term α/2 · fᵀLf (paper eq. 4).
type Laplacian int

const (
	// Normalized is I − D^{-1/2} S D^{-1/2} (the default). Its spectrum lies in [0, 2]
	// whatever the degrees, so α_i means a comparable amount of smoothing in every task
	// (which matters most when α_i shares the tasks' prior, Config.AlphaPrior).
	Normalized Laplacian = iota
	// Unnormalized is D − S.
	Unnormalized
)

// String returns "normalized" or "unnormalized".
func (l Laplacian) String() string {
	if l == Unnormalized {
		return "unnormalized"
	}
	return "normalized"
}

// ParseLaplacian parses "normalized" (or "normalised", "sym") and "unnormalized"
// ("unnormalised", "plain").
func ParseLaplacian(s string) (Laplacian, error) {
	switch s {
	case "normalized", "normalised", "sym", "":
		return Normalized, nil
	case "unnormalized", "unnormalised", "plain":
		return Unnormalized, nil
	}
	return 0, fmt.Errorf("ssmtr: unknown Laplacian %q (want normalized or unnormalized)", s)
}

// MarshalText writes the Laplacian's name.
func (l Laplacian) MarshalText() ([]byte, error) {
	if l != Normalized && l != Unnormalized {
		return nil, fmt.Errorf("ssmtr: unknown Laplacian %d", int(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText parses a Laplacian's name.
func (l *Laplacian) UnmarshalText(b []byte) error {
	v, err := ParseLaplacian(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// DefaultNeighbours is the K of the K-nearest-neighbour graph when GraphOptions.K is 0:
// Zelnik-Manor and Perona's choice for the local scale (their 7th neighbour); the paper
// does not state its K.
const DefaultNeighbours = 7

// GraphOptions configure the similarity graph of SSMTR (paper §3).
type GraphOptions struct {
	// K is the number of nearest neighbours (0: DefaultNeighbours). It is also the
	// neighbour whose distance sets a point's local scale, as in the paper.
	K int `json:"k"`
	// Laplacian picks L (default Normalized).
	Laplacian Laplacian `json:"laplacian"`
}

// SimilarityGraph returns the K-nearest-neighbour similarity matrix of the rows of x with local
// scaling (Zelnik-Manor & Perona; paper §3):
//
//	S_jr = exp(−‖x_j − x_r‖² / (σ_j σ_r))  if x_j ∈ N_K(x_r) or x_r ∈ N_K(x_j), else 0,
//
// σ_j being the distance from x_j to its K-th nearest neighbour. K is reduced to n−1 when there
// are fewer points. A zero local scale (K duplicates of a point) is replaced by the point's
// smallest non-zero distance, or 1 if every other point coincides with it, so that duplicates get
// weight 1 instead of a division by zero.
func SimilarityGraph(x *mat.Dense, k int) (*mat.SymDense, error) {
	n, d := x.Dims()
	if k <= 0 {
		return nil, fmt.Errorf("ssmtr: graph needs K ≥ 1, got %d", k)
	}
	s := mat.NewSymDense(n, nil)
	if n < 2 {
		return s, nil
	}
	if k > n-1 {
		k = n - 1
	}
	d2 := make([]float64, n*n)
	for i := 0; i < n; i++ {
		xi := x.RawRowView(i)
		for j := i + 1; j < n; j++ {
			xj := x.RawRowView(j)
			var acc float64
			for c := 0; c < d; c++ {
				t := xi[c] - xj[c]
				acc += t * t
			}
			if math.IsNaN(acc) || math.IsInf(acc, 0) {
				return nil, fmt.Errorf("ssmtr: graph: rows %d and %d have a non-finite distance",
					i, j)
			}
			d2[i*n+j], d2[j*n+i] = acc, acc
		}
	}
	nbr := make([][]int, n)
	scale := make([]float64, n)
	idx := make([]int, 0, n-1)
	for i := 0; i < n; i++ {
		idx = idx[:0]
		for j := 0; j < n; j++ {
			if j != i {
				idx = append(idx, j)
			}
		}
		row := d2[i*n : (i+1)*n]
		// Ties are broken by index so that the graph does not depend on the sort's order.
		sort.Slice(idx, func(a, b int) bool {
			if row[idx[a]] != row[idx[b]] {
				return row[idx[a]] < row[idx[b]]
			}
			return idx[a] < idx[b]
		})
		nbr[i] = append([]int(nil), idx[:k]...)
		scale[i] = math.Sqrt(row[idx[k-1]])
		if scale[i] == 0 {
			scale[i] = 1
			for _, j := range idx {
				if row[j] > 0 {
					scale[i] = math.Sqrt(row[j])
					break
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		for _, j := range nbr[i] {
			w := math.Exp(-d2[i*n+j] / (scale[i] * scale[j]))
			s.SetSym(i, j, w)
		}
	}
	return s, nil
}

// GraphLaplacian returns the Laplacian of the similarity matrix s. For the normalized
// form a point of zero degree gets a zero row and column (it is then unconstrained by
// the graph) instead of a division by zero.
func GraphLaplacian(s *mat.SymDense, kind Laplacian) *mat.SymDense {
	n := s.SymmetricDim()
	deg := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j != i {
				deg[i] += s.At(i, j)
			}
		}
	}
	l := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var v float64
			switch {
			case kind == Unnormalized && i == j:
				v = deg[i]
			case kind == Unnormalized:
				v = -s.At(i, j)
			case deg[i] == 0 || deg[j] == 0:
				v = 0
			case i == j:
				v = 1
			default:
				v = -s.At(i, j) / math.Sqrt(deg[i]*deg[j])
			}
			l.SetSym(i, j, v)
		}
	}
	return l
}

// errNoGraph marks a Laplacian without positive eigenvalues (fewer than two points).
var errNoGraph = errors.New("ssmtr: graph has no edges")

// laplacianFactor returns R (n×r) with L = R Rᵀ, from the eigenvectors of L whose
// eigenvalues exceed 1e−12 times the largest (the rest, including the constant vector of
// the unnormalized Laplacian, contribute nothing to fᵀLf). SSMTR works with R instead of
// K⁻¹, which an RBF kernel matrix makes numerically singular: with it every matrix that is
// factorised, I + αRᵀKR, has eigenvalues ≥ 1.
func laplacianFactor(l *mat.SymDense) (*mat.Dense, error) {
	n := l.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(l, true) {
		return nil, errors.New("ssmtr: eigendecomposition of the graph Laplacian failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	maxv := 0.0
	for _, v := range vals {
		maxv = math.Max(maxv, v)
	}
	var keep []int
	for i, v := range vals {
		if v > 1e-12*maxv && v > 0 {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, errNoGraph
	}
	r := mat.NewDense(n, len(keep), nil)
	for c, k := range keep {
		s := math.Sqrt(vals[k])
		for i := 0; i < n; i++ {
			r.Set(i, c, s*vecs.At(i, k))
		}
	}
	return r, nil
}
