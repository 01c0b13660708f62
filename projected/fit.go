package projected

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
)

const (
	// valRows bounds the rows held out to choose the kernel and λ: a fifth of the training
	// rows, at most 2 000.
	valRows = 2000
	// searchRows and searchCentres bound the search's fits: each candidate kernel is fitted
	// on at most 8 000 rows through 2 000 centres, whatever the size of the data.
	searchRows    = 8000
	searchCentres = 2000
	// centresPerBoundary and searchPerBoundary bound the centres per class boundary
	// (Centres).
	centresPerBoundary = 1500
	searchPerBoundary  = 500
	// maxSteps bounds the search's doublings (or halvings) of γ from its start: tabular
	// inputs with a weak, smooth effect want kernels hundreds of times wider.
	maxSteps = 10
	// saturatedFactor bounds the final centres, as a multiple of the search's, where half
	// the search's centres did as well as all of them (centresSaturated).
	saturatedFactor = 2
	// calRows bounds the rows whose leave-one-out latents calibrate the final model: a score
	// map of many classes needs thousands of rows to be fitted.
	calRows = 10000
	// finalLambdaFeatures bounds the features of a final system whose λ finalLambda scores
	// again, on lambdaRows of the calibration rows: each λ is a factorisation and those
	// rows' solves.
	finalLambdaFeatures = 2500
	lambdaRows          = 3000
	lambdasAtOnce       = 2 // λ scored side by side (lambdaLosses)
	// jitterWarn is the jitter (relative to the mean diagonal) above which the final fit
	// warns that its centres are nearly dependent.
	jitterWarn = 1e-6
)

// Scaling is an input scaling Fit's search tries (a nil Scaler: the inputs as they are),
// with the rbf width γ₀ its search starts from: it scores 2γ₀ first, then doubles or halves
// it while the held-out loss falls. A width of 1/(D·v̄), for D inputs of mean variance v̄
// once scaled, puts a typical kernel value near e⁻¹.
type Scaling struct {
	Scaler     *dataset.Scaler
	StartGamma float64
	// Learn, if not nil, learns the scaling and its start (Scaler and StartGamma are then
	// unused) when its search begins, beside the other scalings' searches: a scaling learnt
	// from the data (per-input widths) costs as much as a search. If it fails, the scaling
	// is left out.
	Learn func() (*dataset.Scaler, float64, error)
}

// Options configures Fit; the zero value is its defaults.
type Options struct {
	// Seed seeds the draw of the held-out rows, and with it of the centres.
	Seed uint64
	// Centres is the number of centres m (0: Centres(n, classes), or fewer where the
	// search found that half its own centres did as well as all of them). Fit uses at most
	// the rows outside the held-out ones, and warns where that is fewer than asked for.
	Centres int
	// Workers bounds the scalings' searches run side by side (0: every core).
	Workers int
}

// Progress reports Fit's work: each kernel its search has scored, then the rows its final
// fit has taken in, then the end.
type Progress struct {
	// Search counts the kernels scored so far (0 once the final fit has begun). Kernel
	// describes the last one (its spec, λ and input scaling), Score is its held-out loss
	// per row and Prior the constant predictor's on the same rows.
	Search       int
	Kernel       string
	Score, Prior float64
	// RowsDone is how many of the Rows training rows the final fit's system has taken in,
	// through Centres centres.
	Rows, RowsDone, Centres int
	// Done marks the end of the fit.
	Done bool
}

