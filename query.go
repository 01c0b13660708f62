package ivm

// Active learning: which rows of an unlabelled pool would tell the model most.
//
// Each of a predictor's binary models (or its regression) is a query unit; a multi-class
// predictor's score is the sum over its units. A row is scored by what its label tells about
// the labels of the pool (EPIG, query_targets.go) or, by BALD, about its own latent (for a
// regression, the information an observation brings about it: query_score.go).
// The batch is chosen greedily: after each choice every other row's latent variance is
// updated as if the chosen row had been included with the site its label would give (the
// engine's ADF update, ς ← ς − ν c², c the posterior covariance), so that K rows are not K
// copies of one region. A row's score falls as rows are chosen (EPIG's: nearly always), so
// the greedy choice is made lazily: the scores at the start bound the later ones, and only
// the rows whose bound could still win are brought up to date. The information about a
// latent is bounded at the start too, from variances bounded by the leading active points
// (leadingRanks): a large pool's rows are not all solved in full. EPIG's scores are exact,
// at every row of a pool up to queryWork's bound and at an evenly spaced sample of a larger
// one; so are a projected model's by either score, whose prediction of a row, a kernel
// value at each of its thousands of centres, costs more than its scores.

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/enum"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/noise"
)

// Query is one pool row Predictor.Query chose.
type Query struct {
	// Row is the row's index in the pool (0-based).
	Row int
	// Score is the information its label would bring, in nats, given the rows chosen
	// before it (summed over a multi-class predictor's binary models): about the labels of
	// the pool, per row, or with ScoreBALD about the row's latent.
	Score float64
	// Prediction is the predictor's current prediction at the row (Predict's).
	Prediction noise.Prediction
}

// QueryScore is what a query scores a row by.
type QueryScore int

const (
	// ScoreAuto, the default, is ScoreBALD for a classifier of queryManyClasses classes or
	// more and for a regression with a local part (localQueried), and ScoreEPIG otherwise.
	ScoreAuto QueryScore = iota
	// ScoreEPIG scores a row by what its label would tell about the labels of the rest of the
	// pool (the expected predictive information gain, query_targets.go); a regression's
	// labels are its observations.
	ScoreEPIG
	// ScoreBALD scores a row by what its label would tell about its own latent (the mutual
	// information of Houlsby et al.'s BALD; for a regression, ranked as the predictive
	// variance): it favours the pool's most isolated rows, whose labels tell little about the
	// rest.
	ScoreBALD
)

var queryScoreNames = []string{"auto", "epig", "bald"}

// queryManyClasses is the fewest classes ScoreAuto scores by BALD: EPIG sums what a label
// tells each binary model, and a one-vs-one model's pairs, most of which a row's label does
// not concern, grow as the square of the classes (bench/RESULTS.md, "Active learning").
const queryManyClasses = 8

// resolve is the score s means for predictor p.
func (s QueryScore) resolve(p *Predictor) QueryScore {
	switch {
	case s != ScoreAuto:
		return s
	case p.Task == MultiClass && len(p.Classes) >= queryManyClasses, localQueried(p):
		return ScoreBALD
	}
	return ScoreEPIG
}

// localQueried reports whether p is a regression with a local part (localPosterior). Its
// residuals covary over a few neighbouring rows, which EPIG's evenly spaced targets mostly
// miss: a row's label tells them little by EPIG's count while it tells its own neighbours
// much, and its predictive variance, BALD's score, says where labels are missing.
func localQueried(p *Predictor) bool {
	k, ok := p.Kind.(*ProjectedKind)
	return ok && p.Task == Regression && k.Projected.Local != nil
}

// String returns the name ParseQueryScore accepts.
func (s QueryScore) String() string { return enum.String("QueryScore", queryScoreNames, int(s)) }

// ParseQueryScore parses "auto" (or ""), "epig" or "bald".
func ParseQueryScore(s string) (QueryScore, error) {
	v, err := enum.Parse("ivm", "query score", queryScoreNames, s)
	return QueryScore(v), err
}

// QueryOptions are Query's options; the zero value is the default.
type QueryOptions struct {
	// Score is what the rows are scored by.
	Score QueryScore
}

