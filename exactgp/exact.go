// Package exactgp fits the exact GP of small tasks, whose training rows are all active: the
// hyperparameters of a regression's rbfard kernel by type-II maximum likelihood
// (Regression), the relevance of each input that this fit learns on a subsample of a larger
// regression (RelevanceScaler), and the regression of a binary task's labels coded ±1,
// turned into probabilities by a logistic map (FitLabels).
//
// Where every training row is active (d = N, see ivm.DefaultActiveSize) and the targets are
// real, the IVM with Gaussian noise is the exact GP, whose log marginal likelihood and
// its gradient cost one Cholesky factorisation. There the held-out search (package search),
// which scores kernels by models fitted on two thirds of the rows and moves one
// isotropic width, is the weaker choice: on small public regression sets the marginal
// likelihood's kernel mostly predicts the test targets better (bench/RESULTS.md records the runs
// behind this file's choices). Maximising it also learns one length scale per input, which
// is what lets a GP beat an isotropic kernel on data whose inputs matter unequally
// (Boston housing, ozone), but unconstrained per-input scales overfit small sets (Swiss
// fertility). So the log length scales have a Gaussian prior of standard deviation
// ardPriorSD about a common log length scale that is itself learnt: the scales spread only
// as far as the data demand, so the fit stays near the isotropic kernel where that is best
// and beats it and free scales where the inputs matter unequally.
//
// The error bars are then calibrated like the search's, on the exact leave-one-out
// predictions (Rasmussen & Williams §5.4.2), which cost nothing once K⁻¹ is known.
//
// Larger regression tasks go to the search, whose kernel has one width for every input;
// the same per-input fit on a subsample gives it a candidate scaling that weights each
// input by its relevance (RelevanceScaler).
package exactgp

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/rowdot"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/optimize"
	"github.com/ivmlab/ivm/search"
)

const (
	// MaxRows is the most training rows the marginal-likelihood fit is used for:
	// each evaluation factorises an N×N matrix, and a fit takes about a hundred, which
	// stays within seconds up to this size.
	MaxRows = 700
	// ardPriorSD is the prior standard deviation of each log length scale about their
	// common value (a factor e^0.5 ≈ 1.65). A prior this tight holds the scales together
	// on the smallest sets, where looser ones overfit, and costs next to nothing on larger
	// ones.
	ardPriorSD = 0.5
	// exactNoiseFloor is the least noise variance as a fraction of the signal and bias variances:
	// a bound on K's condition number (about N/exactNoiseFloor), not a belief about the data.
	// Relative, because the likelihood of separable labels grows without bound along γ → 0
	// with the variance → ∞, where an absolute floor leaves K numerically singular.
	exactNoiseFloor = 1e-6
	exactMaxIter    = 300
	// exactTol and exactStall: a run stops when exactStall iterations have lowered the
	// objective (in nats, summed over the rows) by less than exactTol.
	exactTol   = 1e-3
	exactStall = 10
)

// exactGP is the negative log marginal likelihood (plus the length scales' prior) of a
// GP with kernel signal·exp(−½ Σ_d (x_d − x'_d)²/ℓ_d²) + bias + noise·δ on the scaled
// inputs x and standardised targets y. Its parameters θ are log signal, log bias,
// log(noise − exactNoiseFloor·(signal + bias)), the common log length scale log ℓ̄ and,
// with ard, the offsets δ_d = log ℓ_d − log ℓ̄.
type exactGP struct {
	x   *mat.Dense
	y   []float64
	ard bool
	// free drops the offsets' prior (fitARD's first runs).
	free bool
	// stall and tol, where stall > 0, replace exactStall and exactTol.
	stall int
	tol   float64
	// stopBelow ends a minimisation once the objective is under it (−Inf: never): a fit
	// whose only use is to tell whether it gets below that need not be finished.
	stopBelow float64
	// Scratch, n×n or n×D row-major, reused across evaluations.
	xs, bx      []float64 // inputs divided by the length scales; B·xs
	gram, kr, u []float64 // xs·xsᵀ (then B); the rbf part of K; K's Cholesky factor U
	uinv, kinv  []float64 // U⁻¹ and K⁻¹ = U⁻¹U⁻ᵀ
	alpha       []float64 // K⁻¹y
	solveBuf    []float64
	cholBuf     []float64
}

