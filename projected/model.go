package projected

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// Model is a projected model: it regresses every class's code (+1 for the class, −1 for
// the others, as one-vs-rest codes it), or a regression's targets, on the inputs with one
// Gaussian process seen through m centres, training rows drawn at random (see the package
// comment); its class probabilities are the softmax p_c ∝ exp(z_c) of the class scores
// (Scores) mixed with label noise. On large sets it is as accurate as the one-vs-rest IVMs
// or more for a fraction of their time (bench/RESULTS.md records the runs). A Model is made
// by Fit or Decode, which parse its kernel.
type Model struct {
	// Kernel is the kernel spec, an rbf of variance 1 (kern.Parse).
	Kernel string
	// Lambda is λ, the codes' noise variance in units of the kernel's variance.
	Lambda float64
	// Centres holds the m centres as rows of scaled inputs; Weights is W, m × classes.
	Centres, Weights *mat.Dense
	// Mix (classes × classes) and Offset map the latents f to the class scores
	// z = f·Mix + Offset, whose softmax p ∝ exp(z) are the class probabilities before
	// the label noise (calib.go). Where LogWeight (one a class) is set, score c adds
	// LogWeight_c·ln q_c(f), q(f) = max((f + 1)/2, LogFloor) elementwise.
	Mix       *mat.Dense
	Offset    []float64
	LogWeight []float64
	LogFloor  float64
	// NoiseVar is a regression's predictive variance, the same at every input (0 for
	// classification): the system's factor is not kept, so the latent's own variance is
	// folded into it, as the held-out residuals measured it.
	NoiseVar float64
	k        kern.Kernel
}

// toTargetUnits turns a regression fitted to targets standardised by mean and sd into one
// of the targets as given.
func (pr *Model) toTargetUnits(mean, sd float64) {
	pr.Weights.Scale(sd, pr.Weights)
	pr.Offset[0] = pr.Offset[0]*sd + mean
	pr.NoiseVar *= sd * sd
}

// newModel checks a projected model's parts and parses its kernel.
func newModel(spec string, lambda float64, centres, weights *mat.Dense,
	sm scoreMap) (*Model, error) {
	m, dim := centres.Dims()
	r, classes := weights.Dims()
	if r != m {
		return nil, fmt.Errorf("projected model with %d centres and %d rows of weights", m, r)
	}
	if mr, mc := sm.mix.Dims(); mr != classes || mc != classes || len(sm.offset) != classes {
		return nil, fmt.Errorf("projected model of %d classes with a %d×%d score map "+
			"and %d offsets", classes, mr, mc, len(sm.offset))
	}
	if err := finite("projected model's score offset", sm.offset); err != nil {
		return nil, err
	}
	if sm.logWeight != nil {
		if len(sm.logWeight) != classes {
			return nil, fmt.Errorf("projected model of %d classes with %d log weights",
				classes, len(sm.logWeight))
		}
		if !(sm.floor > 0 && sm.floor < 1) {
			return nil, fmt.Errorf("projected model's log floor %v: want a value in (0, 1)",
				sm.floor)
		}
		if err := finite("projected model's log weight", sm.logWeight); err != nil {
			return nil, err
		}
	}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("projected model's λ %v: want a positive finite value", lambda)
	}
	for name, a := range map[string]*mat.Dense{"centres": centres, "weights": weights,
		"score map": sm.mix} {
		if err := finite("projected model's "+name, a.RawMatrix().Data); err != nil {
			return nil, err
		}
	}
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return nil, fmt.Errorf("projected model's kernel: %w", err)
	}
	pr := &Model{Kernel: spec, Lambda: lambda, Centres: centres, Weights: weights, k: k}
	pr.setScoreMap(sm)
	return pr, nil
}

// setScoreMap makes sm the model's map from latents to class scores.
func (pr *Model) setScoreMap(sm scoreMap) {
	pr.Mix, pr.Offset, pr.LogWeight, pr.LogFloor = sm.mix, sm.offset, sm.logWeight, sm.floor
}

// finite returns an error naming the first of vs that is NaN or ±Inf.
func finite(name string, vs []float64) error {
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("ivm: %s %d is %v, which a model file cannot hold", name, i, v)
		}
	}
	return nil
}

// blockRows is how many rows' kernel values the projected model holds at once.
const blockRows = 2048

// Latents returns f(x) = K(x, C)·W, a row of class latents (a regression: one column) per
// row of the scaled inputs xs, made blockRows rows at a time.
func (pr *Model) Latents(xs *mat.Dense) *mat.Dense {
	n, dim := xs.Dims()
	m, classes := pr.Weights.Dims()
	out := mat.NewDense(max(n, 1), classes, nil)
	kb := mat.NewDense(max(min(blockRows, n), 1), m, nil)
	for lo := 0; lo < n; lo += blockRows {
		hi := min(n, lo+blockRows)
		kv := kb.Slice(0, hi-lo, 0, m).(*mat.Dense)
		pr.k.K(kv, xs.Slice(lo, hi, 0, dim), pr.Centres)
		out.Slice(lo, hi, 0, classes).(*mat.Dense).Mul(kv, pr.Weights)
	}
	return out
}

// Scores returns the class scores z (f·Mix + Offset, and LogWeight_c·ln q_c(f)) of one row
// of latents f, whose
// softmax is a classification's probabilities before the label noise; a regression's one
// score is its predictive mean.
func (pr *Model) Scores(f []float64) []float64 {
	return pr.scoreMap().scores(f)
}

// scoreMap returns the model's map from latents to class scores.
func (pr *Model) scoreMap() scoreMap {
	return scoreMap{mix: pr.Mix, offset: pr.Offset, logWeight: pr.LogWeight, floor: pr.LogFloor}
}
