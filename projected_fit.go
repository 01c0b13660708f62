package ivm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/search"
)

const (
	// projectedValRows bounds the rows held out to choose the kernel, λ and the
	// calibration: a fifth of the training rows, at most 2 000.
	projectedValRows = 2000
	// projectedSearchRows and projectedSearchCentres bound the search's fits: each
	// candidate kernel is fitted on at most 8 000 rows through 2 000 centres, whatever
	// the size of the data.
	projectedSearchRows    = 8000
	projectedSearchCentres = 2000
	// projectedCentresPerBoundary and projectedSearchPerBoundary bound the centres per
	// class boundary (ProjectedCentres).
	projectedCentresPerBoundary = 1500
	projectedSearchPerBoundary  = 500
	// projectedMinRows is the fewest training rows a projected model is fitted to.
	projectedMinRows = 50
	// projectedMaxSteps bounds the search's doublings (or halvings) of γ from its start:
	// tabular inputs with a weak, smooth effect want kernels hundreds of times wider.
	projectedMaxSteps = 10
	// projectedSaturatedFactor bounds the final centres, as a multiple of the search's,
	// where half the search's centres did as well as all of them (centresSaturated).
	projectedSaturatedFactor = 2
	// projectedJitterWarn is the jitter (relative to the mean diagonal) above which the
	// final fit warns that its centres are nearly dependent.
	projectedJitterWarn = 1e-6
)

// ProjectedCentres is the number of centres m of a projected model of n training rows
// when Config.ActiveSize is 0: 5 000 up to 10 000 rows, then growing as n^¼ to at most
// 7 500 (fewer where fewer rows are left outside the held-out ones). Its m×m system costs
// 8m² bytes (200 MB at 5 000, 450 MB at 7 500) and its fit n·m²/2 multiply-adds; larger m
// buys a little accuracy at a much larger cost (bench/RESULTS.md, "Eleventh pass").
//
// A two-class model has one latent boundary to draw, where k classes have about k−1: it
// gets at most projectedCentresPerBoundary centres per boundary, and its search as many
// per boundary of projectedSearchPerBoundary, so that it costs a fraction of a many-class
// model's while the many-class models (five or more classes) keep their counts.
func ProjectedCentres(n, classes int) int {
	m := int(min(7500, math.Round(5000*math.Sqrt(math.Sqrt(max(float64(n), 1e4)/1e4)))))
	return min(m, projectedCentresPerBoundary*max(classes-1, 1))
}

// projectedSearchCentresFor is how many centres the search's fits use for a task of the
// given number of classes (see ProjectedCentres).
func projectedSearchCentresFor(classes int) int {
	return min(projectedSearchCentres, projectedSearchPerBoundary*max(classes-1, 1))
}

// projectedLambdas are the values of λ the search scores at each kernel width: the
// factorisations are cheap next to the kernel products they share.
var projectedLambdas = []float64{1e-4, 1e-3, 1e-2, 1e-1, 1}

// projectedBytes estimates what fitting a projected model allocates for n training rows of dim
// inputs, m centres (0: ProjectedCentres(n, classes)) and the given classes, beyond the inputs
// themselves: the larger of the search's kernel matrices and the final fit's m×m system with its
// blocks of kernel rows and its scaled centres.
func projectedBytes(n, dim, m, classes int) float64 {
	if m <= 0 {
		m = ProjectedCentres(n, classes)
	}
	m = min(m, n)
	atOnce := projectedSearchesAtOnce(n, dim, classes, 0)
	search := projectedSearchBytes(n, dim, classes) * float64(atOnce)
	fm := float64(m)
	final := 8 * (fm*fm + fm*(2*projectedBlock+projectedPanel) + 3*fm*float64(dim))
	return max(search, final)
}