func newExactGP(x *mat.Dense, y []float64) *exactGP {
	n, dim := x.Dims()
	sq := func() []float64 { return make([]float64, n*n) }
	return &exactGP{x: x, y: y, stopBelow: math.Inf(-1), xs: make([]float64, n*dim),
		bx: make([]float64, n*dim), gram: sq(), kr: sq(), u: sq(), uinv: sq(), kinv: sq(),
		alpha: make([]float64, n)}
}

// clone returns an exactGP of e's data and settings with scratch of its own.
func (e *exactGP) clone() *exactGP {
	c := newExactGP(e.x, e.y)
	c.ard, c.free, c.stall, c.tol, c.stopBelow = e.ard, e.free, e.stall, e.tol, e.stopBelow
	return c
}

// rows views data as a row-major matrix of cols columns.
func rows(data []float64, cols int) blas64.General {
	return blas64.General{Rows: len(data) / cols, Cols: cols, Stride: cols, Data: data}
}

// exactVariances returns the signal, bias and noise variances for the parameters th.
func exactVariances(th []float64) (signal, bias, noise float64) {
	signal, bias = math.Exp(th[0]), math.Exp(th[1])
	return signal, bias, exactNoiseFloor*(signal+bias) + math.Exp(th[2])
}

// lengths returns ℓ_d for the parameters th.
func (e *exactGP) lengths(th []float64) []float64 {
	_, dim := e.x.Dims()
	l := make([]float64, dim)
	for d := range l {
		v := th[3]
		if e.ard {
			v += th[4+d]
		}
		l[d] = math.Exp(v)
	}
	return l
}

// factor builds K at th in e.u and factorises it there (K = UᵀU, upper triangle); it
// returns log det K, or false if K is not positive definite.
func (e *exactGP) factor(th []float64) (float64, bool) {
	n, dim := e.x.Dims()
	l := e.lengths(th)
	for i := 0; i < n; i++ {
		for d, v := range e.x.RawRowView(i) {
			e.xs[i*dim+d] = v / l[d]
		}
	}
	rowdot.ABt(rows(e.gram, n), rows(e.xs, dim), rows(e.xs, dim))
	signal, bias, noise := exactVariances(th)
	for i := 0; i < n; i++ {
		gi := e.gram[i*n+i]
		for j := i; j < n; j++ {
			r := math.Max(0, gi+e.gram[j*n+j]-2*e.gram[i*n+j])
			kr := signal * math.Exp(-0.5*r)
			e.kr[i*n+j], e.kr[j*n+i] = kr, kr
			e.u[i*n+j] = kr + bias
		}
		e.u[i*n+i] += noise
	}
	var ok bool
	if e.cholBuf, ok = rowdot.Cholesky(blas64.Symmetric{N: n, Stride: n, Data: e.u,
		Uplo: blas.Upper}, e.cholBuf); !ok {
		return 0, false
	}
	logDet := 0.0
	for i := 0; i < n; i++ {
		logDet += 2 * math.Log(e.u[i*n+i])
	}
	return logDet, true
}

func (e *exactGP) upper() blas64.Triangular {
	n := len(e.y)
	return blas64.Triangular{N: n, Stride: n, Data: e.u, Uplo: blas.Upper, Diag: blas.NonUnit}
}

// solve sets e.alpha = K⁻¹y from the factor in e.u.
func (e *exactGP) solve() {
	copy(e.alpha, e.y)
	v := blas64.Vector{N: len(e.y), Inc: 1, Data: e.alpha}
	blas64.Trsv(blas.Trans, e.upper(), v)
	blas64.Trsv(blas.NoTrans, e.upper(), v)
}