// Query returns the k rows of the unlabelled pool x whose labels would tell p most, best
// first (all the rows when the pool has fewer than k), by the expected information gain
// under p's own predictive distribution with the greedy batch rule described in query.go.
// A row's score is the mean over evenly spaced pool rows of the information its label
// brings about theirs (EPIG), so that rows whose labels would inform the rest of the pool
// come before isolated ones, or by BALD (opt.Score ScoreBALD, and by default for a classifier
// of many classes and a regression with a local part: ScoreAuto) the mutual information
// between its label and its own latent (a regression's: the entropy reduction
// ½ ln(1 + σ²_f/σ²_n) of a Gaussian observation, which ranks as the predictive variance
// does). One-vs-one pairs weigh their information by the
// probability that the row is of one of the pair's classes; a blend queries through its
// probit model; a projected model through the posterior of its query centres, each class's
// label a probit of its latent, a regression with a local part through that part
// (query_projected.go). Ordinal and semi-supervised predictors are refused: see queryUnits.
func (p *Predictor) Query(x mat.Matrix, k int, opt QueryOptions) ([]Query, error) {
	if k < 1 {
		return nil, fmt.Errorf("ivm: query of %d rows: ask for at least one", k)
	}
	if d, ok := x.(*mat.Dense); x == nil || ok && d == nil { // dataset.RowsOf of no rows
		return nil, errors.New("ivm: query: the pool has no rows")
	}
	n, _ := x.Dims()
	if n == 0 {
		return nil, errors.New("ivm: query: the pool has no rows")
	}
	if err := p.checkInputs(x); err != nil {
		return nil, err
	}
	units, err := p.queryUnits()
	if err != nil {
		return nil, err
	}
	// The information about the pool's labels has no cheap bound: a large pool is sampled.
	// The information about a row's own latent is bounded, and spares a large pool's rows.
	epig := opt.Score.resolve(p) == ScoreEPIG
	pool, cand := x, []int(nil)
	if predictWork := p.queryPredictWork(); epig || predictWork > 0 {
		if cand = queryCandidates(units, n, k, predictWork); cand != nil {
			pool = pickRows(x, cand)
		}
	}
	preds, err := p.queryLatents(units, pool, epig)
	if err != nil {
		return nil, err
	}
	b, err := newBatchQuery(units, pool, epig)
	if err != nil {
		return nil, err
	}
	rows, scores, err := b.choose(min(k, b.heap.Len()))
	if err != nil {
		return nil, err
	}
	out := make([]Query, len(rows))
	for i, r := range rows {
		out[i] = Query{Row: r, Score: scores[i]}
		if preds != nil {
			out[i].Prediction = preds[r]
		}
		if cand != nil {
			out[i].Row = cand[r]
		}
	}
	if preds == nil {
		picked := make([]int, len(out))
		for i, q := range out {
			picked[i] = q.Row
		}
		if preds, err = p.Predict(pickRows(x, picked)); err != nil {
			return nil, err
		}
		for i := range out {
			out[i].Prediction = preds[i]
		}
	}
	return out, nil
}

// pickRows copies the rows of x into a new matrix, in order.
func pickRows(x mat.Matrix, rows []int) *mat.Dense {
	_, dim := x.Dims()
	out := mat.NewDense(len(rows), dim, nil)
	for i, r := range rows {
		for j := range dim {
			out.Set(i, j, x.At(r, j))
		}
	}
	return out
}

// refreshBatch is how many rows the lazy greedy choice brings up to date at once: the
// projections of one row cost d² flops and share U's copied blocks with the others. Bounds
// are tightened tightenBatch rows at a time, split in chunks of refreshBatch over the
// workers: they cost less a row, and more of the rows popped need them.
const (
	refreshBatch = 64
	tightenBatch = 512
)

// batchQuery is the greedy batch choice over the pool x: the units, and the heap of every
// row not yet chosen, keyed by an upper bound on its current score.
type batchQuery struct {
	units   []*queryUnit
	x       mat.Matrix
	heap    boundHeap
	chosen  int
	levels  int // the units' bound levels (len(ranks)); a row at this level is solved
	workers int
}

