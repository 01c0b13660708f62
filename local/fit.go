package local

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
)

const (
	// searchQueries bounds the held-out rows that score each candidate of the search; the
	// others judge its choice.
	searchQueries = 1000
	// searchPool bounds the rows among which the search looks for neighbours: a tree of
	// them is built for each round's weighting.
	searchPool = 30000
	// minJudged is the fewest held-out rows that may judge the search's choice.
	minJudged = 200
	// weightStep is the factor by which the search raises or lowers an input's weight;
	// maxWeight bounds a weight and its inverse.
	weightStep = 4
	maxWeight  = 256
	rounds     = 3
	// minGain is the relative fall in the held-out squared error a new weight must bring;
	// minFirstGain the fall from predicting no residual that the first round must bring.
	minGain      = 0.002
	minFirstGain = 0.01
)

var (
	// widths are the covariance's squared length scales 1/γ, as multiples of the median
	// squared distance to a query's middle neighbour.
	widths = []float64{0.1, 0.3, 1, 3}
	// shares are the signal's shares of the residuals' variance.
	shares = []float64{0.1, 0.25, 0.5, 0.75, 0.9}
	// searchWidths and searchShares are the coarser grid that scores each weighting.
	searchWidths = []float64{0.3, 1, 3}
	searchShares = []float64{0.25, 0.5, 0.75}
)

// Fitted is a model Fit chose, with its errors and predictive variances (before the Scale
// the caller fits to them) at every held-out row Fit was given.
type Fitted struct {
	Model             *Model
	Errors, Variances []float64
}

// Fit fits a local model to the residuals res of the scaled training rows x and judges it
// on the held-out rows held (rows of x), whose residuals as the global model predicts them
// without their own targets are heldRes. The first searchQueries of them choose each
// input's weight (starting from 1, raised or lowered by weightStep while the squared
// error falls), the width and the signal's share; the others judge the choice. It returns
// nil where the first round's best weighting does not predict the choosing rows' residuals
// with minFirstGain less squared error than zero does, where the choice does not predict
// the judging rows' better than zero by more than the standard error of the paired
// differences, or where too few rows judge.
func Fit(x *mat.Dense, res Residuals, held []int, heldRes []float64, seed uint64,
	workers int) (*Fitted, error) {
	n, dim := x.Dims()
	if len(heldRes) != len(held) {
		return nil, errors.New("local: held-out rows and residuals disagree")
	}
	nq := min(searchQueries, len(held)/2)
	if len(held)-nq < minJudged || n <= Neighbours {
		return nil, nil
	}
	s := &search{x: x, res: make([]float64, n), xw: mat.NewDense(n, dim, nil),
		workers: pool.Workers(workers)}
	s.pool = subset.Random(n, searchPool, seed, 0x6c6f63)
	if len(s.pool) == n {
		s.pool = nil
	}
	if err := s.residuals(res, s.pool); err != nil {
		return nil, err
	}
	if s.pool == nil {
		s.varR = stat.Mean(floats2(s.res), nil)
	} else {
		s.varR = stat.Mean(floats2(subset.Of(s.res, s.pool)), nil)
	}
	s.qs, s.r = held[:nq], heldRes[:nq]
	w := make([]float64, dim)
	for j := range w {
		w[j] = 1
	}
	s.widen(w)
	best := s.score(w)
	zero := stat.Mean(floats2(s.r), nil)
	for round := range rounds {
		improved := false
		for j := range dim {
			for _, f := range []float64{weightStep, 1.0 / weightStep} {
				next := slices.Clone(w)
				if next[j] *= f; next[j] > maxWeight || next[j] < 1.0/maxWeight {
					continue
				}
				if c := s.score(next); c.mse < best.mse*(1-minGain) {
					w, best, improved = next, c, true
					break
				}
			}
		}
		// Residuals that one round's weightings barely predict are mostly the noise the
		// global model leaves: the rounds cost as much as a kernel search.
		if round == 0 && !(best.mse < zero*(1-minFirstGain)) {
			return nil, nil
		}
		if !improved {
			break
		}
		s.widen(w)
	}
	if s.pool != nil {
		if err := s.residuals(res, subset.Others(n, s.pool)); err != nil {
			return nil, err
		}
	}
	return s.judge(w, held, heldRes, nq), nil
}