// invertFactor sets e.uinv = U⁻¹ from the factor in e.u. Row block I of U⁻¹ is zero left
// of I's first column i0, and right of it is the identity's rows solved against U's
// trailing triangle from i0: a third of solving the whole identity.
func (e *exactGP) invertFactor() {
	n := len(e.y)
	clear(e.uinv)
	for i := 0; i < n; i++ {
		e.uinv[i*n+i] = 1
	}
	for i0 := 0; i0 < n; i0 += rowdot.SolveBlock {
		bi := min(rowdot.SolveBlock, n-i0)
		z := blas64.General{Rows: bi, Cols: n - i0, Stride: n, Data: e.uinv[i0*n+i0:]}
		u := blas64.Triangular{N: n - i0, Stride: n, Data: e.u[i0*n+i0:], Uplo: blas.Upper,
			Diag: blas.NonUnit}
		e.solveBuf = rowdot.SolveUpperRight(z, u, e.solveBuf)
	}
}

// inverse sets e.kinv = K⁻¹ = U⁻¹U⁻ᵀ from the factor in e.u.
func (e *exactGP) inverse() {
	n := len(e.y)
	e.invertFactor()
	// (U⁻¹U⁻ᵀ)_ij sums over k ≥ max(i, j) only, U⁻¹ being upper triangular: each block
	// of rows I against a block J ≥ I starts at J's first column, a sixth of the full
	// product's work; the lower triangle is the upper's mirror.
	const nb = 96
	for i0 := 0; i0 < n; i0 += nb {
		bi := min(nb, n-i0)
		for j0 := i0; j0 < n; j0 += nb {
			bj := min(nb, n-j0)
			rowdot.ABt(blas64.General{Rows: bi, Cols: bj, Stride: n, Data: e.kinv[i0*n+j0:]},
				blas64.General{Rows: bi, Cols: n - j0, Stride: n, Data: e.uinv[i0*n+j0:]},
				blas64.General{Rows: bj, Cols: n - j0, Stride: n, Data: e.uinv[j0*n+j0:]})
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			e.kinv[j*n+i] = e.kinv[i*n+j]
		}
	}
}

// eval returns the objective at th and, when grad is not nil, stores its gradient.
func (e *exactGP) eval(th, grad []float64) float64 {
	logDet, ok := e.factor(th)
	if !ok {
		return math.Inf(1)
	}
	n, dim := e.x.Dims()
	e.solve()
	f := 0.5*floats.Dot(e.y, e.alpha) + 0.5*logDet + 0.5*float64(n)*math.Log(2*math.Pi)
	if e.ard && !e.free {
		for d := 0; d < dim; d++ {
			f += 0.5 * th[4+d] * th[4+d] / (ardPriorSD * ardPriorSD)
		}
	}
	if grad == nil {
		return f
	}
	e.inverse()
	// W = ∂f/∂K = ½(K⁻¹ − ααᵀ) and B = W∘K_rbf, which overwrites gram.
	a := e.alpha
	var gSignal, gBias, gNoise float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			w := 0.5 * (e.kinv[i*n+j] - a[i]*a[j])
			b := w * e.kr[i*n+j]
			e.gram[i*n+j] = b
			gSignal += b
			gBias += w
		}
		gNoise += 0.5 * (e.kinv[i*n+i] - a[i]*a[i])
	}
	clear(grad)
	// The noise floor follows the signal and bias variances.
	grad[0] = gSignal + gNoise*exactNoiseFloor*math.Exp(th[0])
	grad[1] = (gBias + gNoise*exactNoiseFloor) * math.Exp(th[1])
	grad[2] = gNoise * math.Exp(th[2])
	// ∂K_ij/∂log ℓ_d = K_rbf,ij·(xs_id − xs_jd)², so g_d = Σ_ij B_ij (xs_id − xs_jd)²
	// = 2 Σ_i xs_id² r_i − 2 Σ_i xs_id (B·xs)_id with r the row sums of the symmetric B.
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, rows(e.gram, n), rows(e.xs, dim), 0, rows(e.bx, dim))
	for i := 0; i < n; i++ {
		r := floats.Sum(e.gram[i*n : (i+1)*n])
		xi, bxi := e.xs[i*dim:(i+1)*dim], e.bx[i*dim:(i+1)*dim]
		for d := 0; d < dim; d++ {
			g := 2 * (xi[d]*xi[d]*r - xi[d]*bxi[d])
			grad[3] += g
			if e.ard {
				grad[4+d] += g
			}
		}
	}
	if e.ard && !e.free {
		for d := 0; d < dim; d++ {
			grad[4+d] += th[4+d] / (ardPriorSD * ardPriorSD)
		}
	}
	return f
}

