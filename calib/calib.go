// Package calib turns a model's latent outputs into calibrated probabilities and
// densities: sharpening, the softmax of standardised latents, a uniform mix for label
// noise, the logistic (Platt) map of a label regression's mean, and the small
// one-dimensional searches and statistics that choose them.
package calib

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/internal/vmath"
)

// MixUniform replaces the probabilities q_c by (1−eps) q_c + eps/K.
func MixUniform(q []float64, eps float64) {
	if eps == 0 {
		return
	}
	for c := range q {
		q[c] = (1-eps)*q[c] + eps/float64(len(q))
	}
}

// Sharpen replaces the class probabilities q_c (one-vs-rest ones for multi-class) by
// p_c ∝ q_c^a, computed in log space so that tiny q_c do not underflow before they are
// normalised. a = 0 means 1 (files written before Sharpness). Probabilities that are all
// zero are left as they are.
func Sharpen(q []float64, a float64) {
	var buf [16]float64
	logs := buf[:0]
	for _, v := range q {
		logs = append(logs, math.Log(v))
	}
	SharpenLogs(q, logs, a)
}

// SharpenLogs is sharpen from the logarithms logs of the probabilities, into q; where
// those are all zero (or one is NaN) q gets them unchanged.
func SharpenLogs(q, logs []float64, a float64) {
	if a == 0 {
		a = 1
	}
	top := math.Inf(-1)
	for _, l := range logs {
		top = math.Max(top, a*l)
	}
	if math.IsInf(top, -1) || math.IsNaN(top) {
		for c, l := range logs {
			q[c] = math.Exp(l)
		}
		return
	}
	sum := 0.0
	for c, l := range logs {
		q[c] = math.Exp(a*l - top)
		sum += q[c]
	}
	for c := range q {
		q[c] /= sum
	}
}

// Softmax replaces the classes' scores z_c in q by the probabilities p_c ∝ exp(a·z_c)
// (see Predictor.Softmax).
func Softmax(q []float64, a float64) {
	floats.Scale(a, q)
	top := floats.Max(q)
	for c := range q {
		q[c] -= top
	}
	vmath.Exp(q, q)
	sum := 0.0
	for _, v := range q {
		sum += v
	}
	floats.Scale(1/sum, q)
}

// SoftmaxScore is z = mu/√(1+v), the score a one-vs-rest model's latent mean mu (bias
// included) and variance v give its class in the softmax (see Predictor.Softmax).
func SoftmaxScore(mu, v float64) float64 { return mu / math.Sqrt(1+v) }

// PairedGain returns the mean of a[i] − b[i] and its standard error.
func PairedGain(a, b []float64) (mean, se float64) {
	diff := make([]float64, len(a))
	for i := range a {
		diff[i] = a[i] - b[i]
	}
	mean, sd := stat.MeanStdDev(diff, nil)
	return mean, sd / math.Sqrt(float64(len(diff)))
}

// MeanLoss is the mean of row losses, +Inf where one is NaN.
func MeanLoss(losses []float64) float64 {
	v := floats.Sum(losses) / float64(len(losses))
	if math.IsNaN(v) {
		v = math.Inf(1)
	}
	return v
}

// CoveringQuantile returns the order statistic of r (squared standardised residuals; it is
// sorted in place) that lies above their true 95 % quantile with probability 0.9: the
// validation rows' own 95 % quantile is itself an estimate (binomial, normal
// approximation).
func CoveringQuantile(r []float64) float64 {
	if len(r) == 0 {
		return 0
	}
	slices.Sort(r)
	n := float64(len(r))
	k := int(math.Ceil(0.95*n + 1.2816*math.Sqrt(0.95*0.05*n)))
	return r[max(0, min(len(r), k)-1)]
}

// GoldenMin returns an x in [lo, hi] at which the unimodal f is least, to within tol.
func GoldenMin(f func(float64) float64, lo, hi, tol float64) float64 {
	const r = 0.6180339887498949
	a, b := lo, hi
	c, d := b-r*(b-a), a+r*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - r*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + r*(b-a)
			fd = f(d)
		}
	}
	return (a + b) / 2
}
