package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/noise"
)

// ExtendOptions configures Extend. The zero value keeps the model's active set size and
// swaps up to a fifth of it.
type ExtendOptions struct {
	// ActiveSize is the active set size after the update: 0 keeps the model's. A larger one
	// first adds the best new rows greedily; a smaller one is refused.
	ActiveSize int
	// MaxSwaps caps the swaps once the size is reached; 0 means a fifth of the active set
	// size (at least one), a negative value makes none. A swap costs more than an inclusion
	// at full size: the cap keeps an update below the time of selecting d points afresh.
	MaxSwaps int
	// SwapTol ends the swaps when the least informative active point's loss and the best
	// candidate's gain come within SwapTol bits of each other; 0 means 1e−3.
	SwapTol float64
	// Candidates caps the new rows an Extend that grows without swaps (MaxSwaps < 0) takes
	// as candidates: a pool of them, half those the model's posterior scores best and half
	// drawn at random from the others (pooledRows). 0 means four per point added and at
	// least 1 000; a negative value, every new row.
	Candidates int
	// Criterion and Workers are as for a Selector (Options).
	Criterion Criterion
	Workers   int
	// FirstRow numbers the new rows in the model's Active: row j of the new inputs becomes
	// FirstRow + j (the rows after those the model was trained and updated on).
	FirstRow int
	// Columns, when set, holds the kernel columns over the new rows x for every Extend of a
	// model with the same kernel on them (nil: none shared). It is used when no swap is to
	// be made.
	Columns *ColumnCache
}

// ExtendStats reports what Extend did.
type ExtendStats struct {
	// Added counts the new rows included to grow the active set, Swaps the swaps made,
	// Dropped the old active points swapped out for good (their targets are unknown).
	Added, Swaps, Dropped int
}

// Extend returns m updated with the labelled rows x (inputs scaled as m's) and targets y,
// coded as m's noise model wants them: the new rows become candidates for m's active set,
// with m's kernel and noise model (whose parameters stay as they are).
//
// The model's posterior is rebuilt from its sites alone, so no old training row is needed:
// a selector over the old active inputs and the new rows holds the old sites (the factors
// recomputed in one block, O(d²·(d + N_new))); the best new rows are added up to
// ActiveSize (from a pool of Candidates rows, where no swap is to be made), then the
// least informative active point is swapped for the best candidate while that gains more
// than SwapTol bits, each step O(d·(d + N_new)). An old active point swapped out is dropped
// for good: the file does not hold its target to score it by. The sites of the points kept
// are unchanged (no EP), as the selection of Fit leaves them.
func Extend(m *Model, x *mat.Dense, y []float64, opt ExtendOptions) (*Model, ExtendStats,
	error) {
	var st ExtendStats
	s, err := extendSelector(m, x, y, opt)
	if err != nil {
		return nil, st, err
	}
	d := m.Size()
	target, err := extendedSize(d, opt.ActiveSize, s.n)
	if err != nil {
		return nil, st, err
	}
	var rows []int // the new rows the selector holds (nil: all)
	if st.Added = target - d; st.Added > 0 {
		if s, rows, err = narrowed(s, m, x, y, opt, st.Added); err != nil {
			return nil, st, err
		}
		if err := s.Select(st.Added); err != nil {
			return nil, st, err
		}
	}
	if err := s.swapIn(opt, &st); err != nil {
		return nil, st, err
	}
	out, err := s.Model()
	if err != nil {
		return nil, st, err
	}
	out.Active = extendedRows(m.Active, s.Active(), rows, d, opt.FirstRow)
	return out, st, nil
}

// extendedSize is the active set size of an update of a model of d active points to size
// (0: d) with n rows in all: at most n, never less than d.
func extendedSize(d, size, n int) (int, error) {
	switch {
	case size == 0:
		return d, nil
	case size < d:
		return 0, fmt.Errorf(
			"ivm: the model has %d active points; an update cannot shrink it to %d", d, size)
	}
	return min(size, n), nil
}

// The default of ExtendOptions.Candidates: candidatesPerInclusion per point added, at least
// minCandidates. Below minCandidates rows, scoring them all costs little.
const (
	candidatesPerInclusion = 4
	minCandidates          = 1000
)

// narrowed returns selector s, or, where the update grows by added points without swaps and
// more new rows than opt.Candidates allows are candidates, a selector over those of them
// pooledRows chooses, with their numbers among the new rows.
func narrowed(s *Selector, m *Model, x *mat.Dense, y []float64, opt ExtendOptions,
	added int) (*Selector, []int, error) {
	d := m.Size()
	keep := opt.Candidates
	if keep == 0 {
		keep = max(candidatesPerInclusion*added, minCandidates)
	}
	keep = max(keep, added)
	if opt.MaxSwaps >= 0 || opt.Candidates < 0 || keep >= s.n-d {
		return s, nil, nil
	}
	scores := make([]float64, s.n-d)
	for j := range scores {
		c := s.scoreRange(d+j, d+j+1)
		if c.err != nil {
			return nil, nil, c.err
		}
		scores[j] = c.delta
	}
	rows := pooledRows(scores, keep, uint64(opt.FirstRow))
	opt.Columns = nil // its columns are over all the new rows
	ns, err := newExtendSelector(m, subset.Dense(x, rows), subset.Of(y, rows), opt)
	if err != nil {
		return nil, nil, err
	}
	ns.holdColumns(s, rows)
	return ns, rows, ns.err
}