// exactStart is where the marginal likelihood's optimisation starts, on standardised
// targets and D standardised inputs: signal variance 1, bias and noise variances e⁻²,
// one length scale √D·e^lift (a typical pair of rows, at squared distance about 2D, then
// has a kernel value near exp(−e^(−2·lift))).
func exactStart(dim int, lift float64) []float64 {
	return []float64{0, math.Log(0.135), math.Log(0.135), 0.5*math.Log(float64(dim)) + lift}
}

// ardLifts are the length-scale lifts (exactStart) of fitARD's smooth starts, and
// ardFreeIter the most iterations of its free runs, which need only find a basin.
var ardLifts = []float64{0.3, 1}

const ardFreeIter = 100

// fitARD returns the per-input parameters with the least objective under the prior
// (setting e.ard) among runs from several starts: the isotropic optimum iso, and, for
// each of ardLifts, the optimum of free scales (no prior) from a smooth isotropic start.
// The runs are independent and go side by side, each but the first on its own copy of e's
// scratch; the choice among them does not depend on the order they end in.
//
// Why several. The prior about a common scale has local optima that a start at the
// isotropic optimum does not escape: with one relevant input among many, that start
// usually keeps the scales alike and predicts little better than the mean, where free
// scales from a smooth start find the relevant input. Which smooth start finds it varies
// from set to set, so both are run; a start whose run fails is passed over.
func fitARD(e *exactGP, run func(*exactGP, []float64, int) ([]float64, error),
	iso []float64) ([]float64, error) {
	_, dim := e.x.Dims()
	e.ard = true
	ths := make([][]float64, 1+len(ardLifts))
	errs := make([]error, len(ths))
	pool.ForEach(len(ths), runtime.GOMAXPROCS(0), func(i int) {
		if i == 0 {
			ths[0], errs[0] = run(e, append(slices.Clone(iso), make([]float64, dim)...),
				exactMaxIter)
			return
		}
		ei := e.clone()
		ei.free = true
		th, err := run(ei, append(exactStart(dim, ardLifts[i-1]), make([]float64, dim)...),
			ardFreeIter)
		ei.free = false
		if err == nil {
			th, err = run(ei, th, exactMaxIter)
		}
		ths[i], errs[i] = th, err
	})
	if errs[0] != nil {
		return nil, errs[0]
	}
	best, bestF := ths[0], e.eval(ths[0], nil)
	for i, th := range ths[1:] {
		if errs[1+i] != nil {
			continue
		}
		if f := e.eval(th, nil); f < bestF {
			best, bestF = th, f
		}
	}
	return best, nil
}

// exactFit is what fitExact learnt, on the standardised targets.
type exactFit struct {
	signal, bias, noise float64
	length              []float64
	// th holds the parameters (exactGP's θ) the fit is at.
	th    []float64
	evals int
	// looMean and looVar are the leave-one-out predictive means and variances.
	looMean, looVar []float64
	// objective is e's objective at th; gain is the objective per row the per-input scales
	// gain over the one-scale optimum.
	objective, gain float64
}