// newBatchQuery starts the choice over the pool x: scored by the information about its
// rows' labels (epig: startTargets), else by the bounds of the units' latent variances.
func newBatchQuery(units []*queryUnit, x mat.Matrix, epig bool) (*batchQuery, error) {
	n, _ := x.Dims()
	b := &batchQuery{units: units, x: x, workers: runtime.GOMAXPROCS(0),
		levels: len(units[0].ranks)}
	b.heap = make(boundHeap, n)
	for i := range b.heap {
		b.heap[i].row = i
	}
	if epig {
		if err := b.startTargets(); err != nil {
			return nil, err
		}
	} else {
		const chunk = 4096
		pool.ForEach((n+chunk-1)/chunk, b.workers, func(c int) {
			for i := c * chunk; i < min((c+1)*chunk, n); i++ {
				for _, u := range units {
					b.heap[i].score += u.score(i, u.vs[i], nil, nil)
				}
			}
		})
	}
	heap.Init(&b.heap)
	return b, nil
}

// startTargets makes evenly spaced pool rows every unit's targets and scores every row
// exactly: there is no bound on the information about the targets cheaper than it.
func (b *batchQuery) startTargets() error {
	n := len(b.heap)
	targets := evenRows(n, queryTargets)
	err := pool.ForEachErr(len(b.units), b.workers, func(u int) error {
		if b.units[u].leader != nil {
			return nil
		}
		return b.units[u].setTargets(b.x, targets)
	})
	if err != nil {
		return err
	}
	for _, u := range b.units {
		u.targets = u.posterior().targets
	}
	const chunk = 2048 // the rows' projections: chunk × d floats a unit
	for lo := 0; lo < n; lo += chunk {
		if err := b.solve(b.heap[lo:min(lo+chunk, n)]); err != nil {
			return err
		}
	}
	return nil
}

// choose picks k rows greedily and returns them with their scores at the time of choice.
// A row at the top of the heap whose score is exact and up to date with the rows chosen so
// far is the greedy choice: every other row's score is at most its bound, which is at most
// this one's. Otherwise the top rows' bounds are tightened or their scores brought up to
// date, and they go back.
func (b *batchQuery) choose(k int) (rows []int, scores []float64, err error) {
	for len(rows) < k {
		top := b.heap[0]
		if top.level == b.levels && top.fresh == b.chosen {
			heap.Pop(&b.heap)
			if err := b.include(top.row); err != nil {
				return nil, nil, err
			}
			rows, scores = append(rows, top.row), append(scores, top.score)
			continue
		}
		size := refreshBatch
		if top.level < b.levels-1 {
			size = tightenBatch
		}
		var tighten, solve []bound
		for len(tighten)+len(solve) < size && len(b.heap) > 0 {
			e := heap.Pop(&b.heap).(bound)
			if e.level < b.levels-1 {
				tighten = append(tighten, e)
			} else {
				solve = append(solve, e)
			}
		}
		if err := b.tighten(tighten); err != nil {
			return nil, nil, err
		}
		if err := b.solve(solve); err != nil {
			return nil, nil, err
		}
		for _, e := range slices.Concat(tighten, solve) {
			heap.Push(&b.heap, e)
		}
	}
	return rows, scores, nil
}

// tighten takes each row's variance bounds to the next level's rank and rescores it.
func (b *batchQuery) tighten(batch []bound) error {
	slices.SortFunc(batch, func(p, q bound) int { return p.level - q.level })
	for lo := 0; lo < len(batch); {
		level := batch[lo].level + 1
		hi := lo + 1
		for hi < len(batch) && batch[hi].level+1 == level {
			hi++
		}
		group := batch[lo:hi]
		rows := boundRows(group)
		chunks := (len(rows) + refreshBatch - 1) / refreshBatch
		err := pool.ForEachErr(len(b.units)*chunks, b.workers, func(t int) error {
			u, c := t/chunks, t%chunks
			if b.units[u].leader != nil { // its variances are its leader's
				return nil
			}
			return b.units[u].tighten(b.x, rows[c*refreshBatch:min((c+1)*refreshBatch,
				len(rows))], level)
		})
		if err != nil {
			return err
		}
		for i := range group {
			group[i].level, group[i].score = level, 0
			for _, u := range b.units {
				r := group[i].row
				group[i].score += u.score(r, u.vs[r], nil, nil)
			}
		}
		lo = hi
	}
	return nil
}

