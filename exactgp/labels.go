package exactgp

// Small binary tasks: regression on the labels, calibrated by a logistic map.
//
// FitLabels regresses the labels coded ±1 on the inputs (as the search scaled them) with the
// exact GP (Gaussian noise: least-squares classification, Rasmussen & Williams §6.5), its rbf
// kernel chosen by the marginal likelihood (exact.go) or, where the leave-one-out log loss
// clearly prefers one, by a neighbour with a wider or narrower width or more noise
// (refineLabels: the likelihood scores how well the Gaussian noise fits the ±1 labels, not how
// well the mapped probabilities predict them), and turns the predictive mean μ into
// p(y = +1) = σ(slope·μ + offset), fitted to the exact leave-one-out means as Platt scales an
// SVM's outputs (calib.FitLogistic), with label noise as the search's calibration has it.

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
)

// Labels is what FitLabels chose: the kernel Spec, the Logistic map and LabelNoise
// (ivm.Predictor's fields of those names), the marginal likelihood's evaluations, and the
// leave-one-out −ln p(y) per row at the least label noise (as the probit search scores its
// kernels).
type Labels struct {
	Spec       string
	Logistic   calib.Logistic
	LabelNoise float64
	Evals      int
	LOOLoss    float64
}

// FitLabels fits the regression of a binary task's labels yc, coded ±1, on the inputs x
// scaled by sc and calibrates it on the leave-one-out means.
func FitLabels(x mat.Matrix, sc *dataset.Scaler, yc []float64) (Labels, error) {
	// Centred like the Gaussian noise model centres them (its Bias), so that the fitted
	// GP is the final model's.
	mean := stat.Mean(yc, nil)
	yz := make([]float64, len(yc))
	for i, v := range yc {
		yz[i] = v - mean
	}
	xs, err := sc.Apply(x)
	if err != nil {
		return Labels{}, err
	}
	e := newExactGP(xs, yz)
	e.stall, e.tol = labelStall, labelTol
	best, err := fitExact(e, false)
	if err != nil {
		return Labels{}, err
	}
	res := Labels{Evals: best.evals}
	if best, err = refineLabels(e, best, yc, mean, &res.Evals); err != nil {
		return Labels{}, err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	l := best.length[0]
	res.Spec = "rbf(gamma=" + f(1/(l*l)) + ",variance=" + f(best.signal) + ")+bias(variance=" +
		f(best.bias) +
		")+white(variance=" + f(best.noise) + ")"
	loo := labelLOO(best, mean)
	bestLoss := math.Inf(1)
	for _, eps := range calib.LabelNoiseLevels {
		lg, loss, err := calib.FitLogistic(loo, yc, eps)
		if err != nil {
			return Labels{}, err
		}
		if math.IsInf(bestLoss, 1) {
			res.LOOLoss = loss // at the least label noise
		}
		if loss < bestLoss-calib.LossTol || math.IsInf(bestLoss, 1) {
			res.Logistic, res.LabelNoise, bestLoss = lg, eps, loss
		}
	}
	return res, nil
}

// refineLabels returns, of the marginal likelihood's fit ml and its neighbours (labelGamma,
// labelNoise), the one whose leave-one-out means, mapped by their own logistic at the least
// label noise, have the least log loss, where that is below ml's by more than twice the
// paired standard error over the rows (a few hundred rows and fifteen candidates: the least
// of them is below ml by chance more often than not); else ml. yc are the labels ±1, mean
// what e's targets were centred by; evals counts the fits.
func refineLabels(e *exactGP, ml *exactFit, yc []float64, mean float64, evals *int) (*exactFit,
	error) {
	mlLosses := looLosses(ml, yc, mean)
	if mlLosses == nil {
		return ml, nil
	}
	best, bestGain, bestSE := ml, 0.0, 0.0
	for _, g := range labelGamma {
		for _, r := range labelNoise {
			if g == 1 && r == 0 {
				continue // ml itself
			}
			th := slices.Clone(ml.th)
			th[3] -= 0.5 * math.Log(g) // γ = 1/ℓ²
			if r > 0 {
				th[2] = math.Log(r * ml.signal)
			}
			*evals++
			f, err := e.fitAt(th)
			if errors.Is(err, errNotPD) {
				continue
			}
			if err != nil {
				return nil, err
			}
			losses := looLosses(f, yc, mean)
			if losses == nil {
				continue
			}
			if gain, se := calib.PairedGain(mlLosses, losses); gain > bestGain {
				best, bestGain, bestSE = f, gain, se
			}
		}
	}
	if bestGain > 2*bestSE {
		return best, nil
	}
	return ml, nil
}

// looLosses returns each row's −ln p(y) under f's leave-one-out means (plus mean) mapped by
// their own logistic at the least label noise; nil where no map rises with the labels yc.
func looLosses(f *exactFit, yc []float64, mean float64) []float64 {
	loo := labelLOO(f, mean)
	eps := calib.LabelNoiseLevels[0]
	lg, _, err := calib.FitLogistic(loo, yc, eps)
	if err != nil {
		return nil
	}
	losses := make([]float64, len(loo))
	for i, m := range loo {
		q := lg.Prob(m)
		if yc[i] < 0 {
			q = 1 - q
		}
		losses[i] = -math.Log(eps/2 + (1-eps)*q)
	}
	return losses
}

// labelLOO returns f's leave-one-out means of the labels, its targets having been centred
// by mean.
func labelLOO(f *exactFit, mean float64) []float64 {
	loo := make([]float64, len(f.looMean))
	for i, m := range f.looMean {
		loo[i] = m + mean
	}
	return loo
}

// labelStall and labelTol stop the label regression's marginal likelihood sooner than a
// regression's (exactStall, exactTol): after labelStall iterations that gained less than
// labelTol nats in all. Its runs end in long tails of a few thousandths of a nat per
// iteration (the bias variance drifting towards 0), which move no prediction but cost
// training time.
const (
	labelStall = 5
	labelTol   = 0.01
)

// labelGamma and labelNoise span refineLabels' neighbours of the marginal likelihood's
// kernel: its γ times each labelGamma, with its noise variance (0) or with each other
// labelNoise times its signal variance.
var (
	labelGamma = []float64{0.5, 1, 2}
	labelNoise = []float64{0, 0.01, 0.1, 0.3, 1}
)