// fitExact maximises the marginal likelihood of e's standardised targets given its scaled
// inputs: first with one length scale, then, with ard, with one per input under
// the prior about their common value (fitARD).
func fitExact(e *exactGP, ard bool) (*exactFit, error) {
	n, dim := e.x.Dims()
	var evals atomic.Int64
	run := func(e *exactGP, th []float64, maxIter int) ([]float64, error) {
		return e.minimise(th, maxIter, &evals)
	}
	th, err := run(e, exactStart(dim, 0), exactMaxIter)
	if err != nil {
		return nil, err
	}
	iso := th
	if ard && dim > 1 {
		if th, err = fitARD(e, run, th); err != nil {
			return nil, err
		}
	}
	fit, err := e.fitAt(th)
	if err != nil {
		return nil, fmt.Errorf("ivm: the learnt kernel's matrix on %d rows "+
			"is not positive definite", n)
	}
	fit.evals = int(evals.Load())
	if len(th) > len(iso) { // fitARD ran, and left e.ard set
		e.ard = false
		fit.gain = max(0, (e.eval(iso, nil)-fit.objective)/float64(n))
		e.ard = true
	}
	return fit, nil
}

// minimise minimises e's objective from th, adding its evaluations to evals; a run stops
// when exactStall iterations have gained less than exactTol nats, after maxIter, or once
// the objective is below e.stopBelow.
func (e *exactGP) minimise(th []float64, maxIter int, evals *atomic.Int64) ([]float64, error) {
	var hist []float64
	stall := func(it optimize.Iteration) bool {
		if it.F < e.stopBelow {
			return true
		}
		hist = append(hist, it.F)
		k := len(hist)
		stall, tol := exactStall, exactTol
		if e.stall > 0 {
			stall, tol = e.stall, e.tol
		}
		return k > stall && hist[k-1-stall]-it.F < tol
	}
	r, err := optimize.Minimize(e.eval, th, optimize.Options{Method: optimize.MethodLBFGS,
		MaxIter: maxIter, GradTol: 1e-6, Callback: stall})
	evals.Add(int64(r.FuncEvals))
	if err != nil {
		return nil, fmt.Errorf("ivm: the marginal likelihood of %d rows at its start: %w",
			len(e.y), err)
	}
	return r.X, nil
}

// errNotPD is fitAt's answer where K is not positive definite.
var errNotPD = errors.New("ivm: the kernel matrix is not positive definite")

// fitAt returns the fit at the parameters th, with its leave-one-out predictions.
func (e *exactGP) fitAt(th []float64) (*exactFit, error) {
	objective := e.eval(th, nil)
	if math.IsInf(objective, 0) {
		return nil, errNotPD
	}
	// The leave-one-out predictions need only K⁻¹'s diagonal, (K⁻¹)_ii = Σ_k (U⁻¹)_ik².
	e.invertFactor()
	n := len(e.y)
	signal, bias, noise := exactVariances(th)
	fit := &exactFit{signal: signal, bias: bias, noise: noise,
		length: e.lengths(th), th: slices.Clone(th), looMean: make([]float64, n),
		looVar: make([]float64, n), objective: objective}
	for i, y := range e.y {
		row := e.uinv[i*n+i : (i+1)*n]
		v := 1 / floats.Dot(row, row)
		fit.looMean[i], fit.looVar[i] = y-e.alpha[i]*v, v
	}
	return fit, nil
}