// Result is a fitted projected model with what Fit chose and measured beside it.
type Result struct {
	// Model is the fitted model, or the constant predictor where the model did not beat
	// it on the held-out rows (Baseline; a warning says so).
	Model *Model
	// Scaler is the input scaling the search chose: Model's centres are rows so scaled, and
	// so must be the inputs whose latents it is asked for.
	Scaler *dataset.Scaler
	// LabelNoise is the weight ε of a uniform distribution over the classes mixed into a
	// classification's softmax probabilities, p_c = (1−ε) p'_c + ε/K (0 for regression
	// and for the constant predictor).
	LabelNoise float64
	// Baseline sets the model's held-out log loss beside the constant predictor's.
	Baseline *calib.Baseline
	// Warnings are what the caller should tell the user: fewer centres than asked for, a
	// system that needed a large jitter, a model replaced by the constant predictor.
	Warnings []string
	// cal are the rows the model was calibrated on, and calLatents their leave-one-out
	// latents.
	cal        []int
	calLatents *mat.Dense
	// heldOut are a classification's class probabilities at the rows cal, each from the
	// score map fitted to the other half of them (calibrate), and heldOutClasses their
	// classes.
	heldOut        *mat.Dense
	heldOutClasses []int
}

// HeldOut returns a classification's held-out class probabilities (rows × classes) and
// the classes of those rows, the figures its Baseline summarises, so that a caller can
// score them in other ways (per pair of classes); nil for a regression and where the model
// became the constant predictor.
func (res *Result) HeldOut() (*mat.Dense, []int) {
	if !res.Baseline.Beaten() {
		return nil, nil
	}
	return res.heldOut, res.heldOutClasses
}

// Fit fits a projected model of the rows of x to the targets t. A fifth of the rows (at
// most valRows) are held out at random; on them the search chooses the input scaling among
// scalings, γ of an rbf kernel (doubling or halving from 2·StartGamma while the held-out
// log loss falls) and λ. The final model's centres are drawn from the other rows; it is
// fitted on every row. Its class probabilities (the score map and label noise, calib.go) or
// its predictive variance are fitted to the leave-one-out latents of the held-out rows and
// more (calibrationRows), which the system gives exactly, and there it is compared with the
// constant predictor (and becomes it unless it beats it). report, if not nil, is called with
// Fit's progress, by one goroutine at a time.
func Fit(x mat.Matrix, t Targets, scalings []Scaling, opts Options,
	report func(Progress)) (*Result, error) {
	n, _ := x.Dims()
	if err := checkFit(n, t, scalings); err != nil {
		return nil, err
	}
	perm := rand.New(rand.NewPCG(opts.Seed, 0x70726f6a)).Perm(n)
	nv := min(n/5, valRows)
	val, rest := perm[:nv], perm[nv:]
	best, err := searchScalings(x, t, scalings, val, rest, opts.Workers, report)
	if err != nil {
		return nil, err
	}
	if best, err = withAdditive(x, t, best, val, rest); err != nil {
		return nil, err
	}
	m, warnings := centreCount(n, t, best, opts.Centres, len(rest))
	res, err := fitFinal(x, t, best, m, val, rest, opts, report)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(warnings, res.Warnings...)
	if t.regression() {
		res.Model.toTargetUnits(t.mean, t.sd)
	}
	return res, nil
}

// checkFit checks Fit's arguments for n rows of inputs.
func checkFit(n int, t Targets, scalings []Scaling) error {
	if t.rows() != n {
		return fmt.Errorf("ivm: %d rows of inputs and %d targets", n, t.rows())
	}
	if err := checkRows(n); err != nil {
		return err
	}
	if len(scalings) == 0 {
		return errors.New("ivm: a projected model's search needs an input scaling to try")
	}
	for _, s := range scalings {
		if err := checkStart(s.StartGamma); s.Learn == nil && err != nil {
			return err
		}
	}
	return nil
}

// checkStart refuses a search's start width gamma that is not positive and finite.
func checkStart(gamma float64) error {
	if !(gamma > 0) || math.IsInf(gamma, 1) {
		return fmt.Errorf("ivm: a projected model's search cannot start from γ = %v", gamma)
	}
	return nil
}

