package engine

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// NegativeSitePrecision is the site precision the engine substitutes when the ADF update
// of a model that is not log-concave (the null category model) gives a negative one.
// This is the reference toolbox's rule (REFERENCE-FACTS.md, "Adding point i"): the stored
// site precision β, used by kernel learning, becomes this small positive value, while the
// posterior update of μ, ς and the factors L, M use the point's g and ν unchanged, so the
// posterior stays the ADF posterior after the inclusion. Since noise models floor ν at
// machine epsilon, a negative precision ν/(1 − νς) can only come from νς > 1, which such a
// point's score reports as +Inf (it is then selected first). For a log-concave model either
// is a numerical breakdown and an error.
const NegativeSitePrecision = 1e-6

// Options configures a Selector. The zero value is usable.
type Options struct {
	// Workers is the number of goroutines that score points and update the posterior;
	// 0 means runtime.GOMAXPROCS(0). Small problems run on one goroutine whatever it says.
	Workers int
	// Criterion is the selection score (default Entropy, the papers' and the reference's).
	Criterion Criterion
	// Step, when set, is called by Select after every inclusion with the active set's
	// size (for progress displays; it runs on the selecting goroutine).
	Step func(size int)
	// Inner, when set, holds the inner products of the rows of the selector's inputs
	// (kern.NewInner of the same matrix), from which kernel columns are computed: share one
	// among the selectors that fit many kernels or problems on the same rows.
	Inner *kern.Inner
}

// Criterion is the score by which Algorithm 1 picks the next active point.
type Criterion int

const (
	// Entropy scores a point by the entropy reduction its observed label brings,
	// −½ log₂(1 − ς ν) (IVM paper eq. 26).
	Entropy Criterion = iota
	// ExpectedEntropy scores a point of a classification or ordinal model by the entropy
	// reduction averaged over its possible labels, weighted by their predictive
	// probabilities; the site then uses the observed label. Under a near-step likelihood the
	// plain criterion favours points whose labels contradict the posterior — on noisy data,
	// mislabelled points — because such a label moves the posterior most; this one favours
	// points whose label is uncertain. Regression models score as with Entropy.
	ExpectedEntropy
)

// String returns "entropy" or "expected".
func (c Criterion) String() string {
	if c == ExpectedEntropy {
		return "expected"
	}
	return "entropy"
}

// ParseCriterion parses "entropy" or "expected".
func ParseCriterion(s string) (Criterion, error) {
	switch s {
	case "entropy", "":
		return Entropy, nil
	case "expected":
		return ExpectedEntropy, nil
	}
	return 0, fmt.Errorf("ivm: unknown selection criterion %q (want entropy or expected)", s)
}

// Inclusion records one step of Algorithm 1.
type Inclusion struct {
	// Index is the 0-based row of the included point.
	Index int
	// Delta is the entropy reduction −½ log₂(1 − ς ν) of the point, in bits.
	Delta float64
	// Ties is how many inactive points had exactly this score (1: no tie).
	Ties int
	// G and Nu are the point's g and ν at inclusion.
	G, Nu float64
	// SiteM and SiteBeta are the site mean and precision (SiteBeta after the
	// NegativeSitePrecision rule); FactorBeta is ν/(1 − νς), the precision the posterior
	// factor uses, which differs from SiteBeta only when that rule applied.
	SiteM, SiteBeta, FactorBeta float64
}