// spec writes the fitted kernel for targets of standard deviation sd, in the terms of kern's
// rbfard: variance·exp(−½ γ Σ_d α_d (x_d − x'_d)²) with γα_d = 1/ℓ_d², α_d < 1.
func (f *exactFit) spec(sd float64) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	inv := make([]float64, len(f.length))
	for d, l := range f.length {
		inv[d] = 1 / (l * l)
	}
	gamma := slices.Max(inv) * (1 + 1e-6)
	scales := make([]string, len(inv))
	for d, v := range inv {
		scales[d] = g(v / gamma) // below 1 at 8 digits: the largest is 1/(1 + 10⁻⁶)
	}
	v2 := sd * sd
	return "rbfard(gamma=" + g(gamma) + ",variance=" + g(f.signal*v2) + ",scales=[" +
		strings.Join(scales, ",") +
		"])+bias(variance=" + g(f.bias*v2) + ")+white(variance=" + g(f.noise*v2) + ")"
}

// Result is what Regression chose: the kernel Spec for the targets as given, the Sharpness
// that calibrates its predictive variances (ivm.Predictor.Sharpness), the marginal
// likelihood's evaluations, and the mean leave-one-out −ln p(y) per row under that
// calibration.
type Result struct {
	Spec      string
	Sharpness float64
	Evals     int
	LOOLoss   float64
}

// Regression chooses the kernel of a regression task on its scaled inputs xs by
// fitExact and calibrates its error bars on the leave-one-out predictions.
func Regression(xs *mat.Dense, y []float64) (Result, error) {
	ys, sd := standardised(y)
	fit, err := fitExact(newExactGP(xs, ys), true)
	if err != nil {
		return Result{}, err
	}
	// Calibrated as the search's regression kernels are (search.RegressionSharpness), on the
	// leave-one-out predictions: the 90 %-confidence margin of the covering rule keeps the
	// intervals wide enough that a test set of a few hundred rows sees at least the nominal
	// coverage.
	//
	// The calibration widens intervals that the left-out residuals show too narrow, and does
	// not narrow them (a ≤ 1): the residuals left out of a fit whose parameters were chosen
	// on all the rows are optimistic, most where the rows are few (R's stackloss). On the
	// public regression sets the sharpness comes out below 1 anyway.
	a := min(search.RegressionSharpness(ys, fit.looMean, fit.looVar), 1)
	return Result{Spec: fit.spec(sd), Sharpness: a, Evals: fit.evals,
		LOOLoss: search.RegressionLoss(ys, fit.looMean, fit.looVar, a)}, nil
}

// standardised returns the targets y less their mean, divided by their standard deviation
// sd (1 for constant targets).
func standardised(y []float64) (ys []float64, sd float64) {
	mean, sd := stat.MeanStdDev(y, nil)
	if !(sd > 0) {
		sd = 1
	}
	ys = make([]float64, len(y))
	for i, v := range y {
		ys[i] = (v - mean) / sd
	}
	return ys, sd
}

const (
	// relevanceRows is the most rows RelevanceScaler fits the exact GP to from its starts:
	// enough to tell an input that matters from one that does not (300 synthetic rows find
	// one among 31, see fitARD), few enough that the fit costs about a second.
	relevanceRows = 400
	// relevanceRefineIter bounds a refinement's iterations (RelevanceScaler). Short-range
	// structure (the rows of one storm, one day, one place) shows only where the subsample
	// holds neighbours, which 400 rows of thousands seldom do; refining on more rows from
	// the 400 rows' optimum costs a fraction of fitting them from every start.
	relevanceRefineIter = 30
	// relevanceRefineGain is the least gain per row over one width (Relevance.Gain) on the
	// first rows for which a fit is refined: a tenth of RelevanceMinGain, for 400 rows hold
	// few neighbours; where the inputs matter alike the refinement is not paid for.
	relevanceRefineGain = 0.001
	// relevanceStall and relevanceTol (nats a row) stop a relevance fit sooner than a
	// regression's (exactStall, exactTol): the weights only scale the inputs of a search
	// that chooses the common width itself, and the last iterations move them little at
	// much of the fit's cost.
	relevanceStall = 3
	relevanceTol   = 2.5e-4
	// relevanceGainIter bounds the iterations of the one-width fit that isotropicGain
	// compares with.
	relevanceGainIter = 10
	// relevanceFloor is the least weight of a column relative to the most relevant one's:
	// below it a column is as good as ignored, and a scaler's factors must not be zero.
	relevanceFloor = RelevanceFloor
)

