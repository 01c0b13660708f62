package search

// The searcher: the training rows dealt into folds, and the models that a kernel selects from
// each fold's fitting rows and scores on its held-out rows.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// searcher scores kernels for one task on fixed folds of its training rows.
type searcher struct {
	regression bool
	folds      []searchFold
	// the folds the rows were dealt into: len(folds) for cross-validation, more for one
	// held-out fold
	nFolds   int
	valClass []int     // classification: the index in classes of each validation row's label
	yVal     []float64 // regression: the standardised validation targets
	workers  int
	opt      Options
	memo     map[searchParams]float64
	outs     map[searchParams][][2][]float64 // validation outputs of every kernel scored
	// report receives every kernel scored, with the active set size its models had when
	// that differs from the search's (finalSize; 0 otherwise).
	report func(p searchParams, d int, score, prior float64)
	// priorFreq holds the class frequencies the constant predictor says (priorLosses).
	priorFreq []float64
	// scoreFunc, when set, scores kernels in place of fitting them (the search's own tests).
	scoreFunc func(p searchParams) float64
	// xValExtra and valClassExtra are validation rows (scaled) and their classes that
	// only finalSize uses (see finalValRows).
	xValExtra     *mat.Dense
	valClassExtra []int
}

// searchFold is one validation fold: the rows the search selects from (targets per problem,
// in its noise model's coding), the validation rows and the active set size.
type searchFold struct {
	xFit, xVal *mat.Dense
	yFit       [][]float64
	d          int
	// inner is xFit's inner products, made when a selection first needs them and shared by
	// every kernel and problem fitted on the fold (nil where they would take too much
	// memory, searchInnerBytes).
	inner *lazyInner
}

// searchInnerBytes bounds the memory of a searcher's folds' inner products (kern.Inner):
// three folds of 2 000 rows take 64 MB, one of searchMaxFit rows 72 MB.
const searchInnerBytes = 96 << 20

// InnerMemory bounds the memory the default search's inner products take on n
// training rows (kern.Inner, besides the inputs): its folds hold the products of at most
// 4/3·n² + n pairs of rows (three folds of about two thirds of them), and none past
// searchInnerBytes.
func InnerMemory(n int) float64 {
	return min(searchInnerBytes, 8*(4.0/3*float64(n)*float64(n)+float64(n)))
}

// lazyInner makes the inner products of x's rows the first time they are asked for.
type lazyInner struct {
	once sync.Once
	x    *mat.Dense
	in   *kern.Inner
}

// get returns the inner products, or nil for a nil lazyInner.
func (l *lazyInner) get() *kern.Inner {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.in = kern.NewInner(l.x) })
	return l.in
}

// CheckRows refuses to choose a kernel from fewer rows than two per fold, the least the
// search can deal into folds; ivm.Fit asks it of the exact GP's small tasks as well.
func CheckRows(n int) error {
	if n < 2*searchFolds {
		return fmt.Errorf(
			"ivm: %d training rows are too few to choose a kernel; "+
				"give one with -kernel and -iters 0", n)
	}
	return nil
}

