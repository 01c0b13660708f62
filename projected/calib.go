package projected

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/optimize"
)

// The projected model's class probabilities are a multinomial logistic regression on its
// latents, p ∝ exp(f·Mix + Offset), fitted to the held-out rows: the codes' regression
// says which classes a row resembles, and the map learns what that means, classes the
// latents confuse included (Fashion-MNIST's shirts and T-shirts). Its weights are drawn
// towards the softmax's temperature, Mix = a·I and Offset = 0, by a penalty
// ρ(‖Mix − aI‖² + ‖Offset‖²) whose ρ two-fold cross-validation on the held-out rows
// chooses among scoreRidges, or the temperature alone where that predicts the other fold
// better. Where classes are confused it lowers the test log loss well below the temperature
// alone's (bench/RESULTS.md records the runs).
//
// The same cross-validation may add the latents' log probabilities to the map's inputs,
// z_c = (f·Mix)_c + b_c·ln q_c(f) + Offset_c with q(f) = max((f + 1)/2, logFloor), the
// codes' estimate of each class's probability and b = LogWeight: a linear map of f cannot
// follow probabilities of a few per cent, whose odds differ tenfold where f barely moves (a
// rare class, a class the inputs tell apart only weakly), and a power of q can. One weight
// a class, not a second matrix: k² more weights make a many-class map's fit several times
// as long and predict no better.

// scoreRidges are the penalties ρ the cross-validation chooses from.
var scoreRidges = []float64{1e-4, 1e-3, 1e-2}

// logFloor is the least class probability q(f) the log inputs tell apart: below a few rows
// in a thousand the codes' regression does not estimate a probability.
const logFloor = 1e-3

// scoreMap is a projected model's map from latents to class scores (Model.Mix, Offset,
// LogWeight and LogFloor).
type scoreMap struct {
	mix       *mat.Dense // classes × classes
	offset    []float64
	logWeight []float64 // a weight a class, or nil: no log inputs
	floor     float64   // q's floor where logWeight is set
}

// logProb is ln q(f), the log input of latent f with the given floor.
func logProb(f, floor float64) float64 { return math.Log(max((f+1)/2, floor)) }

// scores returns the class scores of latents f (one row).
func (sm scoreMap) scores(f []float64) []float64 {
	return sm.scoresTo(make([]float64, len(sm.offset)), f)
}

// scoresTo writes the class scores of latents f into z and returns it.
func (sm scoreMap) scoresTo(z, f []float64) []float64 {
	k := len(sm.offset)
	copy(z, sm.offset)
	mix := sm.mix.RawMatrix()
	for j, v := range f {
		floats.AddScaled(z, v, mix.Data[j*mix.Stride:j*mix.Stride+k])
	}
	for c, b := range sm.logWeight {
		z[c] += b * logProb(f[c], sm.floor)
	}
	return z
}

// temperatureMap is the map p ∝ exp(a·f).
func temperatureMap(a float64, k int) scoreMap {
	mix := mat.NewDense(k, k, nil)
	for c := range k {
		mix.Set(c, c, a)
	}
	return scoreMap{mix: mix, offset: make([]float64, k)}
}

// mapLoss is the mean −ln p(class) of the rows of f under map sm and label noise eps.
func mapLoss(sm scoreMap, f *mat.Dense, cls []int, eps float64) float64 {
	return floats.Sum(mapRowLosses(sm, f, cls, eps)) / float64(max(len(cls), 1))
}

// mapRowLosses is −ln p(class) of each row of f under map sm and label noise eps.
func mapRowLosses(sm scoreMap, f *mat.Dense, cls []int, eps float64) []float64 {
	out := make([]float64, len(cls))
	z := make([]float64, len(sm.offset))
	for i, c := range cls {
		out[i] = -math.Log(sm.probsTo(z, f.RawRowView(i), eps)[c])
	}
	return out
}

// probsTo writes into z the class probabilities of latents f (one row) under the map and
// label noise eps, and returns it.
func (sm scoreMap) probsTo(z, f []float64, eps float64) []float64 {
	sm.scoresTo(z, f)
	calib.Softmax(z, 1)
	calib.MixUniform(z, eps)
	return z
}

// classLosses is −ln p(class) of each row of the probabilities p of rows of classes cls.
func classLosses(p *mat.Dense, cls []int) []float64 {
	out := make([]float64, len(cls))
	for i, c := range cls {
		out[i] = -math.Log(p.At(i, c))
	}
	return out
}