// searchScalings runs the search at each scaling and returns the best pick (the first
// of equal ones, in the order of scalings). The scalings are searched side by side where
// that costs little memory: much of a search's time is serial (kernel values, calibration)
// between the products that use every core. Those to be learnt start first: they take
// longest.
func searchScalings(x mat.Matrix, t Targets, scalings []Scaling, val, rest []int, workers int,
	report func(Progress)) (pick, error) {
	evals := 0
	var mu sync.Mutex
	prior := stat.Mean(t.priorLosses(val, rest), nil)
	scored := func(pk pick) {
		mu.Lock()
		defer mu.Unlock()
		evals++
		if report != nil {
			report(Progress{Search: evals, Kernel: fmt.Sprintf("%s, λ %g, %v scaling",
				kernelSpec(pk.gamma), pk.lambda, pk.scaler.Method()), Score: pk.loss, Prior: prior})
		}
	}
	picks := make([]pick, len(scalings))
	n, dim := x.Dims()
	parallel := searchesAtOnce(n, dim, t.classes, workers)
	order := make([]int, 0, len(scalings))
	for _, learnt := range []bool{true, false} {
		for i, s := range scalings {
			if (s.Learn != nil) == learnt {
				order = append(order, i)
			}
		}
	}
	err := pool.ForEachErr(len(order), parallel, func(j int) error {
		i, s := order[j], scalings[order[j]]
		picks[i].loss = math.Inf(1)
		if s.Learn != nil {
			var err error
			s.Scaler, s.StartGamma, err = s.Learn()
			if err != nil || checkStart(s.StartGamma) != nil {
				return nil // left out
			}
		}
		var err error
		picks[i], err = search(x, t, s, val, rest, scored)
		return err
	})
	if err != nil {
		return pick{}, err
	}
	best := pick{loss: math.Inf(1)}
	for _, pk := range picks {
		if pk.loss < best.loss {
			best = pk
		}
	}
	return best, nil
}

// centreCount is the final fit's number of centres for n training rows, of which outside
// are outside the held-out ones: asked (0: Centres, at most saturatedFactor times the
// search's where half of those did as well as all of them), at most outside, with a
// warning where that is fewer than asked for.
func centreCount(n int, t Targets, best pick, asked, outside int) (int, []string) {
	m := Centres(n, t.classes)
	if best.saturated {
		m = min(m, saturatedFactor*best.centres)
	}
	if asked > 0 {
		m = asked
	}
	var warnings []string
	if m > outside {
		if asked > 0 {
			warnings = append(warnings,
				fmt.Sprintf("%d centres asked for, %d rows outside the held-out ones: "+
					"%d centres", m, outside, outside))
		}
		m = outside
	}
	return m, warnings
}

// fitFinal fits the final projected model with the search's choice pk and m centres (see
// Fit).
func fitFinal(x mat.Matrix, t Targets, pk pick, m int, val, rest []int, opts Options,
	report func(Progress)) (*Result, error) {
	n, dim := x.Dims()
	spec := kernelSpec(pk.gamma)
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return nil, err
	}
	centres, centreRows, err := finalCentres(x, pk, m, rest)
	if err != nil {
		return nil, err
	}
	m, _ = centres.Dims()
	rowsDone := func(done int) {
		if report != nil {
			report(Progress{Rows: n, RowsDone: done, Centres: m})
		}
	}
	pr := &Model{Kernel: spec, Lambda: pk.lambda, Centres: centres, Additive: pk.additive, k: k}
	sys := t.system(pr.featureCount())
	every := append(slices.Clone(rest), val...)
	if err := sys.addRows(pr, x, pk.scaler, every, t, rowsDone); err != nil {
		return nil, err
	}
	query := newQuery(sys.g, k, centres) // before finalLambda regularises and factorises sys
	cal := calibrationRows(val, rest, centreRows)
	res, jit, err := finalLambda(pr, sys, x, t, pk.scaler, cal)
	if err != nil {
		return nil, err
	}
	res.Model.Query = query
	if err := res.withLinear(x, t, every); err != nil {
		return nil, err
	}
	if err := res.withLocal(x, t, opts); err != nil {
		return nil, err
	}
	res.checkFinal(jit, t)
	if report != nil {
		report(Progress{Rows: n, RowsDone: n, Centres: m, Done: true})
	}
	return res, nil
}