// newSearcher deals the rows of x into folds (stratified by class for classification) and
// scales the rows the folds use by sc. Regression targets are standardised; sd is their
// scale.
func newSearcher(x mat.Matrix, sc *dataset.Scaler, y []float64, task Task, d int,
	opt Options) (*searcher, float64, error) {
	n, _ := x.Dims()
	if err := CheckRows(n); err != nil {
		return nil, 0, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5ea7c4))
	s := &searcher{regression: task.Regression, opt: opt, memo: map[searchParams]float64{},
		outs: map[searchParams][][2][]float64{}}
	s.workers = opt.Workers
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	yc, sd, err := searchTargets(y, task)
	if err != nil {
		return nil, 0, err
	}
	if !task.Regression {
		s.priorFreq = calib.ClassPriors(subset.ClassIndices(y, task.Classes),
			max(len(task.Classes), 2))
	}
	folds := searchFolds
	if n <= searchCVRows && float64(len(yc))*float64(n)*math.Pow(float64(d*(folds-1)/folds),
		2) > searchCVFlops {
		folds = 2
	}
	s.nFolds = folds
	used, dSearch := folds, d
	if n <= searchCVRows {
		// Cross-validation selects from all rows but a fold's: the same fraction of them
		// is active as in the final model.
		dSearch = max(1, d*(folds-1)/folds)
	} else {
		used, dSearch = 1, min(d, searchMaxD)
	}
	assign := dealFolds(y, !task.Regression, folds, rng)
	for f := 0; f < used; f++ {
		var val, fit []int
		for i, a := range assign {
			if a == f {
				val = append(val, i)
			} else {
				fit = append(fit, i)
			}
		}
		all := slices.Clone(val)
		val, fit = subset.Sample(val, searchMaxVal, rng), subset.Sample(fit, searchMaxFit, rng)
		if used == 1 && !task.Regression {
			if err := s.keepFinalVal(x, sc, y, task.Classes, all, val, finalValRows(n),
				opt.Seed); err != nil {
				return nil, 0, err
			}
		}
		fd := searchFold{d: min(dSearch, len(fit)), yFit: make([][]float64, len(yc))}
		if fd.xFit, err = subset.Scaled(x, sc, fit); err != nil {
			return nil, 0, err
		}
		if fd.xVal, err = subset.Scaled(x, sc, val); err != nil {
			return nil, 0, err
		}
		if d == n {
			fd.d = len(fit) // the final model is a full one: score full ones
		}
		for c := range yc {
			fd.yFit[c] = make([]float64, len(fit))
			for i, r := range fit {
				fd.yFit[c][i] = yc[c][r]
			}
		}
		for _, r := range val {
			if task.Regression {
				s.yVal = append(s.yVal, yc[0][r])
			} else {
				k, _ := slices.BinarySearch(task.Classes, y[r])
				s.valClass = append(s.valClass, k)
			}
		}
		s.folds = append(s.folds, fd)
	}
	innerBytes := 0.0
	for _, fd := range s.folds {
		innerBytes += kern.InnerBytes(fd.xFit.RawMatrix().Rows)
	}
	if innerBytes <= searchInnerBytes {
		for i := range s.folds {
			s.folds[i].inner = &lazyInner{x: s.folds[i].xFit}
		}
	}
	return s, sd, nil
}

// keepFinalVal keeps for finalSize more of the validation fold's rows (all) besides the
// search's own (val), up to total in all, drawn by their own generator so that the
// search's rows are those it would draw without them.
func (s *searcher) keepFinalVal(x mat.Matrix, sc *dataset.Scaler, y, classes []float64,
	all, val []int, total int, seed uint64) error {
	more := min(len(all), total) - len(val)
	if more <= 0 {
		return nil
	}
	rest := slices.DeleteFunc(all, func(r int) bool {
		_, in := slices.BinarySearch(val, r)
		return in
	})
	rest = subset.Sample(rest, more, rand.New(rand.NewPCG(seed, 0xf17a1)))
	var err error
	if s.xValExtra, err = subset.Scaled(x, sc, rest); err != nil {
		return err
	}
	for _, r := range rest {
		k, _ := slices.BinarySearch(classes, y[r])
		s.valClassExtra = append(s.valClassExtra, k)
	}
	return nil
}

// dealFolds assigns every row a fold in [0, folds): with stratify, each class's rows
// in random order are dealt in turn, so every fold has its share of every class.
func dealFolds(y []float64, stratify bool, folds int, rng *rand.Rand) []int {
	groups := map[float64][]int{}
	for i, v := range y {
		key := 0.0
		if stratify {
			key = v
		}
		groups[key] = append(groups[key], i)
	}
	keys := make([]float64, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	assign := make([]int, len(y))
	next := 0
	for _, k := range keys {
		g := groups[k]
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		for _, r := range g {
			assign[r] = next % folds
			next++
		}
	}
	return assign
}

// searchTargets returns every problem's targets in its noise model's coding; regression
// targets are standardised, with sd their scale.
func searchTargets(y []float64, task Task) (yc [][]float64, sd float64, err error) {
	if task.Regression {
		mean, sd := stat.MeanStdDev(y, nil)
		if !(sd > 0) {
			return nil, 0, errors.New("ivm: every target is the same: nothing to regress")
		}
		z := make([]float64, len(y))
		for i, v := range y {
			z[i] = (v - mean) / sd
		}
		return [][]float64{z}, sd, nil
	}
	classes := task.Classes
	problems := 1
	if len(classes) > 2 {
		problems = len(classes)
	}
	yc = make([][]float64, problems)
	for c := range yc {
		pos := classes[len(classes)-1]
		if problems > 1 {
			pos = classes[c]
		}
		yc[c] = codeLabels(y, pos)
	}
	return yc, 1, nil
}

// codeLabels returns the labels y in the probit model's coding: +1 for class pos, −1 for
// the others.
func codeLabels(y []float64, pos float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = -1
		if v == pos {
			out[i] = 1
		}
	}
	return out
}