// Relevance is what RelevanceScaler learnt: the scaling, a progress report of its fit, and
// the log marginal likelihood per row that the per-input widths gain over one width on the
// fit's rows (near 0 where the inputs matter alike).
type Relevance struct {
	Scaler *dataset.Scaler
	Report search.Report
	Gain   float64
}

// RelevanceFloor is the least weight RelevanceScaler gives a column, relative to the most
// relevant one's: a column of this weight is as good as ignored.
const RelevanceFloor = 1e-6

// RelevanceRefineRows is the most rows a refined relevance fit uses (RelevanceScaler).
const RelevanceRefineRows = 1000

// RelevanceMinGain is the least log marginal likelihood per row that a refined fit's
// per-input widths must gain over one width (Relevance.Gain) for the projected model's
// search of a classification to try their scaling: below it the inputs matter about alike,
// the standardised scaling is that case, and a search of the other would cost as much
// again. A refined fit's gain is measured only as far as telling whether it reaches this.
const RelevanceMinGain = 0.01

// RelevanceScaler returns the scaling std (standardisation) with each column then weighted
// by its relevance to the regression targets y: ℓ_min/ℓ_d, from the exact GP's per-input
// length scales (fitARD) on at most relevanceRows rows drawn with seed, then, where refine
// is more and they gain at least relevanceRefineGain over one width, refined on up to
// refine rows. The search, whose kernel has one width for every input, then weighs this
// scaling against the others on its held-out rows: where most inputs do not matter (one
// relevant input among eight, 2 000 synthetic rows) standardised inputs drown the one that
// does and the search's best kernel predicted about the mean.
func RelevanceScaler(x mat.Matrix, y []float64, std *dataset.Scaler,
	seed uint64, refine int) (Relevance, error) {
	e, fit, gain, _, err := relevanceFit(x, y, std, seed, refine)
	if err != nil {
		return Relevance{}, err
	}
	return relevance(e, fit, gain, std, nil), nil
}

// ScreenedRelevanceScaler is RelevanceScaler of the columns cols of x alone, the others
// weighted RelevanceFloor: for inputs too many to weigh each, of which cols were screened.
// Its Gain is over one width for every column of x, on the same rows.
func ScreenedRelevanceScaler(x mat.Matrix, y []float64, std *dataset.Scaler, cols []int,
	seed uint64, refine int) (Relevance, error) {
	n, dim := x.Dims()
	xc := mat.NewDense(n, len(cols), nil)
	for k, j := range cols {
		for i := range n {
			xc.Set(i, k, x.At(i, j))
		}
	}
	sub := &dataset.Scaler{Kind: std.Kind, Shift: subset.Of(std.Shift, cols),
		Factor: subset.Of(std.Factor, cols)}
	e, fit, _, rows, err := relevanceFit(xc, y, sub, seed, refine)
	if err != nil {
		return Relevance{}, err
	}
	all, err := relevanceGP(x, y, std, rows)
	if err != nil {
		return Relevance{}, err
	}
	// One width for all the columns starts where the screened ones' would, their distances
	// grown with the number of columns.
	gain := all.isotropicGain(fit, RelevanceMinGain,
		0.5*math.Log(float64(dim)/float64(len(cols))))
	return relevance(e, fit, gain, std, cols), nil
}