// finalLambda solves the final system sys of every row (not yet regularised) at pr's λ,
// the search's, and calibrates the model on the leave-one-out latents of the rows cal. For
// binary and regression tasks, whose systems are small, it also scores every other λ of the
// grid (lambdas) so on the first lambdaRows of cal, and takes the best where it beats the
// search's λ there by more than a standard error of the rows' paired differences: the
// search chose λ through fewer centres and rows, and the final model may want another
// prior. It returns the result, calibrated on every row of cal, and its system's jitter.
func finalLambda(pr *Model, sys *system, x mat.Matrix, t Targets, sc *dataset.Scaler,
	cal []int) (*Result, float64, error) {
	again := t.classes <= 2 && pr.featureCount() <= finalLambdaFeatures
	var base *system
	if again {
		base = sys.clone()
	}
	xc, err := subset.Scaled(x, sc, cal)
	if err != nil {
		return nil, 0, err
	}
	yc := t.codes(cal)
	f, jit, err := leftOut(pr, sys, xc, yc)
	if err != nil {
		return nil, 0, err
	}
	res, _, err := calibrated(pr, sc, f, t, cal)
	if err != nil || !again {
		return res, jit, err
	}
	// The search's λ on the first rows of cal: their leave-one-out latents are f's first rows.
	few := cal[:min(len(cal), lambdaRows)]
	_, searched, err := calibrated(pr.withLambda(pr.Lambda), sc, firstRows(f, len(few)), t, few)
	if err != nil {
		return nil, 0, err
	}
	best, bestRows := pr.Lambda, searched
	for i, rows := range lambdaLosses(pr, base, firstRows(xc, len(few)),
		firstRows(yc, len(few)), t, sc, few) {
		if rows != nil && stat.Mean(rows, nil) < stat.Mean(bestRows, nil) {
			best, bestRows = lambdas[i], rows
		}
	}
	if gain, se := calib.PairedGain(searched, bestRows); gain <= se {
		return res, jit, nil
	}
	next := pr.withLambda(best)
	if f, jit, err = leftOut(next, base, xc, yc); err != nil {
		return nil, 0, err
	}
	res, _, err = calibrated(next, sc, f, t, cal)
	return res, jit, err
}

// lambdaLosses returns the held-out losses of the rows few (scaled inputs xf, codes yf)
// under pr at each λ of lambdas but its own (nil there and where a λ fails), each solved on
// a copy of the unregularised system base. Two are solved side by side: a solve's
// factorisation and triangular solves use the cores only in part, and a small system's
// copies are cheap.
func lambdaLosses(pr *Model, base *system, xf, yf *mat.Dense, t Targets, sc *dataset.Scaler,
	few []int) [][]float64 {
	losses := make([][]float64, len(lambdas))
	pool.ForEach(len(lambdas), lambdasAtOnce, func(i int) {
		if lambdas[i] == pr.Lambda {
			return
		}
		next := pr.withLambda(lambdas[i])
		fl, _, err := leftOut(next, base.clone(), xf, yf)
		if err != nil {
			return
		}
		if _, rows, err := calibrated(next, sc, fl, t, few); err == nil {
			losses[i] = rows
		}
	})
	return losses
}

// withLambda returns a copy of pr (its additive part copied too, whose weights a solve
// sets) at λ lambda.
func (pr *Model) withLambda(lambda float64) *Model {
	next := *pr
	next.Lambda = lambda
	if pr.Additive != nil {
		add := *pr.Additive
		next.Additive = &add
	}
	return &next
}

// leftOut solves sys at pr's λ into pr and returns the leave-one-out latents of the rows
// whose scaled inputs are xc and codes yc, with the jitter the factorisation needed.
func leftOut(pr *Model, sys *system, xc, yc *mat.Dense) (*mat.Dense, float64, error) {
	jit, err := pr.solve(sys)
	if err != nil {
		return nil, 0, fmt.Errorf("ivm: %w", err)
	}
	return sys.leaveOneOut(xc, yc, pr.allWeights(), pr.featureRows), jit, nil
}

