package engine

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ivmlab/ivm/internal/pool"
)

// subBlock is the number of columns of M updated together: the slice of the new row being
// accumulated (8 KiB) stays in L1 cache while the rows of M stream past it.
const subBlock = 1024

// candidate is the best inactive point of a range of rows.
type candidate struct {
	idx   int
	delta float64
	ties  int
	err   error
}

// merge keeps the larger score; equal scores go to the lower index and are counted as ties.
func (c candidate) merge(o candidate) candidate {
	switch {
	case c.err != nil:
		return c
	case o.err != nil:
		return o
	case o.idx < 0:
		return c
	case c.idx < 0 || o.delta > c.delta:
		return o
	case o.delta == c.delta:
		c.ties += o.ties
		if o.idx < c.idx {
			c.idx = o.idx
		}
	}
	return c
}

// forRanges runs f over [from, n) split into one contiguous range per worker and merges the
// candidates in range order. Each range but the last is a whole number of gemvRows rows, so
// that Dgemv groups the rows as it would in a single range: the results do not depend on
// the workers.
func (s *Selector) forRanges(f func(lo, hi int) candidate) candidate {
	w := s.workers
	if w <= 1 {
		return f(s.from, s.n)
	}
	res := make([]candidate, w)
	chunk := (s.n - s.from + w - 1) / w
	chunk = (chunk + gemvRows - 1) / gemvRows * gemvRows
	pool.ForEach(w, w, func(t int) {
		lo, hi := s.from+t*chunk, min(s.from+(t+1)*chunk, s.n)
		if lo >= hi {
			res[t] = candidate{idx: -1}
			return
		}
		res[t] = f(lo, hi)
	})
	best := candidate{idx: -1}
	for _, c := range res {
		best = best.merge(c)
	}
	return best
}

// gemvRows is how many rows gonum's Dgemv takes at a time (a kernel column of few inputs):
// the last rows of a range, taken one or two at a time, may round otherwise.
const gemvRows = 4

// scoreRange recomputes ln Z, g and ν of the inactive points in [lo, hi) at their current
// marginals and returns the best of them.
func (s *Selector) scoreRange(lo, hi int) candidate {
	best := candidate{idx: -1}
	// bestR is 1 − ςν of the best point so far under the Entropy criterion, whose score Δ = −½
	// log₂(1 − ςν) falls as 1 − ςν grows: a point whose 1 − ςν exceeds it by more than a
	// relative skipBand can neither beat nor tie the best, and its logarithm, most of the scoring
	// time, is not taken. Within the band the scores
	// are compared as before, so ties (lowest index) are decided on Δ exactly as the reference
	// decides them.
	bestR := math.Inf(1)
	for j := lo; j < hi; j++ {
		if s.active[j] || s.isSiteOnly(j) {
			continue
		}
		lz, g, nu := s.Noise.Moments(j, s.Y[j], s.mu[j], s.varsigma[j])
		s.logZ[j], s.g[j], s.nu[j] = lz, g, nu
		r := 1 - s.varsigma[j]*nu
		if s.classes == nil && r > 0 && !math.IsNaN(g) && best.idx >= 0 && r > bestR*(1+skipBand) {
			continue
		}
		d := delta(s.varsigma[j], nu)
		if !(r > 0) || math.IsNaN(g) {
			// ν ≥ 1/ς would make the tilted variance ς − ς²ν non-positive: impossible in exact
			// arithmetic. A model that is not log-concave may still get there by rounding;
			// its point then counts as infinitely informative (and its site precision will be
			// negative, see NegativeSitePrecision). For a log-concave model it is a breakdown.
			if s.concave || math.IsNaN(g) || math.IsNaN(nu) {
				return candidate{err: fmt.Errorf(
					"ivm: point %d cannot be scored (μ = %v, ς = %v, g = %v, ν = %v): "+
						"numerical breakdown in "+
						"the %s noise model",
					j, s.mu[j], s.varsigma[j], g, nu, s.Noise.Name())}
			}
			d = math.Inf(1)
		}
		if s.classes != nil {
			d = s.expectedDelta(j, d)
		}
		switch {
		case best.idx < 0 || d > best.delta:
			best = candidate{idx: j, delta: d, ties: 1}
			bestR = r
			if math.IsInf(d, 1) {
				bestR = math.Inf(-1) // nothing finite can beat it
			}
		case d == best.delta:
			best.ties++
		}
	}
	return best
}

// skipBand is the relative margin on 1 − ςν within which scoreRange still compares scores:
// outside it the scores differ by at least ½ log₂(1 + skipBand) ≈ 7·10⁻¹⁰ bits, far more
// than the rounding of Δ.
const skipBand = 1e-9