// Selector holds the state of Algorithm 1 of the IVM paper for one data set: the posterior
// mean μ and variance ς of every training point, the per-point g and ν, the site parameters
// of the active set, and the factors of the representation Σ = K − MᵀM (eqs. 27–30):
// M = L⁻¹K_{I,·} (d×N) and L, the lower Cholesky factor of K_II + B_I⁻¹.
//
// Kernel columns are computed on demand (the N×N kernel matrix is never formed): a step
// costs O(|I|·N) time and the state O(d·N) memory. The selector never changes the kernel's
// or noise model's parameters; call Reset after changing them.
type Selector struct {
	// X and Y are the training inputs (N×D) and targets; Kernel and Noise the model. The
	// selector reads them and must not see them changed between Reset and the end of a
	// selection.
	X      *mat.Dense
	Y      []float64
	Kernel kern.Kernel
	Noise  noise.Model

	n, dim  int
	workers int
	step    func(size int)

	mu, varsigma []float64
	g, nu        []float64
	logZ         []float64
	active       []bool
	steps        []Inclusion
	order        []int // active indices in inclusion order

	m    []float64 // size×n row-major; row k is r_k·s_k of inclusion k
	lfac []float64 // growing lower-triangular L, row k has k+1 entries, packed
	size int       // number of inclusions so far

	cols    *kern.Columns   // kernel columns of X under Kernel, refreshed by Reset
	inner   *kern.Inner     // X's inner products for cols (Options.Inner), or nil
	colsK   kern.Kernel     // the kernel cols was made for
	exact   noise.ExactSite // non-nil for noise models with closed-form sites
	concave bool            // the noise model is log-concave
	classes []float64       // the labels ExpectedEntropy averages over (nil: Entropy)

	// unscored skips the rescoring of the inactive points after each inclusion (IncludeAll).
	unscored bool
	// siteOnly marks the rows known by their sites alone, without targets (nil: none): an
	// extended model's old active points (Extend). They are never scored or included by
	// their targets; one removed stays out.
	siteOnly []bool
	// from is the first row whose column of M, μ and ς are kept: the rows before it are
	// site-only rows that no later step reads (an Extend without swaps), so that their
	// share of every step's work is saved.
	from int
	// shared holds the kernel columns over the rows from on that other selectors share
	// (Extend's ColumnCache), or nil.
	shared *ColumnCache

	// next best candidate, computed after every step
	best     int
	bestD    float64
	bestTies int
	err      error
}

// NewSelector prepares Algorithm 1 on inputs x (N×D) with targets y for the kernel and
// noise model given. It calls the noise model's Init on y (setting its data-dependent
// start-up parameters) and scores every point against the prior.
func NewSelector(x *mat.Dense, y []float64, k kern.Kernel, nm noise.Model, opt Options) (*Selector,
	error) {
	if x == nil || k == nil || nm == nil {
		return nil, errors.New("ivm: NewSelector needs inputs, a kernel and a noise model")
	}
	n, _ := x.Dims()
	if n == 0 {
		return nil, errors.New("ivm: no training points")
	}
	if len(y) != n {
		return nil, fmt.Errorf("ivm: %d targets for %d input rows", len(y), n)
	}
	if err := CheckFinite(x); err != nil {
		return nil, err
	}
	if err := nm.Init(y); err != nil {
		return nil, err
	}
	return newSelector(x, y, k, nm, opt, nil)
}

// newSelector is NewSelector after its checks and the noise model's Init, with the rows
// siteOnly marks (nil: none) kept from scoring: Extend's selector keeps the parameters its
// model's noise model has.
func newSelector(x *mat.Dense, y []float64, k kern.Kernel, nm noise.Model, opt Options,
	siteOnly []bool) (*Selector, error) {
	n, dim := x.Dims()
	if opt.Inner != nil && opt.Inner.X() != x {
		return nil, errors.New(
			"ivm: the inner products given are of other inputs than the selector's")
	}
	s := &Selector{X: x, Y: y, Kernel: k, Noise: nm, n: n, dim: dim, inner: opt.Inner,
		siteOnly: siteOnly}
	s.workers = opt.Workers
	s.step = opt.Step
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	if n < minParallelRows {
		s.workers = 1
	}
	s.exact, _ = nm.(noise.ExactSite)
	s.concave = nm.LogConcave()
	if opt.Criterion == ExpectedEntropy {
		s.classes = nm.Classes()
	}
	if err := s.Reset(); err != nil {
		return nil, err
	}
	return s, nil
}

// minParallelRows is the size below which one goroutine is faster than several: an
// inclusion's work over fewer rows is too short to pay for the goroutines' hand-offs.
// Where the search fits one fold at a time, its selections run on this path alone.
const minParallelRows = 1024

