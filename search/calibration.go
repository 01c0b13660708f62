package search

// The calibration: how the models' outputs become probabilities or densities (probMap), their
// held-out log loss, and the sharpness and label noise that it chooses.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
)

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

// probMap is how a predictor turns its models' outputs into probabilities: ivm.Predictor's
// Sharpness (a), calib.LabelNoiseLevels (eps) and Softmax.
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

// calibration returns the calibration for the validation outputs out: for regression the
// sharpness; for classification the sharpness and label noise that minimise the
// validation log loss, and for one-vs-rest multi-class the family too (ivm.Predictor.Softmax).
// The kernels are scored at the least label noise (score), as the final model reports them
// at least.
//
// One-vs-rest takes the softmax unless the power family's validation log loss is lower by
// more than twice its standard error. The validation models are smaller than the final
// one, and on the test rows of large sets the softmax did better even where the validation
// rows had preferred the power; on small sets the softmax was mostly the better too, and
// the margin keeps the power where the validation rows prefer it clearly (bench/RESULTS.md
// records the runs).
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
			"search: calibration on %d rows: power %+v lowers the log loss of softmax %+v "+
				"by %.5f ± %.5f\n",
			len(s.valClass), power, soft, gain, se)
	}
	if gain > 2*se {
		return power
	}
	return soft
}

// fitCalib returns the sharpness and label noise of the family softmax (or the power
// family) with the least validation log loss; a higher label noise only where it lowers
// the loss by more than calib.LossTol.
func (s *searcher) fitCalib(out [][2][]float64, softmax bool) probMap {
	var best probMap
	bestLoss := math.Inf(1)
	for _, e := range calib.LabelNoiseLevels {
		c := probMap{a: s.sharpness(out, e, softmax), eps: e, softmax: softmax}
		if v := s.logLoss(out, c); v < bestLoss-calib.LossTol || math.IsInf(bestLoss, 1) {
			best, bestLoss = c, v
		}
	}
	return best
}

// coveringSharpness is the largest regression sharpness at which the 95 % intervals
// μ ± 1.96·√(v/a) still cover 95 % of the validation targets, with 90 % confidence: the
// density-optimal a of a Gaussian fitted to heavy-tailed residuals narrows the intervals
// until they miss more than they say, and error bars that mean what they say come first.
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
// fit, as the search calibrates its regression kernels (see calibration): so that a kernel
// chosen another way (package exactgp) has error bars that mean the same.
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