// pooledRows returns, in ascending order, keep of the rows scored: the half scored best and
// the rest drawn at random (seeded by seed) from the others. The rows scored best alone
// miss the regions that a poor model scores low; rows drawn at random alone miss the hard
// rows that high-dimensional classes need (bench/RESULTS.md, "Update").
func pooledRows(scores []float64, keep int, seed uint64) []int {
	rows := make([]int, len(scores))
	for j := range rows {
		rows[j] = j
	}
	// Stable, so that equal scores keep the lower rows, as the selection's ties do.
	slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	rest := rows[keep/2:]
	rand.New(rand.NewPCG(seed, uint64(len(scores)))).Shuffle(len(rest), func(i, j int) {
		rest[i], rest[j] = rest[j], rest[i]
	})
	rows = rows[:keep]
	slices.Sort(rows)
	return rows
}

// holdColumns is holdSites for a selector over the site-only rows of src, which holds the
// sites, and its new rows rows alone: it takes src's factor and the rows' columns of M, μ
// and ς instead of recomputing them, and scores the rows.
func (s *Selector) holdColumns(src *Selector, rows []int) {
	d := src.size
	s.grow(d)
	s.lfac = append(s.lfac[:0], src.lfac...)
	s.m = s.m[:d*s.n]
	for k := range d {
		s.active[k] = true
		s.order = append(s.order, k)
	}
	s.steps = append(s.steps, src.steps...)
	s.size = d
	for r := range d {
		dst, from := s.m[r*s.n+d:(r+1)*s.n], src.m[r*src.n+d:(r+1)*src.n]
		for k, j := range rows {
			dst[k] = from[j]
		}
	}
	for k, j := range rows {
		s.mu[d+k], s.varsigma[d+k] = src.mu[d+j], src.varsigma[d+j]
	}
	s.scoreAll()
}

// extendSelector checks the new rows and returns a selector over m's active inputs
// (site-only rows) and the new rows, holding m's sites.
func extendSelector(m *Model, x *mat.Dense, y []float64, opt ExtendOptions) (*Selector, error) {
	s, err := newExtendSelector(m, x, y, opt)
	if err != nil {
		return nil, err
	}
	return s, s.holdSites(m)
}

// newExtendSelector checks the new rows and returns a selector over m's active inputs
// (site-only rows) and the new rows, holding nothing yet.
func newExtendSelector(m *Model, x *mat.Dense, y []float64, opt ExtendOptions) (*Selector,
	error) {
	if m == nil || x == nil {
		return nil, errors.New("ivm: Extend needs a model and new rows")
	}
	nNew, dim := x.Dims()
	d, mDim := m.XActive.Dims()
	switch {
	case nNew == 0:
		return nil, errors.New("ivm: no new rows")
	case dim != mDim:
		return nil, fmt.Errorf("ivm: %d input columns in the new rows, the model has %d", dim, mDim)
	case len(y) != nNew:
		return nil, fmt.Errorf("ivm: %d targets for %d new rows", len(y), nNew)
	case opt.SwapTol < 0 || math.IsNaN(opt.SwapTol):
		return nil, fmt.Errorf("ivm: swap tolerance %v", opt.SwapTol)
	case opt.FirstRow < 0:
		return nil, fmt.Errorf("ivm: first new row %d", opt.FirstRow)
	}
	if err := CheckFinite(x); err != nil {
		return nil, err
	}
	if err := checkTargets(m.Noise, y); err != nil {
		return nil, err
	}
	xs := mat.NewDense(d+nNew, dim, nil)
	xs.Slice(0, d, 0, dim).(*mat.Dense).Copy(m.XActive)
	xs.Slice(d, d+nNew, 0, dim).(*mat.Dense).Copy(x)
	ys := make([]float64, d+nNew)
	siteOnly := make([]bool, d+nNew)
	for k := range d {
		ys[k], siteOnly[k] = math.NaN(), true
	}
	copy(ys[d:], y)
	s, err := newSelector(xs, ys, m.Kernel, m.Noise,
		Options{Workers: opt.Workers, Criterion: opt.Criterion}, siteOnly)
	if err != nil {
		return nil, err
	}
	if opt.MaxSwaps < 0 {
		// Only a swap reads an old active point's posterior or column of M.
		s.from = d
		if opt.Columns != nil && opt.Columns.accepts(m.Kernel, x) {
			s.shared = opt.Columns
		}
	}
	return s, nil
}