// CheckFinite returns an error naming the first NaN or infinite input, if any.
func CheckFinite(x mat.Matrix) error {
	r, c := x.Dims()
	raw, isRaw := x.(mat.RawMatrixer)
	for i := 0; i < r; i++ {
		if isRaw && finiteRow(rawRow(raw.RawMatrix(), i)) {
			continue
		}
		for j := 0; j < c; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("ivm: input row %d column %d is %v", i, j, v)
			}
		}
	}
	return nil
}

// rawRow is row i of a.
func rawRow(a blas64.General, i int) []float64 {
	return a.Data[i*a.Stride : i*a.Stride+a.Cols]
}

// finiteRow reports whether every value of row is finite: v − v is 0 for a finite v and
// NaN for NaN and ±Inf, one test a value where a large pool has millions.
func finiteRow(row []float64) bool {
	var acc float64
	for _, v := range row {
		acc += v - v
	}
	return acc == 0
}

// Reset empties the active set and restores the prior: μ = 0, ς = diag K. It keeps the
// memory already allocated, so repeated selections (Algorithm 2) do not reallocate.
func (s *Selector) Reset() error {
	n := s.n
	if s.mu == nil {
		s.mu = make([]float64, n)
		s.varsigma = make([]float64, n)
		s.g = make([]float64, n)
		s.nu = make([]float64, n)
		s.logZ = make([]float64, n)
		s.active = make([]bool, n)
	}
	for i := range s.mu {
		s.mu[i] = 0
		s.active[i] = false
	}
	if s.cols == nil || s.colsK != s.Kernel {
		s.colsK = s.Kernel
		if s.inner != nil && s.inner.X() == s.X {
			s.cols, _ = kern.NewInnerColumns(s.Kernel, s.inner)
		} else {
			s.cols = kern.NewColumns(s.Kernel, s.X)
		}
	} else {
		s.cols.Refresh()
	}
	s.Kernel.Diag(s.varsigma, s.X)
	for i, v := range s.varsigma {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("ivm: prior variance of point %d is %v; check the kernel parameters",
				i, v)
		}
	}
	s.steps = s.steps[:0]
	s.order = s.order[:0]
	s.m = s.m[:0]
	s.lfac = s.lfac[:0]
	s.size = 0
	s.err = nil
	s.scoreAll()
	return s.err
}

// NumPoints returns the number of training points N.
func (s *Selector) NumPoints() int { return s.n }

// Size returns the number of points included so far.
func (s *Selector) Size() int { return s.size }

// Active returns the 0-based indices of the active points in inclusion order. The slice is
// the selector's own; do not modify it.
func (s *Selector) Active() []int { return s.order }

// Steps returns the record of every inclusion so far, in order.
func (s *Selector) Steps() []Inclusion { return s.steps }

// Mean returns the posterior mean μ of every training point (the selector's own slice).
func (s *Selector) Mean() []float64 { return s.mu }

// Var returns the posterior variance ς of every training point (the selector's own slice).
func (s *Selector) Var() []float64 { return s.varsigma }

// IsActive reports whether point i is in the active set.
func (s *Selector) IsActive(i int) bool { return s.active[i] }

// Best returns the inactive point with the largest entropy reduction (ties go to the lowest
// index), that reduction in bits, and how many points share it. It returns −1 when every
// point is active.
func (s *Selector) Best() (index int, delta float64, ties int) {
	return s.best, s.bestD, s.bestTies
}

// Select adds d more points by greedy entropy reduction (Algorithm 1).
func (s *Selector) Select(d int) error {
	if d < 0 {
		return fmt.Errorf("ivm: cannot select %d points", d)
	}
	if s.size+d > s.n {
		return fmt.Errorf("ivm: active set of %d points requested from %d training points",
			s.size+d, s.n)
	}
	s.grow(s.size + d)
	for k := 0; k < d; k++ {
		if s.err != nil {
			return s.err
		}
		if err := s.Include(s.best); err != nil {
			return err
		}
		if s.step != nil {
			s.step(s.size)
		}
	}
	return s.err
}

