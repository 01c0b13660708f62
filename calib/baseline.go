package calib

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Baseline sets a model's held-out log loss beside the constant predictor's, the one that
// says the class frequencies (regression: the targets' mean and variance) whatever the
// inputs. A model that does not beat it by more than the standard error of the rows'
// paired differences has learnt nothing the held-out rows can show, and a user must be
// told so rather than handed it as if it had.
type Baseline struct {
	// Model and Prior are the mean held-out −ln p(y) per row of the model and of the
	// constant predictor, on the same Rows rows; SE is the standard error of their
	// paired difference.
	Model float64 `json:"model"`
	Prior float64 `json:"prior"`
	SE    float64 `json:"se"`
	Rows  int     `json:"rows"`
}

// NewBaseline compares the row losses of a model and of the constant predictor.
func NewBaseline(model, prior []float64) *Baseline {
	_, se := PairedGain(prior, model)
	return &Baseline{Model: stat.Mean(model, nil), Prior: stat.Mean(prior, nil), SE: se,
		Rows: len(model)}
}

// Beaten says whether the model's held-out loss is below the constant predictor's by more
// than its standard error.
func (b *Baseline) Beaten() bool { return b.Prior-b.Model > b.SE }

// Warning is the line Fit adds to Predictor.Warnings when the model is not better than the
// constant predictor.
func (b *Baseline) Warning() string {
	return fmt.Sprintf("no model found beats the constant predictor: held-out log loss %.4f "+
		"against its %.4f (± %.4f, %d rows)", b.Model, b.Prior, b.SE, b.Rows)
}

// Check validates a baseline read from a model file.
func (b *Baseline) Check() error {
	for _, v := range []float64{b.Model, b.Prior, b.SE} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("baseline %v: want finite values", *b)
		}
	}
	if b.SE < 0 || b.Rows < 1 {
		return fmt.Errorf("baseline %v: want se ≥ 0 and rows ≥ 1", *b)
	}
	return nil
}

// ClassPriors returns the frequency of each of k classes among the class indices cls,
// with one pseudo-count per class: a class absent from them is not impossible.
func ClassPriors(cls []int, k int) []float64 {
	freq := make([]float64, k)
	for _, c := range cls {
		freq[c]++
	}
	for c := range freq {
		freq[c] = (freq[c] + 1) / (float64(len(cls)) + float64(k))
	}
	return freq
}

// ClassPriorLosses returns −ln π_c of each row's class c under the class frequencies of
// the rows fit (indices into classes; classPriors).
func ClassPriorLosses(fit, rows []int, classes int) []float64 {
	freq := ClassPriors(fit, classes)
	out := make([]float64, len(rows))
	for i, c := range rows {
		out[i] = -math.Log(freq[c])
	}
	return out
}

// GaussPriorLosses returns −ln N(y; mean, variance) of each target in y.
func GaussPriorLosses(y []float64, mean, variance float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = 0.5*math.Log(2*math.Pi*variance) + (v-mean)*(v-mean)/(2*variance)
	}
	return out
}
