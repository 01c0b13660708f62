// Package search chooses an IVM's kernel the way ivm.Fit does by default for binary,
// multi-class and regression tasks: a search on the predictive likelihood of held-out
// training rows, which also chooses the input scaling, the selection criterion and the
// calibration of the reported probabilities. (Regression tasks small enough for every row
// to be active are the exception: there the IVM is the exact GP, and its marginal
// likelihood chooses the kernel; see package exactgp.)
//
// Why not Algorithm 2 by default. Measured on public and hidden sets (bench/RESULTS.md),
// Algorithm 2 with its evidence objective cost many times libsvm's whole grid-search recipe
// (8 outer iterations of up to 100 optimiser steps, each an EP run on the active set, and
// one such learning per one-vs-rest class), and on image data it learnt kernels that were
// too smooth: the evidence of an active set chosen for being informative is not the
// predictive quality of the model that set gives. What users judge is that predictive
// quality — accuracy and the log loss of the probabilities — so the search scores a kernel
// by exactly that: the mean −ln p(y_n | model) over validation rows drawn at random before
// any selection (so no selection bias), with the model selected by Algorithm 1 on the rest.
// One kernel is shared by all one-vs-rest classes and scored on their combined
// probabilities, so multi-class costs one search, not one per class.
//
// The search is a coordinate search in log space over the rbf width γ, the rbf variance
// (the latent scale: how confident the probit can be, or the signal-to-noise ratio in
// regression) and, for regression, the white-noise variance. Each step multiplies one
// parameter by a factor while that lowers the score, then tries a finer factor. The
// selection criterion (entropy or expected entropy) is chosen the same way at the end:
// neither wins across data sets (bench/RESULTS.md), the held-out score decides per data set.
package search

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
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

// Search sizes: the training rows are dealt into searchFolds stratified folds (two where
// three would cost too much, searchCVFlops). Up to searchCVRows rows, every fold is
// validated once with the model selected from the others (cross-validation: on small sets
// one split's score is too noisy to rank kernels by), with the same fraction of its rows
// active as the final model will have; above, only the first fold is, from at most
// searchMaxFit of the other rows with at most searchMaxD active points and at most
// searchMaxVal of its own rows, so the search's cost stops growing with N and d: on large
// sets the final selection is what costs.
const (
	searchFolds  = 3
	searchCVRows = 2000
	// searchCVFlops is the cost (problems × rows × d_search², about the flops of one
	// kernel's selections) above which the cross-validation uses two folds instead of
	// three, at half the cost and the same accuracy; on small sets three folds are cheap and
	// their steadier score is worth it (measured on vowel and sonar in bench/RESULTS.md).
	searchCVFlops = 5e7
	searchMaxVal  = 1000
	searchMaxFit  = 3000
	searchMaxD    = 200
	// Tol is the least fall in the mean held-out −ln p per row that moves the search:
	// smaller differences are below what a few hundred validation rows can resolve.
	Tol = 1e-4
	// searchMaxEvals bounds the kernels the pattern search scores (about 18 are usual; a
	// long ridge of nearly equal scores would otherwise be followed at full cost).
	searchMaxEvals = 24
	// searchMaxVariance bounds a classifier's rbf variance, the prior variance of its probit
	// latent. Above it the latent is a few tens at most rows, Φ of which says only that
	// the classes are separable, and a small set's held-out rows cannot show that: where
	// they happen to be separable the search climbs to a near-linear kernel that gives test
	// rows of the other class almost no probability (iris; bench/RESULTS.md, "Twelfth pass").
	searchMaxVariance = 100
)

// searchParams are the kernel parameters the search moves (natural values).
type searchParams struct {
	gamma, variance, white float64
	crit                   engine.Criterion
}

// spec writes the kernel rbf(γ, variance)+bias+white(white).
func (p searchParams) spec() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	return "rbf(gamma=" + f(p.gamma) + ",variance=" + f(p.variance) + ")+bias+white(variance=" +
		f(p.white) + ")"
}