// IncludeAll includes every inactive point, in index order. When the active set is to be
// the whole training set, greedy selection would only choose the order of the ADF updates,
// and its rescoring of every inactive point after each inclusion is most of a selection's
// time on small sets; here only the point about to be included is scored.
func (s *Selector) IncludeAll() error {
	s.grow(s.n)
	s.unscored = true
	defer func() { s.unscored = false }()
	for i := 0; i < s.n; i++ {
		if s.active[i] || s.isSiteOnly(i) {
			continue
		}
		s.logZ[i], s.g[i], s.nu[i] = s.Noise.Moments(i, s.Y[i], s.mu[i], s.varsigma[i])
		if err := s.Include(i); err != nil {
			return err
		}
		if s.step != nil {
			s.step(s.size)
		}
	}
	s.setBest(candidate{idx: -1})
	return s.err
}

// isSiteOnly reports whether row i is known by its site alone (see siteOnly).
func (s *Selector) isSiteOnly(i int) bool { return s.siteOnly != nil && s.siteOnly[i] }

// grow makes room for total inclusions without reallocating during selection.
func (s *Selector) grow(total int) {
	if need := total * s.n; cap(s.m) < need {
		m := make([]float64, len(s.m), need)
		copy(m, s.m)
		s.m = m
	}
	if need := total * (total + 1) / 2; cap(s.lfac) < need {
		l := make([]float64, len(s.lfac), need)
		copy(l, s.lfac)
		s.lfac = l
	}
}

// Include adds point i to the active set (the ADF update of IVM paper eqs. 12–16 in the
// representation of eqs. 27–30), then rescoring every inactive point.
func (s *Selector) Include(i int) error {
	if i < 0 || i >= s.n {
		return fmt.Errorf("ivm: point %d out of range [0, %d)", i, s.n)
	}
	if s.active[i] {
		return fmt.Errorf("ivm: point %d is already active", i)
	}
	if s.isSiteOnly(i) {
		return fmt.Errorf("ivm: point %d has no target to include it by", i)
	}
	g, nu := s.g[i], s.nu[i]
	vs := s.varsigma[i]
	if !(nu > 0) {
		return fmt.Errorf(
			"ivm: point %d has ν = %v; its inclusion would not reduce the posterior variance",
			i, nu)
	}
	factorBeta := nu / (1 - nu*vs)
	siteBeta := factorBeta
	siteM := s.mu[i] + g/nu
	if s.exact != nil {
		siteM, siteBeta = s.exact.Site(i, s.Y[i])
	} else if !(siteBeta >= 0) {
		if s.concave {
			return fmt.Errorf(
				"ivm: negative site precision %v at point %d (ν = %v, ς = %v) for the "+
					"log-concave %s noise model: numerical breakdown",
				siteBeta, i, nu, vs, s.Noise.Name())
		}
		siteBeta = NegativeSitePrecision
	}
	rec := Inclusion{Index: i, Delta: s.bestD, Ties: s.bestTies, G: g, Nu: nu,
		SiteM: siteM, SiteBeta: siteBeta, FactorBeta: factorBeta}
	if i != s.best {
		rec.Delta, rec.Ties = delta(vs, nu), 0
	}
	return s.add(rec)
}

// add includes the inactive point rec.Index, whose site is rec, with the posterior update
// driven by rec.G and rec.Nu (ν > 0): it appends the factor rows, records the inclusion and
// rescores every inactive point.
func (s *Selector) add(rec Inclusion) error {
	i, g, nu := rec.Index, rec.G, rec.Nu
	k := s.size
	if cap(s.m) < (k+1)*s.n {
		s.grow(max(k+1, 2*k)) // amortised growth for callers that include one by one
	}
	// a = M[:, i]; the new row of L is [aᵀ, 1/√ν].
	for r := 0; r < k; r++ {
		s.lfac = append(s.lfac, s.m[r*s.n+i])
	}
	s.lfac = append(s.lfac, 1/math.Sqrt(nu))
	s.m = s.m[:(k+1)*s.n]
	s.active[i] = true
	s.order = append(s.order, i)
	s.steps = append(s.steps, rec)
	s.update(i, g, nu)
	s.size++
	return s.err
}

// delta is the entropy reduction in bits, −½ log₂(1 − ς ν), exactly as the reference
// computes it.
func delta(vs, nu float64) float64 { return -0.5 * math.Log2(1-vs*nu) }