// firstRows is a's first n rows.
func firstRows(a *mat.Dense, n int) *mat.Dense {
	return a.Slice(0, n, 0, a.RawMatrix().Cols).(*mat.Dense)
}

// calibrated returns pr calibrated on the leave-one-out latents f of the rows cal and
// compared with the constant predictor fitted to the others, with those rows' held-out
// losses.
func calibrated(pr *Model, sc *dataset.Scaler, f *mat.Dense, t Targets, cal []int) (*Result,
	[]float64, error) {
	res := &Result{Model: pr, Scaler: sc, cal: cal, calLatents: f}
	rows, err := res.calibrateHeldOut(f, t, cal, subset.Others(t.rows(), cal))
	return res, rows, err
}

// calibrationRows returns the rows whose leave-one-out latents calibrate the final model:
// the held-out rows val and as many of rest as make calRows, none of them a centre (a
// centre's latent left out still has a kernel column of its own, as no test row does),
// leaving at least a fifth of the rows for the constant predictor it is compared with.
func calibrationRows(val, rest, centres []int) []int {
	isCentre := make(map[int]bool, len(centres))
	for _, r := range centres {
		isCentre[r] = true
	}
	cal := slices.Clone(val)
	keep := (len(val) + len(rest)) * 4 / 5
	for i := len(rest) - 1; i >= 0 && len(cal) < min(calRows, keep); i-- {
		if !isCentre[rest[i]] {
			cal = append(cal, rest[i])
		}
	}
	return cal
}

// checkFinal warns where the final system needed a large jitter (jit) and turns the model
// into the constant predictor where it did not beat that on the held-out rows.
func (res *Result) checkFinal(jit float64, t Targets) {
	// A jitter far below λ changes nothing the user would notice; a large one means the
	// centres repeat each other.
	if jit > jitterWarn {
		m, _ := res.Model.Centres.Dims()
		res.Warnings = append(res.Warnings,
			fmt.Sprintf(
				"the projected model's %d×%d system needed a jitter of %g times its mean "+
					"diagonal: its centres are nearly dependent (few inputs); fewer centres "+
					"(ActiveSize, -d) suit these data", m, m, jit))
	}
	if !res.Baseline.Beaten() {
		res.useConstant(t)
	}
}

// useConstant turns res's model into the constant predictor, and says so: the training
// rows' class frequencies (zero weights, offsets their logarithms, no label noise), or for
// regression the standardised targets' mean 0 and variance 1 (toTargetUnits turns them
// into the targets'). A model that does not beat it on held-out rows would only add noise
// to the base rate.
func (res *Result) useConstant(t Targets) {
	pr := res.Model
	_, k := pr.Weights.Dims()
	// One centre of zero weight, or the query part's centres: the file need not carry
	// centres that play no part. The query part stays, for which rows to label next is what
	// a model that learnt nothing yet most needs to know.
	keep := []int{0}
	if q := pr.Query; q != nil {
		keep = q.Centres
		q.Centres = subset.All(len(keep))
	}
	pr.Centres = subset.Dense(pr.Centres, keep)
	pr.Weights = mat.NewDense(len(keep), k, nil)
	pr.Additive, pr.Linear, pr.Local = nil, nil, nil
	what := "the targets' mean and variance"
	if t.regression() {
		pr.NoiseVar = 1
	} else {
		offset := make([]float64, k)
		for c, f := range calib.ClassPriors(t.cls, k) {
			offset[c] = math.Log(f)
		}
		pr.setScoreMap(scoreMap{mix: mat.NewDense(k, k, nil), offset: offset})
		res.LabelNoise = 0
		what = "the class frequencies"
	}
	res.Warnings = append(res.Warnings, res.Baseline.Warning()+"; it predicts "+what)
}