// projectedSearchBytes estimates what one scaling's search allocates (searchProjected).
func projectedSearchBytes(n, dim, classes int) float64 {
	nf := float64(min(n, projectedSearchRows))
	ms := float64(min(n, projectedSearchCentresFor(classes)))
	return 8 * (nf*float64(dim) + nf*ms + 4*ms*ms + 3*projectedBlock*ms)
}

// projectedParallelBytes bounds the memory of the scalings' searches run side by side:
// where one search is larger (many inputs, many centres), they run one at a time, as the
// final fit's system then dominates the cost anyway.
const projectedParallelBytes = 256 << 20

// projectedSearchesAtOnce is how many scalings' searches fitProjected runs side by side
// on the given workers (0: every core).
func projectedSearchesAtOnce(n, dim, classes, workers int) int {
	if 2*projectedSearchBytes(n, dim, classes) > projectedParallelBytes {
		return 1
	}
	return min(2, pool.Workers(workers))
}

// projectedPick is a kernel width and λ the search scored, with its held-out log loss.
type projectedPick struct {
	scaler        *Scaler
	gamma, lambda float64
	loss          float64
	step          int // γ's doublings from the search's start
	// centres is the number of centres the search fitted with; saturated says that half
	// of them predicted the held-out rows as well, to within a standard error.
	centres   int
	saturated bool
}

// fitProjected trains p, a multi-class task, as a projected model (ProjectedModel). A fifth of
// the rows (at most projectedValRows) are held out at random; on them the search chooses
// the input scaling (standardised or, with ScaleAuto, scaled to the training range: the
// probit search's two), γ of an rbf kernel (doubling or halving from 2·search.StartGamma while
// the held-out log loss falls) and λ. The final model's centres are drawn from the other
// rows; it is fitted on them, its class probabilities are fitted to the held-out rows (the
// score map and label noise, projected_calib.go), and then the held-out rows are added to
// its system, which is solved again.
func (p *projectedFit) fitProjected(x mat.Matrix, y []float64, cfg *Config) error {
	n, _ := x.Dims()
	switch {
	case cfg.Part.IsPart():
		return errProjectedPart
	case cfg.Kernel != "" || cfg.FixedKernel || cfg.Learning == Algorithm2:
		return errors.New(
			"ivm: a projected model searches its own rbf kernel; a given kernel or Algorithm 2 needs the " +
				"one-vs-rest or one-vs-one decomposition")
	case n < projectedMinRows:
		return fmt.Errorf("ivm: a projected model needs at least %d training rows, not %d",
			projectedMinRows, n)
	}
	t := projectedTargets{classes: len(p.Classes)}
	var mean, sd float64
	if p.Task == Regression {
		if mean, sd = stat.MeanStdDev(y, nil); !(sd > 0) {
			return errors.New("ivm: every target is the same: nothing to regress")
		}
		t.y = make([]float64, n)
		for i, v := range y {
			t.y[i] = (v - mean) / sd
		}
	} else {
		t.cls = subset.ClassIndices(y, p.Classes)
	}
	perm := rand.New(rand.NewPCG(cfg.Learn.Seed, 0x70726f6a)).Perm(n)
	nv := min(n/5, projectedValRows)
	val, rest := perm[:nv], perm[nv:]
	scalers, err := projectedScalers(x, cfg.Scale)
	if err != nil {
		return err
	}
	if _, dim := x.Dims(); t.regression() && cfg.Scale == ScaleAuto && dim > 1 {
		// Per-input widths, as the regression search weighs its inputs; a candidate only.
		if rel, _, err := exactgp.RelevanceScaler(x, y, scalers[0], cfg.Learn.Seed); err == nil {
			scalers = append(scalers, rel)
		}
	}
	evals := 0
	var mu sync.Mutex
	prior := stat.Mean(t.priorLosses(val, rest), nil)
	report := func(pk projectedPick) {
		mu.Lock()
		defer mu.Unlock()
		evals++
		if cfg.Progress != nil {
			cfg.Progress(Progress{Search: evals, SearchKernel: fmt.Sprintf("%s, λ %g, %v scaling",
				projectedKernel(pk.gamma), pk.lambda, pk.scaler.Method()),
				SearchScore: pk.loss, SearchPrior: prior, Problems: 1})
		}
	}
	// The scalings are searched side by side where that costs little memory: much of a
	// search's time is serial (kernel values, calibration) between the products that use
	// every core.
	picks := make([]projectedPick, len(scalers))
	_, dim := x.Dims()
	parallel := projectedSearchesAtOnce(n, dim, t.classes, cfg.Workers)
	err = pool.ForEachErr(len(scalers), parallel, func(i int) error {
		var err error
		picks[i], err = searchProjected(x, t, scalers[i], val, rest, report)
		return err
	})
	if err != nil {
		return err
	}
	best := projectedPick{loss: math.Inf(1)}
	for _, pk := range picks {
		if pk.loss < best.loss {
			best = pk
		}
	}
	m := ProjectedCentres(n, len(p.Classes))
	if best.saturated {
		m = min(m, projectedSaturatedFactor*best.centres)
	}
	if cfg.ActiveSize > 0 {
		m = cfg.ActiveSize
	}
	if m > len(rest) {
		if cfg.ActiveSize > 0 {
			p.Warnings = append(p.Warnings,
				fmt.Sprintf("%d centres asked for, %d rows outside the held-out ones: %d centres", m, len(rest),
					len(rest)))
		}
		m = len(rest)
	}
	if err := p.fitProjectedFinal(x, t, best, m, val, rest, cfg); err != nil {
		return err
	}
	if t.regression() {
		p.Projected.toTargetUnits(mean, sd)
	}
	return nil
}