// fitScoreMap fits the map to latents f of classes cls with penalty rho towards a·I, with
// the log inputs where logs is set.
func fitScoreMap(f *mat.Dense, cls []int, a, rho float64, logs bool) (scoreMap, error) {
	n, k := f.Dims()
	var l *mat.Dense
	size := k*k + k // Mix row-major, then Offset, then (logs) LogWeight
	if logs {
		l = mat.NewDense(n, k, nil)
		for i := range n {
			for c, v := range f.RawRowView(i) {
				l.Set(i, c, logProb(v, logFloor))
			}
		}
		size += k
	}
	w0 := make([]float64, size)
	for c := range k {
		w0[c*k+c] = a
	}
	r, err := optimize.Minimize(scoreMapObjective(f, l, cls, w0, rho), w0,
		optimize.Options{Method: optimize.MethodLBFGS, MaxIter: 500, GradTol: 1e-7})
	if err != nil {
		return scoreMap{}, err
	}
	sm := scoreMap{mix: mat.NewDense(k, k, r.X[:k*k]), offset: r.X[k*k : k*k+k]}
	if logs {
		sm.logWeight, sm.floor = r.X[k*k+k:], logFloor
	}
	return sm, nil
}

// scoreMapObjective is fitScoreMap's objective of the map's parameters w (Mix row-major,
// Offset, then LogWeight where l, the log inputs of the rows of latents f, is not nil):
// the mean −ln p(class) of the rows plus rho‖w − w0‖², and its gradient into grad
// when grad is not nil. The offsets are drawn towards 0 too: a class absent from the rows would
// otherwise have its offset driven without bound.
func scoreMapObjective(f, l *mat.Dense, cls []int, w0 []float64, rho float64) func(w,
	grad []float64) float64 {
	n, k := f.Dims()
	z := make([]float64, k)
	return func(w, grad []float64) float64 {
		if grad != nil {
			clear(grad)
		}
		sum := 0.0
		for i, c := range cls {
			fi := f.RawRowView(i)
			copy(z, w[k*k:k*k+k])
			for j, v := range fi {
				floats.AddScaled(z, v, w[j*k:(j+1)*k])
			}
			if l != nil {
				for j, v := range l.RawRowView(i) {
					z[j] += w[k*k+k+j] * v
				}
			}
			calib.Softmax(z, 1)
			sum -= math.Log(z[c])
			if grad == nil {
				continue
			}
			z[c]-- // ∂(−ln p_c)/∂z = p − e_c
			for j, v := range fi {
				floats.AddScaled(grad[j*k:(j+1)*k], v/float64(n), z)
			}
			floats.AddScaled(grad[k*k:k*k+k], 1/float64(n), z)
			if l != nil {
				for j, v := range l.RawRowView(i) {
					grad[k*k+k+j] += z[j] * v / float64(n)
				}
			}
		}
		pen := 0.0
		for i, v := range w {
			d := v - w0[i]
			pen += d * d
			if grad != nil {
				grad[i] += 2 * rho * d
			}
		}
		return sum/float64(n) + rho*pen
	}
}

// calibrate chooses the projected model's score map and label noise on the held-out
// latents f of classes cls (see the comment at the top of this file). It returns
// too each row's class probabilities under the chosen family fitted to the other half of
// the rows, and their losses: an honest held-out figure, where the map fitted to every row
// would flatter itself.
func calibrate(f *mat.Dense, cls []int) (scoreMap, float64, []float64, *mat.Dense, error) {
	n, k := f.Dims()
	temp := fitSoftmax(f, cls)
	half := n / 2
	bounds := [3]int{0, half, n}
	cv := func(fit func(g *mat.Dense, c []int) (scoreMap, error)) (*mat.Dense, error) {
		probs := mat.NewDense(n, k, nil)
		for i := range 2 { // fit on half 1−i, score half i
			lo, hi := bounds[1-i], bounds[2-i]
			sm, err := fit(f.Slice(lo, hi, 0, k).(*mat.Dense), cls[lo:hi])
			if err != nil {
				return nil, err
			}
			for r := bounds[i]; r < bounds[i+1]; r++ {
				sm.probsTo(probs.RawRowView(r), f.RawRowView(r), temp.eps)
			}
		}
		return probs, nil
	}
	// The maps' fits are serial and independent: scored side by side (the temperature's
	// beside the families'), chosen in order.
	var bestProbs *mat.Dense
	var err error
	type family struct {
		rho   float64
		logs  bool
		probs *mat.Dense
		err   error
	}
	var fams []family
	for _, withLogs := range []bool{false, true} {
		for _, rho := range scoreRidges {
			fams = append(fams, family{rho: rho, logs: withLogs})
		}
	}
	pool.ForEach(1+len(fams), pool.Workers(0), func(i int) {
		if i == 0 {
			bestProbs, err = cv(func(g *mat.Dense, c []int) (scoreMap, error) {
				return temperatureMap(fitSoftmax(g, c).a, k), nil
			})
			return
		}
		fm := &fams[i-1]
		fm.probs, fm.err = cv(func(g *mat.Dense, c []int) (scoreMap, error) {
			return fitScoreMap(g, c, temp.a, fm.rho, fm.logs)
		})
	})
	if err != nil {
		return scoreMap{}, 0, nil, nil, err
	}
	bestRows := classLosses(bestProbs, cls)
	best, chosen, logs := floats.Sum(bestRows), math.Inf(1), false
	for _, fm := range fams {
		if fm.err != nil {
			continue
		}
		if rows := classLosses(fm.probs, cls); floats.Sum(rows) < best {
			best, bestRows, bestProbs, chosen, logs = floats.Sum(rows), rows, fm.probs, fm.rho,
				fm.logs
		}
	}
	sm := temperatureMap(temp.a, k)
	if !math.IsInf(chosen, 1) {
		if sm, err = fitScoreMap(f, cls, temp.a, chosen, logs); err != nil {
			return scoreMap{}, 0, nil, nil, err
		}
	}
	eps, least := calib.LabelNoiseLevels[0], math.Inf(1)
	for _, e := range calib.LabelNoiseLevels {
		if l := mapLoss(sm, f, cls, e); l < least-calib.LossTol {
			eps, least = e, l
		}
	}
	return sm, eps, bestRows, bestProbs, nil
}