// score returns the mean −ln p(y_n) over the validation rows of the model the kernel p
// selects from the fitting rows.
func (s *searcher) score(p searchParams) (float64, error) {
	if v, ok := s.memo[p]; ok {
		return v, nil
	}
	if s.scoreFunc != nil {
		s.memo[p] = s.scoreFunc(p)
		return s.memo[p], nil
	}
	out, err := s.outputs(s.folds, p)
	if err != nil {
		return 0, err
	}
	s.outs[p] = out
	// Scored with the least label noise the final model will have: without it one
	// confident held-out mistake costs tens of nats and decides between kernels that
	// differ in nothing else; the final model never reports a probability that small.
	eps := calib.LabelNoiseLevels[0]
	v := s.logLoss(out, probMap{a: s.sharpness(out, eps, false), eps: eps})
	s.memo[p] = v
	if w := s.opt.Trace; w != nil {
		fmt.Fprintf(w, "search: %s %v: %.5f\n", p.spec(), p.crit, v)
	}
	if s.report != nil {
		s.report(p, 0, v, s.priorMean())
	}
	return v, nil
}

// outputs fits every problem on every fold under kernel p and returns each problem's
// outputs over the validation rows of all folds, in fold order.
func (s *searcher) outputs(folds []searchFold, p searchParams) ([][2][]float64, error) {
	problems := len(folds[0].yFit)
	jobs := len(folds) * problems
	res := make([][2][]float64, jobs) // job f·problems + c
	errs := make([]error, jobs)
	parallel := min(jobs, s.workers)
	pool.ForEach(jobs, parallel, func(j int) {
		res[j][0], res[j][1], errs[j] = s.fitProblem(&folds[j/problems], j%problems, p,
			max(1, s.workers/parallel))
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([][2][]float64, problems)
	for j, r := range res {
		c := j % problems
		out[c][0] = append(out[c][0], r[0]...)
		out[c][1] = append(out[c][1], r[1]...)
	}
	return out, nil
}

// foldsAt returns the search's folds with the active set size a final model of d of the
// n rows would give them: under cross-validation the same fraction of the fitting rows,
// on one held-out fold the same number (a model's confidence follows how many active
// points support it, more than the rows they were chosen from).
func (s *searcher) foldsAt(d, n int) []searchFold {
	folds := slices.Clone(s.folds)
	for i := range folds {
		nFit, _ := folds[i].xFit.Dims()
		switch {
		case d == n:
			folds[i].d = nFit
		case len(folds) > 1:
			folds[i].d = min(nFit, max(1, d*(s.nFolds-1)/s.nFolds))
		default:
			folds[i].d = min(nFit, d)
		}
	}
	return folds
}

// fitProblem selects problem c's active set from the fitting rows under kernel p and
// returns, at the validation rows, p(y = +1) for classification, or the predictive mean
// and variance for regression. A kernel under which selection breaks down gives NaN, which
// scores +Inf, so the search moves away from it rather than failing.
func (s *searcher) fitProblem(fd *searchFold, c int, p searchParams, workers int) (a, b []float64,
	err error) {
	_, dim := fd.xFit.Dims()
	k, err := kern.Parse(p.spec(), dim)
	if err != nil {
		return nil, nil, err
	}
	name := "probit"
	if s.regression {
		name = "gaussian"
	}
	nm, err := noise.ByName(name)
	if err != nil {
		return nil, nil, err
	}
	if pm, ok := nm.(*noise.Probit); ok {
		pm.ZeroBias = s.opt.ZeroBias
	}
	nVal, _ := fd.xVal.Dims()
	a, b = make([]float64, nVal), make([]float64, nVal)
	sel, err := engine.NewSelector(fd.xFit, fd.yFit[c], k, nm, engine.Options{Workers: workers,
		Criterion: p.crit,
		Inner:     fd.inner.get()})
	if err == nil {
		err = SelectActive(sel, fd.d)
	}
	var m *engine.Model
	if err == nil {
		m, err = sel.Model()
	}
	if err != nil {
		for i := range a {
			a[i], b[i] = math.NaN(), math.NaN()
		}
		return a, b, nil
	}
	for i, pr := range m.Predict(fd.xVal) {
		if s.regression {
			a[i], b[i] = pr.Mean, pr.Var
		} else {
			a[i], b[i] = pr.Prob[1], calib.SoftmaxScore(pr.Mean, pr.Var)
		}
	}
	return a, b, nil
}

// SelectActive selects d points, or includes them all when d is every training point
// (engine.Selector.IncludeAll: greedy selection would only choose their order), as the
// search's models and ivm.Fit's final ones both do.
func SelectActive(s *engine.Selector, d int) error {
	if d == s.NumPoints() {
		return s.IncludeAll()
	}
	return s.Select(d)
}