// solve brings the rows' scores up to date with the rows chosen so far, exactly.
func (b *batchQuery) solve(batch []bound) error {
	if len(batch) == 0 {
		return nil
	}
	now, err := b.scores(boundRows(batch))
	if err != nil {
		return err
	}
	for i := range batch {
		batch[i].score, batch[i].fresh, batch[i].level = now[i], b.chosen, b.levels
	}
	return nil
}

func boundRows(batch []bound) []int {
	rows := make([]int, len(batch))
	for i, e := range batch {
		rows[i] = e.row
	}
	return rows
}

// scores returns the rows' scores given the rows chosen so far, the units' work split over
// the workers.
func (b *batchQuery) scores(rows []int) ([]float64, error) {
	// Each chunk copies U's blocks once: as few chunks as keep the workers busy. Units that
	// share a leader's posterior solve nothing.
	leaders := 0
	for _, u := range b.units {
		if u.leader == nil {
			leaders++
		}
	}
	chunk := len(rows)
	if per := b.workers / leaders; per > 1 {
		chunk = max(16, (len(rows)+per-1)/per)
	}
	chunks := (len(rows) + chunk - 1) / chunk
	vs := make([][]float64, len(b.units))
	ws := make([][][]float64, len(b.units))
	covs := make([][]*mat.Dense, len(b.units))
	for u := range vs {
		vs[u], ws[u] = make([]float64, len(rows)), make([][]float64, len(rows))
		covs[u] = make([]*mat.Dense, chunks)
	}
	err := pool.ForEachErr(len(b.units)*chunks, b.workers, func(t int) error {
		u, c := t/chunks, t%chunks
		if b.units[u].leader != nil {
			return nil
		}
		lo, hi := c*chunk, min((c+1)*chunk, len(rows))
		cd, err := b.units[u].conditionalVars(b.x, rows[lo:hi], vs[u][lo:hi])
		if err != nil {
			return err
		}
		copy(ws[u][lo:hi], cd.ws)
		covs[u][c] = cd.covs
		return nil
	})
	if err != nil {
		return nil, err
	}
	for u, q := range b.units {
		if q.leader != nil { // a leader comes before its followers (projectedUnits)
			l := slices.Index(b.units, q.leader)
			vs[u], ws[u], covs[u] = vs[l], ws[l], covs[l]
		}
	}
	// The scores (EPIG's: 256 targets' entropies a row and unit) in chunks of their own, so
	// that they use every core however few the solves' chunks.
	out := make([]float64, len(rows))
	const scoreChunk = 64
	pool.ForEach((len(rows)+scoreChunk-1)/scoreChunk, b.workers, func(sc int) {
		for i := sc * scoreChunk; i < min((sc+1)*scoreChunk, len(rows)); i++ {
			c := i / chunk
			for u, q := range b.units {
				var cov []float64
				if covs[u][c] != nil {
					cov = covs[u][c].RawRowView(i - c*chunk)
				}
				out[i] += q.score(rows[i], vs[u][i], ws[u][i], cov)
			}
		}
	})
	return out, nil
}

// include updates every unit as if row r were included.
func (b *batchQuery) include(r int) error {
	err := pool.ForEachErr(len(b.units), b.workers, func(u int) error {
		if b.units[u].leader != nil {
			return nil
		}
		return b.units[u].include(b.x, r)
	})
	b.chosen++
	return err
}

// bound is a pool row in the heap: an upper bound on its score, from the units' variance
// bounds at level (queryUnit.ranks) below batchQuery.levels, and at that level exact when
// fresh is the number of rows chosen so far.
type bound struct {
	row          int
	score        float64
	level, fresh int
}

// boundHeap is a max-heap of bounds, ties to the lower row.
type boundHeap []bound

func (h boundHeap) Len() int { return len(h) }
func (h boundHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score || math.IsNaN(h[j].score)
	}
	return h[i].row < h[j].row
}
func (h boundHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *boundHeap) Push(v any)   { *h = append(*h, v.(bound)) }
func (h *boundHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