// calibrateHeldOut fits the map from res's model's latents to probabilities (or, for
// regression, its predictive variance) on the held-out rows val, whose latents are f, and
// sets res's Baseline from the same rows' held-out losses against the constant predictor
// fitted to the rows rest. It returns those losses.
func (res *Result) calibrateHeldOut(f *mat.Dense, t Targets, val, rest []int) ([]float64,
	error) {
	pr := res.Model
	if t.regression() {
		yv := subset.Of(t.y, val)
		r2 := make([]float64, len(val))
		for i, y := range yv {
			r2[i] = (y - f.At(i, 0)) * (y - f.At(i, 0))
		}
		heldOut, variance := gaussianHeldOut(r2)
		pr.Mix, pr.Offset, pr.NoiseVar = mat.NewDense(1, 1, []float64{1}), []float64{0}, variance
		res.Baseline = calib.NewBaseline(heldOut, t.priorLosses(val, rest))
		return heldOut, nil
	}
	cls := subset.Of(t.cls, val)
	sm, eps, heldOut, probs, err := calibrate(f, cls)
	if err != nil {
		return nil, fmt.Errorf("ivm: calibrating the projected model: %w", err)
	}
	res.heldOut, res.heldOutClasses = probs, cls
	pr.setScoreMap(sm)
	res.LabelNoise = eps
	res.Baseline = calib.NewBaseline(heldOut, t.priorLosses(val, rest))
	return heldOut, nil
}

// gaussianHeldOut returns the predictive variance of a regression from its held-out
// squared residuals r2: their mean, widened where needed until the 95 % intervals cover
// 95 % of the rows with 90 % confidence (calib.CoveringQuantile), as the kernel search's
// calibration does. It also returns each row's −ln N(r; 0, v) with v fitted to the other
// half of the rows, an honest held-out density.
func gaussianHeldOut(r2 []float64) (losses []float64, variance float64) {
	fit := func(r []float64) float64 {
		v := max(stat.Mean(r, nil),
			calib.CoveringQuantile(slices.Clone(r))/(1.959963984540054*1.959963984540054))
		return max(v, 1e-12)
	}
	half := len(r2) / 2
	losses = make([]float64, len(r2))
	for i, part := range [2][2]int{{0, half}, {half, len(r2)}} {
		other := r2[half:]
		if i == 1 {
			other = r2[:half]
		}
		v := fit(other)
		for j := part[0]; j < part[1]; j++ {
			losses[j] = 0.5*math.Log(2*math.Pi*v) + r2[j]/(2*v)
		}
	}
	return losses, fit(r2)
}

// softmaxCalib holds a softmax calibration, its temperature a and label noise eps, and its
// mean log loss on the rows it was fitted to.
type softmaxCalib struct{ a, eps, loss float64 }

// fitSoftmax chooses the temperature and label noise (calib.LabelNoiseLevels) of the
// softmax that minimise the log loss of latents f (rows × classes) for classes cls.
func fitSoftmax(f *mat.Dense, cls []int) softmaxCalib {
	best := softmaxCalib{loss: math.Inf(1)}
	for _, eps := range calib.LabelNoiseLevels {
		_, k := f.Dims()
		loss := func(la float64) float64 {
			return mapLoss(temperatureMap(math.Exp(la), k), f, cls, eps)
		}
		la := calib.GoldenMin(loss, math.Log(0.25), math.Log(256), 1e-3)
		if l := loss(la); l < best.loss-calib.LossTol || math.IsInf(best.loss, 1) {
			best = softmaxCalib{math.Exp(la), eps, l}
		}
	}
	return best
}
