package projected

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/local"
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
	// Additive, if not nil, is the kernel's additive part, with its own weights.
	Additive *Additive
	// Linear, if not nil, tilts a two-class model's probabilities by a logistic regression
	// of the inputs (linear.go).
	Linear *Linear
	// Local, if not nil, corrects a regression's predictions by its nearest training rows'
	// residuals, and gives the predictive variance at each input in place of NoiseVar.
	Local *local.Model
	// Query, if not nil, is what active learning asks of the model (QueryPosterior).
	Query *Query
	k     kern.Kernel
}

// toTargetUnits turns a regression fitted to targets standardised by mean and sd into one
// of the targets as given.
func (pr *Model) toTargetUnits(mean, sd float64) {
	pr.Weights.Scale(sd, pr.Weights)
	if pr.Additive != nil {
		pr.Additive.Weights.Scale(sd, pr.Additive.Weights)
	}
	pr.Offset[0] = pr.Offset[0]*sd + mean
	pr.NoiseVar *= sd * sd
	if pr.Query != nil {
		pr.Query.Scale *= sd * sd
	}
	if l := pr.Local; l != nil {
		for i := range l.Residuals {
			l.Residuals[i] *= sd
		}
		l.Signal, l.Noise = l.Signal*sd*sd, l.Noise*sd*sd
	}
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

// Latents returns f(x) = K(x, C)·W (and the additive part's), a row of class latents (a
// regression: one column) per row of the scaled inputs xs, made blockRows rows at a time,
// the blocks side by side on the cores (each computed as it would be alone).
func (pr *Model) Latents(xs *mat.Dense) *mat.Dense {
	n, dim := xs.Dims()
	_, classes := pr.Weights.Dims()
	m := pr.featureCount()
	w := pr.allWeights()
	out := mat.NewDense(max(n, 1), classes, nil)
	blocks := (n + blockRows - 1) / blockRows
	workers := min(pool.Workers(0), blocks)
	kbs := make([]*mat.Dense, workers)
	pool.ForEachWorker(blocks, workers, func(worker, b int) {
		lo, hi := b*blockRows, min(n, (b+1)*blockRows)
		if kbs[worker] == nil {
			kbs[worker] = mat.NewDense(min(blockRows, n), m, nil)
		}
		kv := kbs[worker].Slice(0, hi-lo, 0, m).(*mat.Dense)
		pr.featureRows(kv, xs.Slice(lo, hi, 0, dim).(*mat.Dense))
		out.Slice(lo, hi, 0, classes).(*mat.Dense).Mul(kv, w)
	})
	return out
}

// featureCount is the number of the model's features: its centres and its additive knots.
func (pr *Model) featureCount() int {
	m, _ := pr.Centres.Dims()
	return m + pr.Additive.Knots()
}

// featureRows writes the features of the scaled rows xs into dst (rows × featureCount()): the
// kernel against the centres, then the additive part's.
func (pr *Model) featureRows(dst, xs *mat.Dense) {
	m, _ := pr.Centres.Dims()
	rows, _ := xs.Dims()
	pr.k.K(dst.Slice(0, rows, 0, m).(*mat.Dense), xs, pr.Centres)
	if a := pr.Additive.Knots(); a > 0 {
		pr.Additive.features(dst.Slice(0, rows, m, m+a).(*mat.Dense), xs)
	}
}

// allWeights is the features' weights: W above the additive part's.
func (pr *Model) allWeights() *mat.Dense {
	if pr.Additive == nil {
		return pr.Weights
	}
	var w mat.Dense
	w.Stack(pr.Weights, pr.Additive.Weights)
	return &w
}

// solve solves sys, which holds K_fnK_nf and K_fnY for the model's features f, with the
// prior of its weights (λK_mm, and the additive part's) and sets the model's weights; it
// returns the jitter the factorisation needed.
func (pr *Model) solve(sys *system) (float64, error) {
	m, dim := pr.Centres.Dims()
	if pr.Additive != nil {
		pr.Additive.addPrior(sys.g, m, pr.Lambda)
	}
	w, jit, err := sys.solve(pr.Lambda, centresPrior(m, func(dst *mat.Dense, lo, hi int) {
		pr.k.K(dst, pr.Centres.Slice(lo, hi, 0, dim), pr.Centres)
	}))
	if err == nil {
		pr.splitWeights(w)
	}
	return jit, err
}

// centresPrior returns the rows lo…hi−1 of the prior of a system whose first m features are
// the centres, their rows of K_mm from kmm (into dst, hi−lo rows by m), and zero for the
// features after them: the additive part adds its own prior to the system apart.
func centresPrior(m int, kmm func(dst *mat.Dense, lo, hi int)) func(dst *mat.Dense, lo, hi int) {
	return func(dst *mat.Dense, lo, hi int) {
		dst.Zero()
		if lo < m {
			kmm(dst.Slice(0, min(hi, m)-lo, 0, m).(*mat.Dense), lo, min(hi, m))
		}
	}
}

// splitWeights sets W and the additive part's weights from the features' weights w.
func (pr *Model) splitWeights(w *mat.Dense) {
	m, _ := pr.Centres.Dims()
	r, c := w.Dims()
	pr.Weights = mat.DenseCopyOf(w.Slice(0, m, 0, c))
	if pr.Additive != nil {
		pr.Additive.Weights = mat.DenseCopyOf(w.Slice(m, r, 0, c))
	}
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