// fitProjectedFinal fits the final projected model with the search's choice (see
// fitProjected).
func (p *projectedFit) fitProjectedFinal(x mat.Matrix, t projectedTargets, pk projectedPick, m int,
	val, rest []int, cfg *Config) error {
	n, dim := x.Dims()
	spec := projectedKernel(pk.gamma)
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return err
	}
	centres, err := projectedCentres(x, pk, m, rest)
	if err != nil {
		return err
	}
	m, _ = centres.Dims()
	sys := t.system(m)
	report := func(offset int) func(int) {
		return func(done int) {
			if cfg.Progress != nil {
				cfg.Progress(Progress{Problems: 1, Rows: n, RowsDone: offset + done, ActiveSize: m})
			}
		}
	}
	if err := sys.addRows(k, x, pk.scaler, rest, t, centres, report(0)); err != nil {
		return err
	}
	kmm := func(dst *mat.Dense, lo, hi int) { k.K(dst, centres.Slice(lo, hi, 0, dim), centres) }
	w, jit, err := sys.solve(pk.lambda, kmm)
	if err != nil {
		return fmt.Errorf("ivm: %w", err)
	}
	pr := &ProjectedModel{Kernel: spec, Lambda: pk.lambda, Centres: centres, Weights: w, k: k}
	xv, err := subset.Scaled(x, pk.scaler, val)
	if err != nil {
		return err
	}
	if err := p.calibrateHeldOut(pr, pr.latents(xv), t, val, rest); err != nil {
		return err
	}
	sys.unfactor() // A again, to which the held-out rows are added
	if err := sys.addRows(k, x, pk.scaler, val, t, centres, report(len(rest))); err != nil {
		return err
	}
	jit2, err := sys.factor()
	if err == nil {
		pr.Weights, err = sys.weights()
	}
	if err != nil {
		return fmt.Errorf("ivm: %w", err)
	}
	// A jitter far below λ changes nothing the user would notice; a large one means the
	// centres repeat each other.
	if jit = max(jit, jit2); jit > projectedJitterWarn {
		p.Warnings = append(p.Warnings,
			fmt.Sprintf(
				"the projected model's %d×%d system needed a jitter of %g times its mean diagonal: its "+
					"centres are nearly dependent (few inputs); fewer centres (ActiveSize, -d) suit these data", m,
				m, jit))
	}
	p.Projected, p.Scaler, p.Sharpness = pr, pk.scaler, 1
	if !p.Baseline.Beaten() {
		p.useConstant(t)
	}
	if cfg.Progress != nil {
		cfg.Progress(Progress{Problems: 1, Rows: n, RowsDone: n, ActiveSize: m, Done: true})
	}
	return nil
}