// expectedDelta is the ExpectedEntropy score of point j: the entropy reduction its label
// would bring, averaged over the labels' predictive probabilities Z(c) = p(y = c | active
// set), instead of the reduction its observed label brings (observed, given). A label the
// posterior finds implausible then weighs by its small probability, so mislabelled points
// stop looking like the most informative ones.
//
// A point whose target is none of the classes (an unlabelled point of the null category
// model, target 0) keeps its observed score: its target is not a label to average over.
func (s *Selector) expectedDelta(j int, observed float64) float64 {
	if !slices.Contains(s.classes, s.Y[j]) {
		return observed
	}
	// The observed label's ln Z and score are already known (scoreRange).
	if e, ok := s.labelAverage(j, s.mu[j], s.varsigma[j], s.Y[j], s.logZ[j], observed); ok {
		return e
	}
	return observed
}

// labelAverage is the entropy reduction a label of point j would bring at latent mean mu
// and variance vs, averaged over the labels' predictive probabilities; label known (NaN:
// none) has its ln Z and score given. ok is false where no label has a probability.
func (s *Selector) labelAverage(j int, mu, vs, known, knownLZ, knownD float64) (float64,
	bool) {
	e, total := 0.0, 0.0
	for _, c := range s.classes {
		lz, d := knownLZ, knownD
		if c != known {
			var nu float64
			lz, _, nu = s.Noise.Moments(j, c, mu, vs)
			d = delta(vs, nu)
		}
		p := math.Exp(lz)
		if p > 0 && !math.IsNaN(d) {
			e += p * d
			total += p
		}
	}
	return e / total, total > 0
}

// scoreAll scores every inactive point and records the best.
func (s *Selector) scoreAll() {
	s.setBest(s.forRanges(s.scoreRange))
}

func (s *Selector) setBest(c candidate) {
	s.best, s.bestD, s.bestTies = c.idx, c.delta, c.ties
	if c.err != nil && s.err == nil {
		s.err = c.err
	}
}

// update performs steps 2–5 of "adding point i" for the inclusion numbered s.size: the kernel
// column k = K(X, x_i) (white noise on element i only), s = k − Mᵀa with a = M[:, i], the new
// row √ν·s of M, ς ← max(0, ς − ν s²), μ ← μ + g s, and the rescoring of every
// inactive point. All of it runs in one pass over each worker's rows.
func (s *Selector) update(i int, g, nu float64) {
	k, n := s.size, s.n
	row := s.m[k*n : (k+1)*n]
	a := s.lfac[len(s.lfac)-k-1 : len(s.lfac)-1]
	r := math.Sqrt(nu)
	white := s.Kernel.White()
	c := s.forRanges(func(lo, hi int) candidate {
		s.column(row[lo:hi], lo, hi, i)
		if lo <= i && i < hi {
			row[i] += white
		}
		best := candidate{idx: -1}
		for b0 := lo; b0 < hi; b0 += subBlock {
			b1 := min(b0+subBlock, hi)
			subtractProjections(row[b0:b1], s.m, n, b0, a)
			vs, mu := s.varsigma[b0:b1], s.mu[b0:b1]
			sb := row[b0:b1]
			for j, sj := range sb {
				v := vs[j] - nu*sj*sj
				if v < 0 {
					v = 0
				}
				vs[j] = v
				mu[j] += g * sj
				sb[j] = r * sj
			}
			if !s.unscored {
				best = best.merge(s.scoreRange(b0, b1))
			}
		}
		return best
	})
	s.setBest(c)
}

// column writes the kernel column of point i at rows [lo, hi) into dst (without white
// noise), from the shared cache where there is one.
func (s *Selector) column(dst []float64, lo, hi, i int) {
	if s.shared != nil && lo >= s.from && i >= s.from {
		col := s.shared.column(i-s.from, func(col []float64) {
			s.cols.Column(col, s.from, s.n, i)
		})
		if col != nil {
			copy(dst, col[lo-s.from:hi-s.from])
			return
		}
	}
	s.cols.Column(dst, lo, hi, i)
}

// subtractProjections computes dst[j] −= Σ_r a[r]·M[r, off+j] for the rows r of M
// (row-major with stride n): the transposed matrix–vector product of the block of M's
// columns off…off+len(dst)−1, by gonum's assembly Dgemv.
func subtractProjections(dst, m []float64, n, off int, a []float64) {
	if len(a) == 0 || len(dst) == 0 {
		return
	}
	blk := blas64.General{Rows: len(a), Cols: len(dst), Stride: n, Data: m[off:]}
	blas64.Gemv(blas.Trans, -1, blk, blas64.Vector{N: len(a), Inc: 1, Data: a}, 1,
		blas64.Vector{N: len(dst), Inc: 1, Data: dst})
}
