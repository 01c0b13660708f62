package calib

import (
	"errors"
	"fmt"
	"math"

	"github.com/ivmlab/ivm/optimize"
)

// Logistic is the map from a label regression's predictive mean μ to p(y = +1):
// σ(Slope·μ + Offset), with Slope > 0, fitted to its leave-one-out means as Platt scales an
// SVM's outputs (see FitLogistic).
type Logistic struct {
	Slope  float64 `json:"slope"`
	Offset float64 `json:"offset"`
}

// Prob returns σ(Slope·mu + Offset).
func (l *Logistic) Prob(mu float64) float64 {
	return 1 / (1 + math.Exp(-(l.Slope*mu + l.Offset)))
}

// Check refuses a map that is not finite or not increasing.
func (l *Logistic) Check() error {
	if !(l.Slope > 0) || math.IsInf(l.Slope, 0) || math.IsNaN(l.Offset) || math.IsInf(l.Offset, 0) {
		return fmt.Errorf(
			"logistic map slope %v, offset %v: want a finite positive slope and a finite offset",
			l.Slope, l.Offset)
	}
	return nil
}

// ErrNoLogistic is FitLogistic's answer when the outputs do not rise with the labels.
var ErrNoLogistic = errors.New(
	"ivm: the leave-one-out means of the label regression do not rise with the labels")

// FitLogistic fits the map p(+1) = ε/2 + (1−ε)·σ(a·μ + b) to the outputs mu of rows
// labelled t = ±1 by the least mean −ln p(t), returning it and that loss.
func FitLogistic(mu, t []float64, eps float64) (Logistic, float64, error) {
	n := float64(len(mu))
	loss := func(w, grad []float64) float64 {
		sum, ga, gb := 0.0, 0.0, 0.0
		for i, m := range mu {
			z := t[i] * (w[0]*m + w[1])
			s := 1 / (1 + math.Exp(-z)) // σ(z): the map's probability of the row's label
			p := eps/2 + (1-eps)*s      // with the label noise
			sum -= math.Log(p)
			dz := -(1 - eps) * s * (1 - s) / p // ∂(−ln p)/∂z
			ga += dz * t[i] * m
			gb += dz * t[i]
		}
		if grad != nil {
			grad[0], grad[1] = ga/n, gb/n
		}
		return sum / n
	}
	r, err := optimize.Minimize(loss, []float64{1, 0},
		optimize.Options{Method: optimize.MethodLBFGS, MaxIter: 200, GradTol: 1e-9})
	if err != nil {
		return Logistic{}, 0, fmt.Errorf("ivm: calibrating the label regression: %w", err)
	}
	lg := Logistic{Slope: r.X[0], Offset: r.X[1]}
	if lg.Check() != nil {
		return Logistic{}, 0, ErrNoLogistic
	}
	return lg, r.F, nil
}
