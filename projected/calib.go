package projected

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
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

// scoreRidges are the penalties ρ the cross-validation chooses from.
var scoreRidges = []float64{1e-4, 1e-3, 1e-2}

// scoreMap is a projected model's map from latents to class scores (Model.Mix and Offset).
type scoreMap struct {
	mix    *mat.Dense // classes × classes
	offset []float64
}

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
	return z
}

// temperatureMap is the map p ∝ exp(a·f).
func temperatureMap(a float64, k int) scoreMap {
	mix := mat.NewDense(k, k, nil)
	for c := range k {
		mix.Set(c, c, a)
	}
	return scoreMap{mix, make([]float64, k)}
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
		sm.scoresTo(z, f.RawRowView(i))
		calib.Softmax(z, 1)
		calib.MixUniform(z, eps)
		out[i] = -math.Log(z[c])
	}
	return out
}

// fitScoreMap fits the map to latents f of classes cls with penalty rho towards a·I.
func fitScoreMap(f *mat.Dense, cls []int, a, rho float64) (scoreMap, error) {
	_, k := f.Dims()
	x0 := temperatureMap(a, k)
	w0 := append(append([]float64(nil), x0.mix.RawMatrix().Data...), x0.offset...)
	r, err := optimize.Minimize(scoreMapObjective(f, cls, x0, rho), w0,
		optimize.Options{Method: optimize.MethodLBFGS, MaxIter: 500, GradTol: 1e-7})
	if err != nil {
		return scoreMap{}, err
	}
	return scoreMap{mat.NewDense(k, k, r.X[:k*k]), r.X[k*k:]}, nil
}

// scoreMapObjective is fitScoreMap's objective of the map's parameters w (Mix row-major, then
// Offset): the mean −ln p(class) of latents f plus rho(‖Mix − x0.mix‖² + ‖Offset‖²),
// and its gradient into grad when grad is not nil. The offsets are drawn towards 0 too: a class
// absent from the rows would otherwise have its offset driven without bound.
func scoreMapObjective(f *mat.Dense, cls []int, x0 scoreMap, rho float64) func(w,
	grad []float64) float64 {
	n, k := f.Dims()
	z := make([]float64, k)
	return func(w, grad []float64) float64 {
		sm := scoreMap{mat.NewDense(k, k, w[:k*k]), w[k*k:]}
		if grad != nil {
			clear(grad)
		}
		sum := 0.0
		for i, c := range cls {
			fi := f.RawRowView(i)
			sm.scoresTo(z, fi)
			calib.Softmax(z, 1)
			sum -= math.Log(z[c])
			if grad == nil {
				continue
			}
			z[c]-- // ∂(−ln p_c)/∂z = p − e_c
			for j, v := range fi {
				floats.AddScaled(grad[j*k:(j+1)*k], v/float64(n), z)
			}
			floats.AddScaled(grad[k*k:], 1/float64(n), z)
		}
		pen := 0.0
		for i, v := range w {
			d := v // the offsets, drawn towards 0
			if i < k*k {
				d -= x0.mix.RawMatrix().Data[i]
			}
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
// too each row's loss under the chosen family fitted to the other half of the rows: an
// honest held-out figure, where the map fitted to every row would flatter itself.
func calibrate(f *mat.Dense, cls []int) (scoreMap, float64, []float64, error) {
	n, k := f.Dims()
	temp := fitSoftmax(f, cls)
	half := n / 2
	bounds := [3]int{0, half, n}
	cv := func(fit func(g *mat.Dense, c []int) (scoreMap, error)) ([]float64, error) {
		rows := make([]float64, 0, n)
		for i := range 2 { // fit on half 1−i, score half i
			lo, hi := bounds[1-i], bounds[2-i]
			sm, err := fit(f.Slice(lo, hi, 0, k).(*mat.Dense), cls[lo:hi])
			if err != nil {
				return nil, err
			}
			lo, hi = bounds[i], bounds[i+1]
			rows = append(rows, mapRowLosses(sm, f.Slice(lo, hi, 0, k).(*mat.Dense), cls[lo:hi],
				temp.eps)...)
		}
		return rows, nil
	}
	bestRows, err := cv(func(g *mat.Dense, c []int) (scoreMap, error) {
		return temperatureMap(fitSoftmax(g, c).a, k), nil
	})
	if err != nil {
		return scoreMap{}, 0, nil, err
	}
	best, chosen := floats.Sum(bestRows), math.Inf(1)
	for _, rho := range scoreRidges {
		rows, err := cv(func(g *mat.Dense, c []int) (scoreMap, error) {
			return fitScoreMap(g, c, temp.a, rho)
		})
		if err == nil && floats.Sum(rows) < best {
			best, bestRows, chosen = floats.Sum(rows), rows, rho
		}
	}
	sm := temperatureMap(temp.a, k)
	if !math.IsInf(chosen, 1) {
		if sm, err = fitScoreMap(f, cls, temp.a, chosen); err != nil {
			return scoreMap{}, 0, nil, err
		}
	}
	eps, least := calib.LabelNoiseLevels[0], math.Inf(1)
	for _, e := range calib.LabelNoiseLevels {
		if l := mapLoss(sm, f, cls, e); l < least-calib.LossTol {
			eps, least = e, l
		}
	}
	return sm, eps, bestRows, nil
}

// calibrateHeldOut fits the map from res's model's latents to probabilities (or, for
// regression, its predictive variance) on the held-out rows val, whose latents are f, and
// sets res's Baseline from the same rows' held-out losses against the constant predictor
// fitted to the rows rest.
func (res *Result) calibrateHeldOut(f *mat.Dense, t Targets, val, rest []int) error {
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
		return nil
	}
	sm, eps, heldOut, err := calibrate(f, subset.Of(t.cls, val))
	if err != nil {
		return fmt.Errorf("ivm: calibrating the projected model: %w", err)
	}
	pr.Mix, pr.Offset = sm.mix, sm.offset
	res.LabelNoise = eps
	res.Baseline = calib.NewBaseline(heldOut, t.priorLosses(val, rest))
	return nil
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
