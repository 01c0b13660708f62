package ivm

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
)

// Predictor is a trained model as users meet it: the task, the class labels as they were
// in the training data, and its models with their input scaling and calibration, of one
// Kind (one IVM model, one per class for a one-vs-rest multi-class task, a binary
// Predictor per pair of classes for a one-vs-one one, a blend of binary predictors, or a
// projected model). It is what model files hold (Save, Load).
type Predictor struct {
	Task Task
	// Classes are the labels as in the training data: binary and semi-supervised [negative,
	// positive], multi-class and ordinal in ascending order; nil for regression.
	Classes []float64
	// Kind holds the models and how they predict: *SingleKind, *OneVsRestKind,
	// *OneVsOneKind, *BlendKind or *ProjectedKind.
	Kind Kind
	// Baseline holds the model's held-out log loss beside the constant predictor's where
	// Fit measured both (the default search); nil otherwise. Fit warns when the model does
	// not beat it.
	Baseline *calib.Baseline
	// Training records where the predictor came from.
	Training dataset.Provenance
	// Warnings are the adjustments Fit made to the configuration (not saved).
	Warnings []string
	// Part is the slice of a partitioned training this predictor holds (Config.Part; zero:
	// the whole model). Models outside it are nil; Save writes a part file.
	Part Part
}

// InputDim is the number of inputs the predictor expects.
func (p *Predictor) InputDim() int {
	if p.Kind == nil {
		return 0
	}
	return p.Kind.InputDim()
}

// Predict predicts the rows of x (see noise.Prediction for what each field holds).
func (p *Predictor) Predict(x mat.Matrix) ([]noise.Prediction, error) {
	if err := p.checkInputs(x); err != nil {
		return nil, err
	}
	return p.Kind.predict(p, x)
}

// checkInputs refuses what no prediction can use: a part's predictor, a predictor without
// models, rows of another width than the model's inputs, values that are not finite.
func (p *Predictor) checkInputs(x mat.Matrix) error {
	if p.Part.IsPart() {
		return errPartFile("part " + p.Part.String())
	}
	if _, dim := x.Dims(); dim != p.InputDim() {
		return fmt.Errorf("ivm: %d input columns, the model has %d", dim, p.InputDim())
	}
	if err := engine.CheckFinite(x); err != nil {
		return err
	}
	if p.Kind == nil {
		return errors.New("ivm: a predictor without models cannot predict")
	}
	return nil
}

// PredictLabels is Predict without the latent variances, whose triangular solves are most of
// a large model's prediction time (d² flops per row and model, against d for the mean): each
// prediction holds Label, Mean and Latent alone (Prob, Var and LatentVar nil or 0), as
// svm-predict without -b gives labels alone. Binary and regression labels are Predict's (the
// sign of the latent mean, the predictive mean). A one-vs-rest label is the class of the
// largest latent mean (bias included), which can differ from Predict's where classes are
// nearly tied; a one-vs-one label is the class with the most pairs' votes, ties to the first,
// as svm-predict's. Ordinal and semi-supervised labels need the variances, and a blend's its
// members' probabilities: those get Predict's.
func (p *Predictor) PredictLabels(x mat.Matrix) ([]noise.Prediction, error) {
	if err := p.checkInputs(x); err != nil {
		return nil, err
	}
	return p.Kind.predictLabels(p, x)
}

// PredictRows is Predict on inputs given as rows.
func (p *Predictor) PredictRows(rows [][]float64) ([]noise.Prediction, error) {
	x, err := denseRows(rows)
	if err != nil {
		return nil, err
	}
	return p.Predict(x)
}
