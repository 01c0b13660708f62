package multiclass

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/noise"
)

// Binary is a two-class model as OneVsOne combines it. Its predictions' Label is one of
// its two classes, Prob their probabilities (the second's last), and Latent ends with the
// latent mean the combination reports for the pair (LatentVar likewise).
type Binary interface {
	// Predict predicts the rows of x with probabilities and latent variances.
	Predict(x mat.Matrix) ([]noise.Prediction, error)
	// PredictLabels predicts the rows of x's labels and latent means (Prob and LatentVar
	// may be nil).
	PredictLabels(x mat.Matrix) ([]noise.Prediction, error)
}

// OneVsOne is a multi-class classifier of one binary model per pair of its classes.
type OneVsOne struct {
	// Classes are the class labels, ascending.
	Classes []float64
	// Pairs holds pair j's model, of classes a < b (PairOf(j, len(Classes))): its first
	// class Classes[a], its second Classes[b].
	Pairs []Binary
	// LabelNoise is the weight ε of the uniform distribution mixed into the coupled
	// probabilities, p_c = (1−ε) p'_c + ε/K.
	LabelNoise float64
}

// pairError names the pair whose model failed.
func (o *OneVsOne) pairError(j int, err error) error {
	a, b := PairOf(j, len(o.Classes))
	return fmt.Errorf("classes %g and %g: %w", o.Classes[a], o.Classes[b], err)
}

// Predict couples each pair's probabilities into the class probabilities (Coupler) and mixes
// in the label noise; the label is the most probable class. Latent and LatentVar hold each
// pair's, in Pairs' order; Mean and Var are 0, as no model stands for one class.
func (o *OneVsOne) Predict(x mat.Matrix) ([]noise.Prediction, error) {
	n, _ := x.Dims()
	k, pairs := len(o.Classes), len(o.Pairs)
	out := make([]noise.Prediction, n)
	r := make([][]float64, n)
	for i := range out {
		out[i].Latent, out[i].LatentVar = make([]float64, pairs), make([]float64, pairs)
		r[i] = make([]float64, k*k)
	}
	for j, pm := range o.Pairs {
		preds, err := pm.Predict(x)
		if err != nil {
			return nil, o.pairError(j, err)
		}
		a, b := PairOf(j, k)
		for i, q := range preds {
			last := len(q.Latent) - 1
			out[i].Latent[j], out[i].LatentVar[j] = q.Latent[last], q.LatentVar[last]
			r[i][a*k+b], r[i][b*k+a] = q.Prob[0], q.Prob[1]
		}
	}
	cp := NewCoupler(k)
	for i := range out {
		out[i].Prob = cp.Couple(r[i])
		calib.MixUniform(out[i].Prob, o.LabelNoise)
		out[i].Label = o.Classes[floats.MaxIdx(out[i].Prob)]
	}
	return out, nil
}

// Vote labels each row by the pairs' votes: each pair votes for its label; the label is the
// class with the most votes, the first of those tied (libsvm's rule). Latent holds the
// pairs' latent means; Prob and LatentVar are nil.
func (o *OneVsOne) Vote(x mat.Matrix) ([]noise.Prediction, error) {
	n, _ := x.Dims()
	k := len(o.Classes)
	out := make([]noise.Prediction, n)
	votes := make([][]int, n)
	for i := range out {
		out[i].Latent, votes[i] = make([]float64, len(o.Pairs)), make([]int, k)
	}
	for j, pm := range o.Pairs {
		a, b := PairOf(j, k)
		preds, err := pm.PredictLabels(x)
		if err != nil {
			return nil, o.pairError(j, err)
		}
		for i, q := range preds {
			out[i].Latent[j] = q.Latent[len(q.Latent)-1]
			if q.Label == o.Classes[b] {
				votes[i][b]++
			} else {
				votes[i][a]++
			}
		}
	}
	for i := range out {
		best := 0
		for c, v := range votes[i] {
			if v > votes[i][best] {
				best = c
			}
		}
		out[i].Label = o.Classes[best]
	}
	return out, nil
}

// OneVsRest combines one binary model per class, each telling its class from the rest,
// into class probabilities.
type OneVsRest struct {
	// Classes are the class labels, ascending, one per model.
	Classes []float64
	// Sharpness is the exponent a of p_c ∝ q_c^a, q_c class c's model's p(y=+1), or with
	// Softmax the temperature of p_c ∝ exp(a·z_c).
	Sharpness float64
	// Softmax takes p_c ∝ exp(a·z_c), z_c = μ_c/√(1+σ²_c) from class c's latent mean and
	// variance (calib.SoftmaxScore), instead of the power.
	Softmax bool
	// LabelNoise is the weight ε of the uniform distribution mixed into the probabilities.
	LabelNoise float64
}

// Combine turns q, whose Prob holds each class's model's p(y=+1) and Latent and LatentVar
// their latent means and variances, into the row's prediction: Prob the class
// probabilities, Label the most probable class, Mean and Var its model's latent.
func (o *OneVsRest) Combine(q *noise.Prediction) {
	if o.Softmax {
		for c := range q.Prob {
			q.Prob[c] = calib.SoftmaxScore(q.Latent[c], q.LatentVar[c])
		}
		calib.Softmax(q.Prob, o.Sharpness)
	} else {
		calib.Sharpen(q.Prob, o.Sharpness)
	}
	calib.MixUniform(q.Prob, o.LabelNoise)
	k := floats.MaxIdx(q.Prob)
	q.Label, q.Mean, q.Var = o.Classes[k], q.Latent[k], q.LatentVar[k]
}

// Label labels q, whose Latent holds each class's model's latent mean, by the largest:
// Label its class, Mean its latent mean.
func (o *OneVsRest) Label(q *noise.Prediction) {
	k := floats.MaxIdx(q.Latent)
	q.Label, q.Mean = o.Classes[k], q.Latent[k]
}