// relevanceFit is RelevanceScaler's exact GP e, its fit and gain, and the rows fitted.
func relevanceFit(x mat.Matrix, y []float64, std *dataset.Scaler, seed uint64, refine int) (
	*exactGP, *exactFit, float64, []int, error) {
	n, _ := x.Dims()
	rows := subset.Random(n, relevanceRows, seed, 0x5e1e)
	e, err := relevanceGP(x, y, std, rows)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	fit, err := fitExact(e, true)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	gain := fit.gain
	if refine > relevanceRows && n > relevanceRows && gain >= relevanceRefineGain {
		more := subset.Random(n, refine, seed, 0x5e1f)
		g, err := relevanceGP(x, y, std, more)
		if err != nil {
			return nil, nil, 0, nil, err
		}
		if refined, ok := g.refine(fit); ok {
			e, fit, rows = g, refined, more
			gain = g.isotropicGain(refined, RelevanceMinGain, 0)
		}
	}
	return e, fit, gain, rows, nil
}

// relevance is the scaler of fit's weights: std's columns cols (all where nil) weighted
// ℓ_min/ℓ_d, the others RelevanceFloor.
func relevance(e *exactGP, fit *exactFit, gain float64, std *dataset.Scaler,
	cols []int) Relevance {
	dim := len(std.Factor)
	if cols == nil {
		cols = subset.All(dim)
	}
	lmin := slices.Min(fit.length)
	sc := &dataset.Scaler{Kind: dataset.ScaleRelevance, Shift: slices.Clone(std.Shift),
		Factor: make([]float64, dim), Weight: make([]float64, dim)}
	for j := range dim {
		sc.Weight[j] = relevanceFloor
	}
	for k, l := range fit.length {
		sc.Weight[cols[k]] = max(lmin/l, relevanceFloor)
	}
	for j := range dim {
		sc.Factor[j] = std.Factor[j] * sc.Weight[j]
	}
	report := search.Report{Evals: fit.evals,
		Score: search.RegressionLoss(e.y, fit.looMean, fit.looVar, 1), Kernel: fmt.Sprintf(
			"%s on %d rows, by the marginal likelihood, scored leaving one row out: the relevance "+
				"scaling's weights", fit.spec(1), len(e.y))}
	return Relevance{Scaler: sc, Report: report, Gain: gain}
}

// relevanceGP is the per-input exact GP of rows of x, scaled by std, and their
// standardised targets y.
func relevanceGP(x mat.Matrix, y []float64, std *dataset.Scaler, rows []int) (*exactGP, error) {
	xs, err := subset.Scaled(x, std, rows)
	if err != nil {
		return nil, err
	}
	ys, _ := standardised(subset.Of(y, rows))
	e := newExactGP(xs, ys)
	e.stall, e.tol = relevanceStall, relevanceTol*float64(len(rows))
	return e, nil
}

// refine refits fit, made on other rows, to e's rows, at most relevanceRefineIter
// iterations from its optimum. ok is false where the kernel matrix is not positive definite.
func (e *exactGP) refine(fit *exactFit) (*exactFit, bool) {
	e.ard = true
	var evals atomic.Int64
	th, err := e.minimise(fit.th, relevanceRefineIter, &evals)
	if err != nil {
		return nil, false
	}
	refined, err := e.fitAt(th)
	if err != nil {
		return nil, false
	}
	refined.evals = fit.evals + int(evals.Load())
	return refined, true
}

// isotropicGain is the objective per row that fit, of e's rows, gains over a single length
// scale, fitted from fit's common one (its logarithm raised by lift) for at most
// relevanceGainIter iterations (0 where that fit fails): a gain a little overstated where
// that fit has not converged, and cheap. Each iteration can only lower it, so the fit stops
// once the gain is below need: only whether it reaches need is then told.
func (e *exactGP) isotropicGain(fit *exactFit, need, lift float64) float64 {
	iso := newExactGP(e.x, e.y)
	iso.stopBelow = fit.objective + need*float64(len(e.y))
	var evals atomic.Int64
	start := slices.Clone(fit.th[:4])
	start[3] += lift
	thIso, err := iso.minimise(start, relevanceGainIter, &evals)
	if err != nil {
		return 0
	}
	return max(0, (iso.eval(thIso, nil)-fit.objective)/float64(len(e.y)))
}