// checkTargets refuses targets the noise model nm cannot take without its Init, which
// Extend does not call (it would reset the parameters): a value not finite or none of its
// classes (the null category model also takes 0, unlabelled), and any row for a Gaussian
// with a precision per training row, which the new rows do not have.
func checkTargets(nm noise.Model, y []float64) error {
	if g, ok := nm.(*noise.Gaussian); ok && g.Precision != nil {
		return errors.New("ivm: the gaussian noise model has a precision per training row; " +
			"new rows have none")
	}
	classes := nm.Classes()
	_, null := nm.(*noise.NullCategory)
	for i, v := range y {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("ivm: new row %d has target %v", i, v)
		case classes != nil && !slices.Contains(classes, v) && !(null && v == 0):
			return fmt.Errorf("ivm: new row %d has target %v; the %s noise model takes %v",
				i, v, nm.Name(), classes)
		}
	}
	return nil
}

// holdSites makes the selector's active set the first m.Size() rows with m's sites, in m's
// order, and recomputes the factors, μ and ς from them in one block.
func (s *Selector) holdSites(m *Model) error {
	d := m.Size()
	s.grow(d)
	s.lfac = s.lfac[:tri(d)]
	s.m = s.m[:d*s.n]
	for k := range d {
		s.active[k] = true
		s.order = append(s.order, k)
		s.steps = append(s.steps, Inclusion{Index: k, Ties: 1, SiteM: m.SiteM[k],
			SiteBeta: m.SiteBeta[k], FactorBeta: m.FactorBeta[k]})
	}
	s.size = d
	if m.Jitter == 0 && m.upper.Data != nil {
		// The model's factor is the one recompute would compute: the same K_II + B⁻¹
		// factorised by the same routine.
		return s.recomputeFrom(s.activeInputs(), m.upper)
	}
	if err := s.recompute(); err != nil {
		return fmt.Errorf("%w (the model's own factorisation needed jitter %g)", err, m.Jitter)
	}
	return nil
}

// swapIn swaps the least informative active point for the best candidate while the swap
// gains more than the tolerance, up to the cap (ExtendOptions), counting in st.
func (s *Selector) swapIn(opt ExtendOptions, st *ExtendStats) error {
	maxSwaps, tol := opt.MaxSwaps, opt.SwapTol
	if maxSwaps == 0 {
		maxSwaps = max(1, s.size/5)
	}
	if tol == 0 {
		tol = refineSwapTol
	}
	since := 0
	for st.Swaps < maxSwaps && s.best >= 0 {
		pos, loss := s.removalScore()
		if s.classes != nil {
			pos, loss = s.expectedRemoval()
		}
		if !(loss+s.bestD > tol) || math.IsInf(s.bestD, 1) {
			break
		}
		dropped := s.siteOnly[s.order[pos]]
		if _, err := s.swapAt(pos, loss); err != nil {
			return err
		}
		st.Swaps++
		if dropped {
			st.Dropped++
		}
		if since++; since >= refineRecomputeEvery {
			since = 0
			if err := s.recompute(); err != nil {
				return err
			}
		}
	}
	return nil
}

// expectedRemoval is removalScore for a selector that scores its candidates by the
// ExpectedEntropy criterion: the position of the active point whose label, averaged over the
// labels' predictive probabilities at its cavity, would bring the least information, and
// minus that information. Scored by their own labels instead, the confidently right points,
// the anchors of the easy regions, would go first and the surprising ones stay.
func (s *Selector) expectedRemoval() (pos int, loss float64) {
	pos, loss = -1, math.Inf(-1)
	for k, i := range s.order {
		vs, beta := s.varsigma[i], s.postBeta(k)
		sc := math.Inf(-1)
		if v := 1 - vs*beta; v > 0 && vs > 0 {
			cav := vs / v
			mu := cav * (s.mu[i]/vs - beta*s.steps[k].SiteM)
			if e, ok := s.labelAverage(i, mu, cav, math.NaN(), 0, 0); ok {
				sc = -e
			}
		}
		if pos < 0 || sc > loss {
			pos, loss = k, sc
		}
	}
	return pos, loss
}

// extendedRows numbers the active points of an extended model: old point k keeps
// oldActive[k], the selector's new row j becomes firstRow + rows[j] (firstRow + j where
// rows is nil); nil where the model recorded no rows.
func extendedRows(oldActive, order, rows []int, d, firstRow int) []int {
	if oldActive == nil {
		return nil
	}
	out := make([]int, len(order))
	for k, i := range order {
		switch {
		case i < d:
			out[k] = oldActive[i]
		case rows != nil:
			out[k] = firstRow + rows[i-d]
		default:
			out[k] = firstRow + i - d
		}
	}
	return out
}