// Residuals returns the training rows' residuals (their targets less the global model's
// predictions) at the rows given: a large set's are asked for only where the search, on a
// sample of them, finds a local model worth judging.
type Residuals func(rows []int) ([]float64, error)

// residuals sets s.res at the rows given (every row where rows is nil).
func (s *search) residuals(res Residuals, rows []int) error {
	if rows == nil {
		rows = subset.All(len(s.res))
	}
	r, err := res(rows)
	if err != nil {
		return err
	}
	if len(r) != len(rows) {
		return errors.New("local: residuals of the wrong number of rows")
	}
	for i, row := range rows {
		s.res[row] = r[i]
	}
	return nil
}

// floats2 returns the squares of v.
func floats2(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * x
	}
	return out
}

// search holds what Fit's candidates share.
type search struct {
	x       *mat.Dense
	res     []float64
	varR    float64    // the residuals' mean square
	pool    []int      // the rows among which neighbours are sought (nil: all)
	xw      *mat.Dense // x weighted
	qs      []int      // the rows that score the candidates, and their held-out residuals
	r       []float64
	wide    []wideHood // their nearest rows under the round's weights
	workers int
}

// wideHood is a query's wideNeighbours nearest rows under one weighting, and their squared
// differences from it in each input, unweighted: a weighting near it finds its own
// neighbours among them.
type wideHood struct {
	idx  []int
	diff []float64
}

// wideNeighbours is how many of a query's nearest rows a round keeps.
const wideNeighbours = 4 * Neighbours

// candidate is a weighting's best covariance and its held-out mean squared error.
type candidate struct {
	p   params
	mse float64
}

// weigh sets s.xw to x weighted by w.
func (s *search) weigh(w []float64) {
	n, _ := s.x.Dims()
	for i := range n {
		dst := s.xw.RawRowView(i)
		for j, v := range s.x.RawRowView(i) {
			dst[j] = v * w[j]
		}
	}
}

// widen sets s.wide to the queries' nearest rows under the weights w.
func (s *search) widen(w []float64) {
	s.weigh(w)
	_, dim := s.x.Dims()
	s.wide = make([]wideHood, len(s.qs))
	t := newTree(s.xw, s.pool)
	pool.ForEach(len(s.qs), s.workers, func(i int) {
		q := s.qs[i]
		idx, d2 := make([]int, wideNeighbours), make([]float64, wideNeighbours)
		k := t.nearest(s.xw.RawRowView(q), q, idx, d2)
		diff := make([]float64, k*dim)
		for a, row := range idx[:k] {
			for j, v := range s.x.RawRowView(row) {
				e := v - s.x.At(q, j)
				diff[a*dim+j] = e * e
			}
		}
		s.wide[i] = wideHood{idx: idx[:k], diff: diff}
	})
}

// hoods returns the queries' neighbourhoods under the weights w, found among their wide
// ones.
func (s *search) hoods(w []float64) []*hood {
	_, dim := s.x.Dims()
	w2 := make([]float64, dim)
	for j, v := range w {
		w2[j] = v * v
	}
	out := make([]*hood, len(s.qs))
	pool.ForEach(len(s.qs), s.workers, func(i int) {
		wh := s.wide[i]
		d := make([]float64, len(wh.idx))
		order := make([]int, len(wh.idx))
		for a := range wh.idx {
			d[a], order[a] = floats.Dot(w2, wh.diff[a*dim:(a+1)*dim]), a
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(d[a], d[b]); c != 0 {
				return c
			}
			return cmp.Compare(wh.idx[a], wh.idx[b])
		})
		h := newHood(Neighbours)
		h.k = min(Neighbours, len(order))
		for a := range h.k {
			h.idx[a], h.d2[a] = wh.idx[order[a]], d[order[a]]
		}
		h.weightedDistances(s.x, w)
		out[i] = h
	})
	return out
}

