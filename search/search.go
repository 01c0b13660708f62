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
// neither wins across data sets, so the held-out score decides per data set.
package search

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
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
	// their steadier score is worth it.
	searchCVFlops = 5e7
	searchMaxVal  = 1000
	searchMaxFit  = 3000
	searchMaxD    = 200
	// searchMaxEvals bounds the kernels the pattern search scores (about 18 are usual; a
	// long ridge of nearly equal scores would otherwise be followed at full cost).
	searchMaxEvals = 24
	// searchMaxVariance bounds a classifier's rbf variance, the prior variance of its probit
	// latent. Above it the latent is a few tens at most rows, Φ of which says only that
	// the classes are separable, and a small set's held-out rows cannot show that: where
	// they happen to be separable the search climbs to a near-linear kernel that gives test
	// rows of the other class almost no probability.
	searchMaxVariance = 100
)

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
// libsvm's whole recipe is cheap.
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
			fmt.Fprintf(w, "search: held-out log loss %.5f below %g: final d = %d, not %d\n",
				c.best, FlatLoss, d, dFinal)
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
			for i, v := range col {
				col[i] = sc.Transformed(j, v)
			}
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
	if err != nil || !(v < c.best-calib.LossTol) {
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
	eps := calib.LabelNoiseLevels[0]
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