// searchProjected scores projected models of the rows rest (at most projectedSearchRows of
// them, through projectedSearchCentres centres) on the held-out rows val, scaled by sc:
// γ doubling or halving from 2·search.StartGamma while the held-out log loss falls, each at every
// λ of projectedLambdas. The kernel matrices of every γ are powers of the first one's,
// exp(−½tγd²) = exp(−½γd²)^t, so the inputs' distances are computed once.
func searchProjected(x mat.Matrix, t projectedTargets, sc *Scaler, val, rest []int,
	report func(projectedPick)) (projectedPick, error) {
	fit := rest[:min(len(rest), projectedSearchRows)]
	xf, err := subset.Scaled(x, sc, fit)
	if err != nil {
		return projectedPick{}, err
	}
	xv, err := subset.Scaled(x, sc, val)
	if err != nil {
		return projectedPick{}, err
	}
	_, dim := xf.Dims()
	centres := subset.Dense(xf, distinctRows(xf, subset.All(len(fit)), projectedSearchCentresFor(t.classes)))
	gamma := 2 * search.StartGamma(x, sc)
	k, err := kern.Parse(projectedKernel(gamma), dim)
	if err != nil {
		return projectedPick{}, err
	}
	m, _ := centres.Dims()
	kf, kv, kmm := mat.NewDense(len(fit), m, nil), mat.NewDense(len(val), m, nil),
		mat.NewDense(m, m, nil)
	k.K(kf, xf, centres)
	k.K(kv, xv, centres)
	k.K(kmm, centres, centres)
	score := func(step int) (projectedPick, error) {
		best := projectedPick{scaler: sc, gamma: gamma * math.Pow(2, float64(step)), loss: math.Inf(1),
			step: step, centres: m}
		sys := t.system(m)
		for lo := 0; lo < len(fit); lo += projectedBlock { // a block at a time: no second copy of kf
			hi := min(len(fit), lo+projectedBlock)
			t.add(sys, powDense(kf.Slice(lo, hi, 0, m).(*mat.Dense), step), fit[lo:hi])
		}
		kvt, kmmt := powDense(kv, step), powDense(kmm, step)
		for _, lambda := range projectedLambdas {
			w, _, err := sys.clone().solve(lambda, func(dst *mat.Dense, lo, hi int) {
				dst.Copy(kmmt.Slice(lo, hi, 0, m))
			})
			if err != nil {
				continue // too small a λ for this width: the larger ones remain
			}
			var f mat.Dense
			f.Mul(kvt, w)
			if l := t.loss(&f, val); l < best.loss {
				best.lambda, best.loss = lambda, l
			}
		}
		if math.IsInf(best.loss, 1) {
			return best,
				fmt.Errorf("ivm: the projected process's system is not positive definite at γ = %g for any λ",
					best.gamma)
		}
		report(best)
		return best, nil
	}
	pk, err := lineSearch(score)
	if err == nil && m >= 2*projectedMinRows {
		pk.saturated, err = centresSaturated(t, pk, kf, kv, kmm, fit, val)
	}
	return pk, err
}