// searcher scores kernels for one task on fixed folds of its training rows.
type searcher struct {
	regression bool
	folds      []searchFold
	// the folds the rows were dealt into: len(folds) for cross-validation, more for one held-out fold
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

// Task is what a search's models predict.
type Task struct {
	// Regression marks real targets (Gaussian noise); otherwise the task is classification
	// (probit noise).
	Regression bool
	// Classes are a classification task's labels in ascending order: two for one binary
	// problem, more for one problem per class against the rest (one-vs-rest).
	Classes []float64
}

// Options configures a search. Its zero value means the defaults.
type Options struct {
	// Seed seeds the random streams that deal the rows into folds and draw the rows the
	// folds use.
	Seed uint64
	// Workers bounds the goroutines (0: all cores).
	Workers int
	// ZeroBias starts the probit models' bias at 0 (noise.Probit.ZeroBias).
	ZeroBias bool
	// Criterion is the selection criterion the search starts from (the zero value is
	// engine.Entropy); with ChooseCriterion it also tries the other one, where not every
	// row is active.
	Criterion       engine.Criterion
	ChooseCriterion bool
	// ActiveSizeGiven says the final model's active set size was asked for: a
	// classification search whose models leave nothing to gain (FlatLoss) then does not
	// shrink it to the size it scored kernels at.
	ActiveSizeGiven bool
	// Candidates returns how many of n training rows a final selection of d active points
	// chooses from where its size was not given (ivm.SearchCandidates); nil means all of
	// them. It prices the fits of finalSize.
	Candidates func(n, d int) int
	// Trace, when set, receives a line for every kernel the search scores and for each of
	// its choices, for diagnosing what it chose.
	Trace io.Writer
	// Progress, when set, receives a report for every kernel the search scores.
	Progress func(Report)
}

// Report is the search's progress: a kernel it scored.
type Report struct {
	// Evals counts the kernels scored so far; Kernel is the last one (spec, scaling and
	// criterion) and Score its mean held-out −ln p(y) per row.
	Evals  int
	Kernel string
	Score  float64
	// Prior is the constant predictor's held-out −ln p(y) per row on the same rows (the
	// class frequencies; for regression the targets' mean and variance), the score a
	// kernel must beat; 0 where not measured.
	Prior float64
}

// Result is what the search chose.
type Result struct {
	// Spec is the kernel, for the targets as given, and Criterion the selection criterion.
	Spec      string
	Criterion engine.Criterion
	// Scaler is the chosen scaling of the inputs, one of those given to Kernel.
	Scaler *dataset.Scaler
	// Sharpness, LabelNoise and Softmax calibrate the final model's probabilities (or its
	// regression's predictive variances), as the ivm.Predictor fields of the same names.
	Sharpness, LabelNoise float64
	Softmax               bool
	// Score is the kernel's held-out −ln p(y) per row as the search scored it (at the least
	// label noise and its best sharpness), before any final-size move.
	Score float64
	// ActiveSize is the final model's active set size: the one asked for, or the search's
	// where its models leave nothing to gain (FlatLoss).
	ActiveSize int
	// Baseline compares the calibrated model's validation loss with the constant
	// predictor's.
	Baseline *calib.Baseline
}

// FlatLoss is the held-out −ln p(y) per row below which a classification search keeps the
// final model at the size it scored kernels at (ivm.DefaultActiveSize) instead of growing
// it (ivm.SearchActiveSize): its models already give nearly every held-out row its label
// confidently (a row at the least label noise costs 0.0005), and a larger model can lower
// the loss by at most what is left, while its selection costs up to the bound of
// ivm.SearchActiveSize whatever the problem's difficulty, while on near-separable data
// libsvm's whole recipe is cheap (measured on the space shuttle's radiator data in
// bench/RESULTS.md).
const FlatLoss = 0.01

// Kernel chooses the kernel, the criterion and, among several candidate scalings of the
// inputs, the scaling for the targets y of a binary, multi-class or regression task,
// scoring kernels by models of d active points and calibrating the chosen one on models
// of dFinal. The search starts from criterion opt.Criterion and, with
// opt.ChooseCriterion, tries the other one at the end.
//
// Why the scaling is searched: standardising every input is right for inputs in unrelated
// units with heavy tails (breast cancer's areas and radii), and wrong for inputs that are
// mostly constant with rare large values (the edge pixels of digit images), whose rare
// values become tens of standard deviations and dominate every distance; scaling to the
// training range is the other way round. Each candidate is scored at three widths around
// its own starting width and the better one kept, which costs three kernels per candidate.
func Kernel(x mat.Matrix, scalers []*dataset.Scaler, y []float64, task Task, d, dFinal int,
	opt Options) (Result, error) {
	n, _ := x.Dims()
	var c *climb
	evals := 0
	for i, sc := range scalers {
		ci, err := startClimb(x, sc, i, y, task, d, opt, &evals)
		if err != nil {
			return Result{}, err
		}
		if c == nil || ci.best < c.best {
			c = ci
		}
	}
	chooseCrit := opt.ChooseCriterion && d < n
	if chooseCrit {
		if err := c.tryCriterion(); err != nil {
			return Result{}, err
		}
	}
	if err := c.pattern(task.Regression); err != nil {
		return Result{}, err
	}
	if chooseCrit {
		if err := c.tryCriterion(); err != nil {
			return Result{}, err
		}
	}
	if err := c.widenUnlessBeaten(y, task.Classes); err != nil {
		return Result{}, err
	}
	if !task.Regression && !opt.ActiveSizeGiven && c.best < FlatLoss && dFinal > d {
		if w := opt.Trace; w != nil {
			fmt.Fprintf(w, "search: held-out log loss %.5f below %g: final d = %d, not %d\n", c.best,
				FlatLoss, d, dFinal)
		}
		dFinal = d
	}
	return c.result(scalers, n, dFinal)
}

// startClimb scores the starting kernel for the inputs scaled by sc, the i-th of the
// candidate scalings, and moves its width while that lowers the score. Its kernels are
// reported and counted in evals.
func startClimb(x mat.Matrix, sc *dataset.Scaler, i int, y []float64, task Task, d int,
	opt Options, evals *int) (*climb, error) {
	s, sd, err := newSearcher(x, sc, y, task, d, opt)
	if err != nil {
		return nil, err
	}
	s.report = func(p searchParams, d int, score, prior float64) {
		*evals++
		if opt.Progress != nil {
			at := ""
			if d > 0 {
				at = fmt.Sprintf(" at %d active points", d)
			}
			opt.Progress(Report{Evals: *evals, Kernel: fmt.Sprintf("%s, %v scaling, %v criterion%s",
				p.spec(), sc.Method(), p.crit, at), Score: score, Prior: prior})
		}
	}
	c := &climb{s: s, sd: sd, input: i, evals: evals, origin: searchParams{gamma: StartGamma(x, sc),
		variance: 1, white: math.Exp(-2)}}
	if task.Regression {
		// half the (standardised) target variance: overfitting is the costlier start
		c.origin.white = 0.5
	}
	c.p = c.origin
	c.p.crit = opt.Criterion
	if c.best, err = s.score(c.p); err != nil {
		return nil, err
	}
	if err := c.line(0, 4); err != nil {
		return nil, err
	}
	return c, nil
}

// result calibrates the kernel the climb c found, on models of the final model's size
// dFinal (of n rows) where that differs from the ones scored, and writes it for the
// targets as given.
func (c *climb) result(scalers []*dataset.Scaler, n, dFinal int) (Result, error) {
	out, cal := c.s.outs[c.p], c.s
	if folds := c.s.foldsAt(dFinal, n); folds[0].d != c.s.folds[0].d {
		// The final model is larger than the ones scored, and more confident: calibrate
		// on models of its size.
		var err error
		pool := n
		if opt := c.s.opt; !opt.ActiveSizeGiven && opt.Candidates != nil {
			pool = opt.Candidates(n, dFinal)
		}
		if cal, out, err = c.s.finalSize(c, folds,
			float64(dFinal)*float64(dFinal)*float64(pool)); err != nil {
			return Result{}, err
		}
	}
	m := cal.calibration(out)
	res := Result{Criterion: c.p.crit, Scaler: scalers[c.input], Sharpness: m.a, LabelNoise: m.eps,
		Softmax: m.softmax, Score: c.best, ActiveSize: dFinal}
	res.Baseline = calib.NewBaseline(cal.rowLosses(out, m), cal.priorLosses())
	p := c.p
	p.variance *= c.sd * c.sd
	p.white *= c.sd * c.sd
	res.Spec = p.spec()
	return res, nil
}

// finalSize returns the validation outputs of the chosen kernel fitted on folds, the
// search's folds at the final model's size, and the searcher whose validation rows they
// are (for the calibration). Where the search scored small models of a subsample (above
// searchCVRows rows: at most searchMaxD active points of searchMaxFit rows) and the final
// model is much larger, it climbs towards sharper kernels at that size: it fits a sharper
// neighbour (γ·2 with variance·4, else variance·2) and moves there, in c.p, when its
// held-out log loss is lower by more than the standard error of the rows' paired
// differences (a gain below it is what another held-out sample could reverse). A model of
// 200 active points cannot carry the narrow, confident kernel that one of 1 200 can, and
// how far the small models' choice lies from the large one's varies with the subsample the
// search drew (measured on Fashion-MNIST in bench/RESULTS.md). The neighbours fitted cost
// at most half the final selection, finalCost (d²·candidates), and at least one is fitted.
// On large sets the validation rows are more than the search's (finalValRows).
func (s *searcher) finalSize(c *climb, folds []searchFold, finalCost float64) (*searcher,
	[][2][]float64, error) {
	if len(folds) > 1 || s.regression || folds[0].d < 2*s.folds[0].d {
		out, err := s.outputs(folds, c.p)
		return s, out, err
	}
	fs := s.withFinalVal(folds)
	out, err := fs.outputs(fs.folds, c.p)
	if err != nil {
		return nil, nil, err
	}
	eps := LabelNoise[0]
	losses := func(out [][2][]float64) []float64 {
		return fs.rowLosses(out, probMap{a: fs.sharpness(out, eps, false), eps: eps})
	}
	cur := losses(out)
	fs.reportFinal(c.p, cur)
	nFit, _ := folds[0].xFit.Dims()
	fits := max(1, int(finalCost/2/(float64(folds[0].d)*float64(folds[0].d)*float64(nFit))))
	for moved := true; moved && fits > 0; {
		moved = false
		for _, grow := range []float64{4, 2} {
			if fits == 0 {
				break
			}
			q := c.p
			q.gamma, q.variance = 2*q.gamma, grow*q.variance
			if q.variance > searchMaxVariance {
				continue
			}
			fits--
			alt, err := fs.outputs(fs.folds, q)
			if err != nil {
				return nil, nil, err
			}
			next := losses(alt)
			fs.reportFinal(q, next)
			gain, se := calib.PairedGain(cur, next)
			if w := s.opt.Trace; w != nil {
				fmt.Fprintf(w,
					"search: final size d = %d, %d validation rows: %s → %s lowers the held-out log loss by "+
						"%.5f ± %.5f\n", folds[0].d, len(cur), c.p.spec(), q.spec(), gain, se)
			}
			if gain > se {
				c.p, out, cur, moved = q, alt, next, true
				break
			}
		}
	}
	return fs, out, nil
}

// reportFinal reports a kernel finalSize fitted, with its validation rows' losses, as a
// step of the search: it takes as long as several of the search's.
func (s *searcher) reportFinal(p searchParams, losses []float64) {
	if s.report != nil {
		s.report(p, s.folds[0].d, stat.Mean(losses, nil), s.priorMean())
	}
}

// withFinalVal returns a copy of s that validates folds on its rows and the extra
// validation rows newSearcher kept for finalSize.
func (s *searcher) withFinalVal(folds []searchFold) *searcher {
	fs := *s
	fs.folds = slices.Clone(folds)
	if s.xValExtra != nil {
		var v mat.Dense
		v.Stack(folds[0].xVal, s.xValExtra)
		fs.folds[0].xVal = &v
		fs.valClass = append(slices.Clone(s.valClass), s.valClassExtra...)
	}
	return &fs
}

// finalValRows is how many validation rows finalSize uses on one held-out fold of n
// training rows: the search's searchMaxVal, up to n/12 on large sets. The kernels it
// compares differ by a few thousandths of a nat per row, which 1 000 rows do not resolve
// (Fashion-MNIST, 60 000 images: 0.0061 ± 0.0079), and their fits cost as much as the
// search's whole climb there, so more validation rows cost little in proportion.
func finalValRows(n int) int { return max(searchMaxVal, n/12) }

// StartGamma is the rbf width the search starts from: 1/(D·v̄) for D inputs of mean
// variance v̄ once x is scaled by sc (scikit-learn's gamma="scale"), which puts a typical
// kernel value near e⁻¹ whatever the scaling.
func StartGamma(x mat.Matrix, sc *dataset.Scaler) float64 {
	n, dim := x.Dims()
	total := 0.0
	col := make([]float64, n)
	for j := 0; j < dim; j++ {
		mat.Col(col, j, x)
		f := 1.0
		if sc != nil {
			f = sc.Factor[j] // the scaled column is (x − shift)·factor
		}
		total += stat.Variance(col, nil) * f * f
	}
	if !(total > 0) {
		return 1 / float64(max(dim, 1))
	}
	return 1 / total
}

// climb is a search in progress on a lattice of kernels: each parameter is its value at the
// origin times √2 to an integer power, so a kernel reached twice by different moves is
// the same kernel, scored once.
type climb struct {
	s      *searcher
	sd     float64 // the regression targets' scale
	input  int
	evals  *int // kernels scored so far by every climb of the search
	origin searchParams
	at     [3]int // the exponents of √2 of (γ, rbf variance, white variance) at p
	p      searchParams
	best   float64
}

// params returns the kernel at lattice point at under criterion crit.
func (c *climb) params(at [3]int, crit engine.Criterion) searchParams {
	f := func(v float64, k int) float64 { return v * math.Exp2(float64(k)/2) }
	return searchParams{gamma: f(c.origin.gamma, at[0]), variance: f(c.origin.variance, at[1]),
		white: f(c.origin.white, at[2]), crit: crit}
}

// try scores the kernel at lattice point at under crit and moves there if that lowers the
// score.
func (c *climb) try(at [3]int, crit engine.Criterion) (bool, error) {
	q := c.params(at, crit)
	if !c.s.regression && q.variance > searchMaxVariance {
		return false, nil
	}
	v, err := c.s.score(q)
	if err != nil || !(v < c.best-Tol) {
		return false, err
	}
	c.at, c.p, c.best = at, q, v
	return true, nil
}

// line moves parameter k by step lattice units up, then down, for as long as that lowers
// the score.
func (c *climb) line(k, step int) error {
	for _, dir := range []int{step, -step} {
		for range 6 {
			at := c.at
			at[k] += dir
			if ok, err := c.try(at, c.p.crit); err != nil || !ok {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// tryCriterion scores the current kernel under the other selection criterion and keeps
// the better. Done before the pattern search as well as after it, because the criterion
// moves the best kernel: on many-class data the entropy criterion's best is far from the
// expected criterion's, and a search under the worse one ends in the wrong region.
func (c *climb) tryCriterion() error {
	_, err := c.try(c.at, engine.Entropy+engine.ExpectedEntropy-c.p.crit)
	return err
}

// searchDirs are the pattern search's moves on the lattice of (γ, rbf variance, white
// variance). The diagonal moves follow the ridge on which a wider kernel with a larger
// variance fits about as well (γ/f with variance·f²): along it a search by one parameter
// at a time stalls after a step or two.
var searchDirs = [][3]int{{0, 1, 0}, {-1, 2, 0}, {1, 0, 0}, {-1, 0, 0}, {0, -1, 0}, {1, -2, 0}, {
	0, 0, 1}, {0, 0, -1}}

// pattern is a pattern search on the lattice: from the best point it takes the first move of
// searchDirs (the last successful one first) that lowers the score, and halves the step when none
// does, from a factor 4 down to 2, or until searchMaxEvals kernels are scored (finer steps moved
// the held-out score by less than its noise between folds). The white variance moves for regression
// only: for classification it is the probit's slope, which the rbf variance already sets.
func (c *climb) pattern(regression bool) error {
	dirs := searchDirs[:6]
	if regression {
		dirs = searchDirs
	}
	last := -1
	for step := 4; step >= 2 && *c.evals < searchMaxEvals; {
		moved := false
		for i := -1; i < len(dirs) && !moved; i++ {
			k := i
			if i == -1 {
				k = last
			}
			if k < 0 || (i >= 0 && i == last) {
				continue
			}
			at := c.at
			for j := range at {
				at[j] += step * dirs[k][j]
			}
			ok, err := c.try(at, c.p.crit)
			if err != nil {
				return err
			}
			if ok {
				last, moved = k, true
			}
		}
		if !moved {
			step /= 2
			last = -1
		}
	}
	return nil
}

// widenSteps are the moves widenUnlessBeaten tries on the lattice (γ, rbf variance): kernels
// 16 and 256 times wider, at the same variance and four times it.
var widenSteps = [][3]int{{-8, 0, 0}, {-8, 4, 0}, {-16, 0, 0}, {-16, 4, 0}}

// widenUnlessBeaten tries much wider kernels when the best one found does not beat the
// constant predictor on the search's validation rows: a weak, smooth effect of tabular
// inputs lies far from a start set by the inputs' spread, where a search by small steps
// from it cannot reach.
func (c *climb) widenUnlessBeaten(y, classes []float64) error {
	out, ok := c.s.outs[c.p]
	if !ok { // scored by a test's scoreFunc
		return nil
	}
	eps := LabelNoise[0]
	losses := c.s.rowLosses(out, probMap{a: c.s.sharpness(out, eps, false), eps: eps})
	b := calib.NewBaseline(losses, c.s.priorLosses())
	if w := c.s.opt.Trace; w != nil {
		fmt.Fprintf(w, "search: best %.5f, constant predictor %.5f ± %.5f\n", b.Model, b.Prior,
			b.SE)
	}
	if b.Beaten() {
		return nil
	}
	from := c.at
	for _, w := range widenSteps {
		at := from
		for j := range at {
			at[j] += w[j]
		}
		if _, err := c.try(at, c.p.crit); err != nil {
			return err
		}
	}
	return nil
}

// priorLosses returns the constant predictor's −ln p(y) of each of s's validation rows:
// the class frequencies (priorFreq), or for regression a standard normal (the validation
// targets are standardised by y's mean and standard deviation).
func (s *searcher) priorLosses() []float64 {
	if s.regression {
		return calib.GaussPriorLosses(s.yVal, 0, 1)
	}
	out := make([]float64, len(s.valClass))
	for i, c := range s.valClass {
		out[i] = -math.Log(s.priorFreq[c])
	}
	return out
}

// priorMean is the mean of priorLosses, for the progress reports (0 without rows).
func (s *searcher) priorMean() float64 {
	if l := s.priorLosses(); len(l) > 0 {
		return stat.Mean(l, nil)
	}
	return 0
}

// CheckRows refuses to choose a kernel from fewer rows than two per fold.
func CheckRows(n int) error {
	if n < 2*searchFolds {
		return fmt.Errorf(
			"ivm: %d training rows are too few to choose a kernel; give one with -kernel and -iters 0", n)
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
	// confident held-out mistake costs up to 27 nats and decides between kernels that
	// differ in nothing else (ionosphere; bench/RESULTS.md); the final model never reports a
	// probability that small.
	eps := LabelNoise[0]
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

// probMap is how a predictor turns its models' outputs into probabilities: ivm.Predictor's
// Sharpness (a), LabelNoise (eps) and Softmax.
type probMap struct {
	a, eps  float64
	softmax bool
}

// logLoss returns the mean −ln p(y_n) of the validation outputs out with the class
// probabilities (regression: densities) made as cal says.
func (s *searcher) logLoss(out [][2][]float64, cal probMap) float64 {
	return calib.MeanLoss(s.rowLosses(out, cal))
}

// rowLosses returns −ln p(y_n) of each validation row (see logLoss).
func (s *searcher) rowLosses(out [][2][]float64, cal probMap) []float64 {
	var logs []float64
	if !s.regression && !cal.softmax {
		logs = s.powerLogs(out)
	}
	return s.lossesFrom(out, logs, cal)
}

// powerLogs returns ln q_c of every validation row's class probabilities q before
// calibration (binary: 1 − q and q), max(len(out), 2) per row: the power family's
// p_c ∝ q_c^a works on them, and the calibration tries some sixteen values of a per label
// noise on the same outputs.
func (s *searcher) powerLogs(out [][2][]float64) []float64 {
	problems := len(out)
	k := max(problems, 2)
	logs := make([]float64, len(s.valClass)*k)
	for i := range s.valClass {
		row := logs[i*k : (i+1)*k]
		if problems == 1 {
			row[0], row[1] = math.Log(1-out[0][0][i]), math.Log(out[0][0][i])
			continue
		}
		for c := range out {
			row[c] = math.Log(out[c][0][i])
		}
	}
	return logs
}

// lossesFrom is rowLosses with the power family's logarithms logs (powerLogs; unused for
// regression and the softmax).
func (s *searcher) lossesFrom(out [][2][]float64, logs []float64, cal probMap) []float64 {
	if s.regression {
		mu, vs := out[0][0], out[0][1]
		losses := make([]float64, len(s.yVal))
		for i, y := range s.yVal {
			v := vs[i] / cal.a
			losses[i] = 0.5*math.Log(2*math.Pi*v) + (y-mu[i])*(y-mu[i])/(2*v)
		}
		return losses
	}
	k := max(len(out), 2)
	losses := make([]float64, len(s.valClass))
	q := make([]float64, k)
	for i, class := range s.valClass {
		if cal.softmax {
			for c := range out {
				q[c] = out[c][1][i]
			}
			calib.Softmax(q, cal.a)
		} else {
			calib.SharpenLogs(q, logs[i*k:(i+1)*k], cal.a)
		}
		calib.MixUniform(q, cal.eps)
		losses[i] = -math.Log(math.Max(q[class], 1e-12))
	}
	return losses
}

// sharpness returns the exponent a that minimises the validation log loss of the class
// probabilities made from the validation outputs out: p_c ∝ q_c^a, or with softmax
// p_c ∝ exp(a·z_c) (1 for regression). A kernel is scored at its own best a, so the
// search prefers the kernel whose probabilities calibrate best, not the one that happens
// to be calibrated at a = 1.
func (s *searcher) sharpness(out [][2][]float64, eps float64, softmax bool) float64 {
	lo, hi := math.Log(0.5), math.Log(4)
	var logs []float64
	switch {
	case s.regression:
		lo, hi = math.Log(0.25), math.Log(2)
	case softmax:
		lo, hi = math.Log(0.25), math.Log(16)
	default:
		logs = s.powerLogs(out)
	}
	f := func(la float64) float64 {
		cal := probMap{a: math.Exp(la), eps: eps, softmax: softmax}
		return calib.MeanLoss(s.lossesFrom(out, logs, cal))
	}
	return math.Exp(calib.GoldenMin(f, lo, hi, 1e-3))
}

// LabelNoise are the label noise levels calibration chooses from. The least is not
// 0: a held-out set of a few hundred or thousand rows cannot show that a class is
// impossible, and a probability of 0 (or 10⁻³⁰, after sharpening) makes one mistake cost
// without bound (oil flow: three test rows at p = 0 were 0.04 of the 0.06 log loss).
// Where the model is never wrong, 0.001 costs −ln(1 − 0.001) ≈ 0.001 per row.
var LabelNoise = []float64{0.001, 0.003, 0.01, 0.03}

// calibration returns the calibration for the validation outputs out: for regression the
// sharpness; for classification the sharpness and label noise that minimise the
// validation log loss, and for one-vs-rest multi-class the family too (ivm.Predictor.Softmax).
// The kernels are scored at the least label noise (score), as the final model reports them
// at least.
//
// One-vs-rest takes the softmax unless the power family's validation log loss is lower by
// more than twice its standard error. The validation models are smaller than the final
// one, and on the test rows of every large set measured the softmax did better
// (bench/RESULTS.md, "Fifth pass": USPS, letter, Fashion-MNIST
// 10 000 and 60 000 images, 0.003–0.05 per row), even where 1 000 validation rows had
// preferred the power (Fashion-MNIST 10 000: by 0.010 ± 0.006). On small sets with one-vs-rest
// asked for it was lower on 25 of 36 splits and higher on 8 (most on wine, where one
// confident mistake among 54 test rows costs 0.15); glass's validation rows preferred the
// power clearly (2.3–2.5 standard errors) on three splits of four, and kept it.
func (s *searcher) calibration(out [][2][]float64) probMap {
	if s.regression {
		return probMap{a: min(s.sharpness(out, 0, false), s.coveringSharpness(out))}
	}
	power := s.fitCalib(out, false)
	if len(out) == 1 {
		return power
	}
	soft := s.fitCalib(out, true)
	gain, se := calib.PairedGain(s.rowLosses(out, soft), s.rowLosses(out, power))
	if w := s.opt.Trace; w != nil {
		fmt.Fprintf(w,
			"search: calibration on %d rows: power %+v lowers the log loss of softmax %+v by %.5f ± %.5f\n",
			len(s.valClass), power, soft, gain, se)
	}
	if gain > 2*se {
		return power
	}
	return soft
}

// fitCalib returns the sharpness and label noise of the family softmax (or the power
// family) with the least validation log loss; a higher label noise only where it lowers
// the loss by more than Tol.
func (s *searcher) fitCalib(out [][2][]float64, softmax bool) probMap {
	var best probMap
	bestLoss := math.Inf(1)
	for _, e := range LabelNoise {
		c := probMap{a: s.sharpness(out, e, softmax), eps: e, softmax: softmax}
		if v := s.logLoss(out, c); v < bestLoss-Tol || math.IsInf(bestLoss, 1) {
			best, bestLoss = c, v
		}
	}
	return best
}

// coveringSharpness is the largest regression sharpness at which the 95 % intervals
// μ ± 1.96·√(v/a) still cover 95 % of the validation targets, with 90 % confidence: the
// density-optimal a of a Gaussian fitted to heavy-tailed residuals narrows the intervals
// until they miss more than they say (Boston: 90 % covered), and error bars that mean what
// they say come first.
func (s *searcher) coveringSharpness(out [][2][]float64) float64 {
	mu, vs := out[0][0], out[0][1]
	r := make([]float64, len(s.yVal))
	for i, y := range s.yVal {
		r[i] = (y - mu[i]) * (y - mu[i]) / vs[i]
	}
	q := calib.CoveringQuantile(r)
	if !(q > 0) {
		return math.Inf(1)
	}
	return 1.959963984540054 * 1.959963984540054 / q
}

// RegressionSharpness is the sharpness a of the predictive densities N(y; mu, v/a) at the
// standardised targets y, from predictive means mu and variances v of rows held out of the
// fit, as the search calibrates its regression kernels (see calibration).
func RegressionSharpness(y, mu, v []float64) float64 {
	s := &searcher{regression: true, yVal: y}
	return s.calibration([][2][]float64{{mu, v}}).a
}

// RegressionLoss is the mean −ln N(y; mu, v/a) of the standardised targets y under
// predictive means mu and variances v with sharpness a, as the search scores its
// regression kernels.
func RegressionLoss(y, mu, v []float64, a float64) float64 {
	s := &searcher{regression: true, yVal: y}
	return s.logLoss([][2][]float64{{mu, v}}, probMap{a: a})
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

// SelectActive selects d points, or includes them all when d is every training point.
func SelectActive(s *engine.Selector, d int) error {
	if d == s.NumPoints() {
		return s.IncludeAll()
	}
	return s.Select(d)
}