// score returns the best covariance of the coarse grid (searchWidths, searchShares) for
// the weighting w, and its mean squared error on the queries.
func (s *search) score(w []float64) candidate {
	return s.best(s.hoods(w), s.r, searchWidths, searchShares)
}

// best returns the covariance of the grid (ws, shs) that predicts the residuals r of the
// queries whose neighbourhoods are hs with the least mean squared error, and that error.
func (s *search) best(hs []*hood, r []float64, ws, shs []float64) candidate {
	gammas := s.gammas(hs, ws)
	mses := make([][]float64, len(gammas))
	pool.ForEach(len(gammas), s.workers, func(g int) {
		wk := newWork(Neighbours)
		mses[g] = make([]float64, len(shs))
		for i, h := range hs {
			h.correlate(gammas[g], wk)
			for j, sh := range shs {
				mu, _ := h.solve(sh*s.varR, (1-sh)*s.varR, s.res, wk)
				mses[g][j] += (r[i] - mu) * (r[i] - mu)
			}
		}
	})
	best := candidate{mse: math.Inf(1)}
	for g, row := range mses {
		for j, e := range row {
			if e /= float64(len(hs)); e < best.mse {
				best = candidate{p: params{gamma: gammas[g], signal: shs[j] * s.varR,
					noise: (1 - shs[j]) * s.varR}, mse: e}
			}
		}
	}
	return best
}

// gammas returns γ for each of the squared length scales ws, multiples of the median
// squared distance to the middle neighbour of the neighbourhoods hs.
func (s *search) gammas(hs []*hood, ws []float64) []float64 {
	var mid []float64
	for _, h := range hs {
		if h.k > 0 && h.d2[h.k/2] > 0 {
			mid = append(mid, h.d2[h.k/2])
		}
	}
	med := 1.0
	if len(mid) > 0 {
		slices.Sort(mid)
		med = mid[len(mid)/2]
	}
	out := make([]float64, len(ws))
	for i, wd := range ws {
		out[i] = 1 / (wd * med)
	}
	return out
}

// judge returns the model of weights w, its covariance the best of the full grid (widths,
// shares) for the first nq held-out rows among every row, where it predicts the residuals
// of the held-out rows after them better than zero does by more than the standard error of
// the paired differences (else nil), with its errors and variances at every held-out row.
func (s *search) judge(w []float64, held []int, heldRes []float64, nq int) *Fitted {
	s.weigh(w)
	m := New(w, mat.DenseCopyOf(s.xw), s.res, 1, 1, 1)
	hs := make([]*hood, len(held))
	pool.ForEach(len(held), s.workers, func(i int) {
		hs[i] = newHood(Neighbours)
		hs[i].find(m.tree, m.Rows, m.Rows.RawRowView(held[i]), held[i])
	})
	p := s.best(hs[:nq], heldRes[:nq], widths, shares).p
	m.Gamma, m.Signal, m.Noise = p.gamma, p.signal, p.noise
	errs, vars := make([]float64, len(held)), make([]float64, len(held))
	works := make([]*work, s.workers)
	pool.ForEachWorker(len(held), s.workers, func(wk, i int) {
		if works[wk] == nil {
			works[wk] = newWork(Neighbours)
		}
		mu, v := hs[i].predict(p, s.res, works[wk])
		errs[i], vars[i] = heldRes[i]-mu, v
	})
	before, after := floats2(heldRes[nq:]), floats2(errs[nq:])
	if gain, se := calib.PairedGain(before, after); !(gain > se) {
		return nil
	}
	return &Fitted{Model: m, Errors: errs, Variances: vars}
}