// centresSaturated says whether the first half of the search's centres (a random half)
// predicts the held-out rows as well as all of them, at the kernel and λ of pk, to within
// the standard error of the rows' paired differences: then the data ask for no more
// centres than a few times the search's, whatever their number (low-dimensional inputs,
// one simple boundary). kf, kv and kmm are the kernel matrices at the search's start.
func centresSaturated(t projectedTargets, pk projectedPick, kf, kv, kmm *mat.Dense, fit,
	val []int) (bool, error) {
	_, m := kf.Dims()
	losses := func(c int) ([]float64, error) {
		sys := t.system(c)
		for lo := 0; lo < len(fit); lo += projectedBlock {
			hi := min(len(fit), lo+projectedBlock)
			t.add(sys, powDense(kf.Slice(lo, hi, 0, c).(*mat.Dense), pk.step), fit[lo:hi])
		}
		kmmt := powDense(kmm.Slice(0, c, 0, c).(*mat.Dense), pk.step)
		w, _, err := sys.solve(pk.lambda, func(dst *mat.Dense, lo, hi int) {
			dst.Copy(kmmt.Slice(lo, hi, 0, c))
		})
		if err != nil {
			return nil, err
		}
		var f mat.Dense
		f.Mul(powDense(kv.Slice(0, len(val), 0, c).(*mat.Dense), pk.step), w)
		return t.rowLosses(&f, val), nil
	}
	full, err := losses(m)
	if err != nil {
		return false, nil // no verdict: the final fit keeps its default size
	}
	half, err := losses(m / 2)
	if err != nil {
		return false, nil
	}
	gain, se := calib.PairedGain(half, full)
	return gain <= se, nil
}

// lineSearch scores steps 0, 1 and −1, then goes on in the better direction while the
// score falls, at most projectedMaxSteps from 0.
func lineSearch(score func(step int) (projectedPick, error)) (projectedPick, error) {
	best, err := score(0)
	if err != nil {
		return best, err
	}
	for _, dir := range []int{1, -1} {
		moved := false
		for step := dir; abs(step) <= projectedMaxSteps; step += dir {
			pk, err := score(step)
			if err != nil || pk.loss >= best.loss {
				break
			}
			best, moved = pk, true
		}
		if moved {
			break
		}
	}
	return best, nil
}

func abs(i int) int { return max(i, -i) }

// powDense returns a's elements raised to the power 2^step, by squaring (step > 0) or
// square roots (step < 0).
func powDense(a *mat.Dense, step int) *mat.Dense {
	out := mat.DenseCopyOf(a)
	data := out.RawMatrix().Data
	for ; step > 0; step-- {
		for i, v := range data {
			data[i] = v * v
		}
	}
	for ; step < 0; step++ {
		for i, v := range data {
			data[i] = math.Sqrt(v)
		}
	}
	return out
}

// projectedScalers are the scalings the projected model's search compares: the one
// asked for, and with ScaleAuto (standardising) the training range's too.
func projectedScalers(x mat.Matrix, kind Scaling) ([]*Scaler, error) {
	sc, err := FitScaler(x, kind)
	if err != nil {
		return nil, err
	}
	out := []*Scaler{sc}
	if kind == ScaleAuto {
		mm, err := FitScaler(x, ScaleMinMax)
		if err != nil {
			return nil, err
		}
		out = append(out, mm)
	}
	return out, nil
}

// projectedKernel is the projected model's kernel spec at width gamma.
func projectedKernel(gamma float64) string {
	return "rbf(gamma=" + strconv.FormatFloat(gamma, 'g', -1, 64) + ",variance=1)"
}

// useConstant turns p's projected model into the constant predictor, and says so: the
// training rows' class frequencies (zero weights, offsets their logarithms), or for
// regression the standardised targets' mean 0 and variance 1 (toTargetUnits turns them
// into the targets'). A model that does not beat it on held-out rows would only add
// noise to the base rate.
func (p *projectedFit) useConstant(t projectedTargets) {
	pr := p.Projected
	_, k := pr.Weights.Dims()
	_, dim := pr.Centres.Dims()
	// One centre of zero weight: the file need not carry centres that play no part.
	pr.Centres = mat.DenseCopyOf(pr.Centres.Slice(0, 1, 0, dim))
	pr.Weights = mat.NewDense(1, k, nil)
	what := "the targets' mean and variance"
	if t.regression() {
		pr.NoiseVar = 1
	} else {
		pr.Mix = mat.NewDense(k, k, nil)
		for c, f := range calib.ClassPriors(t.cls, k) {
			pr.Offset[c] = math.Log(f)
		}
		p.LabelNoise = 0
		what = "the class frequencies"
	}
	p.Warnings = append(p.Warnings, p.Baseline.Warning()+"; it predicts "+what)
}

// projectedTargets are what a projected model regresses: each row's class (cls, of
// classes), or a real target (y, standardised: regression).
type projectedTargets struct {
	cls     []int
	classes int
	y       []float64
}

// regression says whether the targets are real.
func (t projectedTargets) regression() bool { return t.y != nil }

// system returns an empty system of m centres for the targets.
func (t projectedTargets) system(m int) *projectedSystem {
	if t.regression() {
		return newProjectedSystem(m, 1)
	}
	return newProjectedSystem(m, t.classes)
}

// add accumulates the kernel rows kb of the training rows rows into s.
func (t projectedTargets) add(s *projectedSystem, kb *mat.Dense, rows []int) {
	if t.regression() {
		s.addReal(kb, subset.Of(t.y, rows))
		return
	}
	s.add(kb, subset.Of(t.cls, rows))
}

// priorLosses is the constant predictor's −ln p(y) at each of the rows val, fitted to the
// rows rest: their class frequencies, or their targets' mean and variance.
func (t projectedTargets) priorLosses(val, rest []int) []float64 {
	if t.regression() {
		mean, variance := stat.MeanVariance(subset.Of(t.y, rest), nil)
		return calib.GaussPriorLosses(subset.Of(t.y, val), mean, variance)
	}
	return calib.ClassPriorLosses(subset.Of(t.cls, rest), subset.Of(t.cls, val), t.classes)
}

// rowLosses is each held-out row's loss (see loss) of latents f at the rows rows.
func (t projectedTargets) rowLosses(f *mat.Dense, rows []int) []float64 {
	if !t.regression() {
		cls := subset.Of(t.cls, rows)
		sc := fitSoftmax(f, cls)
		_, k := f.Dims()
		return mapRowLosses(temperatureMap(sc.a, k), f, cls, sc.eps)
	}
	r2 := make([]float64, len(rows))
	for i, r := range rows {
		r2[i] = (t.y[r] - f.At(i, 0)) * (t.y[r] - f.At(i, 0))
	}
	v := max(stat.Mean(r2, nil), 1e-12)
	for i := range r2 {
		r2[i] = 0.5*math.Log(2*math.Pi*v) + r2[i]/(2*v)
	}
	return r2
}

// loss is the search's score of latents f at the held-out rows rows: the log loss of
// their best softmax, or for regression the density of a Gaussian with the residuals'
// variance (a monotone function of their mean square).
func (t projectedTargets) loss(f *mat.Dense, rows []int) float64 {
	if !t.regression() {
		return fitSoftmax(f, subset.Of(t.cls, rows)).loss
	}
	return stat.Mean(t.rowLosses(f, rows), nil)
}

// projectedCentres returns the final fit's m centres, scaled rows of x: the first m
// distinct rows of rest, which is in random order. (The IVM's information-gain selection
// from a pool of 4m rows was measured against them at the same m and kept out: equal on
// classification at several times the cost, mixed on regression; bench/RESULTS.md.)
func projectedCentres(x mat.Matrix, pk projectedPick, m int, rest []int) (*mat.Dense, error) {
	// The inputs are scaled a block at a time, never all at once.
	pool, err := subset.Scaled(x, pk.scaler, rest[:min(len(rest), 2*m)])
	if err != nil {
		return nil, err
	}
	return subset.Dense(pool, distinctRows(pool, subset.All(len(rest[:min(len(rest), 2*m)])), m)), nil
}
