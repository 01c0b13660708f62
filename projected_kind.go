package ivm

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
)

// ProjectedKind is a projected predictor (Decomposition Projected): one regression of all
// the classes' codes through shared centres, its probabilities the softmax of its latents
// through its score map, or for regression the regression's mean and noise variance.
type ProjectedKind struct {
	// Projected is the projected model.
	Projected *projected.Model
	// Scaler is the input scaling (nil: none).
	Scaler *dataset.Scaler
	// Sharpness is as Fit sets it, 1, or as the file holds it: the score map holds the
	// temperature and prediction does not use it.
	Sharpness float64
	// LabelNoise is the weight ε of a uniform distribution over the classes mixed into the
	// probabilities, chosen on held-out rows with the score map.
	LabelNoise float64
	// Softmax is set for classification: the probabilities are the softmax of the scores.
	Softmax bool
	// heldOut is what Fit measured on held-out rows (projected.Result.HeldOut), for
	// comparisons with other kinds; not saved.
	heldOut        *mat.Dense
	heldOutClasses []int
}

// projectedFit is a projected predictor as the fit, calibration and prediction of
// projected*.go build and read it: the predictor's shared fields and its projected kind's.
type projectedFit struct {
	*Predictor
	*ProjectedKind
}

// InputDim resolves the name both halves have: the centres' inputs.
func (p *projectedFit) InputDim() int { return p.ProjectedKind.InputDim() }

// fitProjectedKind fits p as a projected model (fitProjected) and sets its kind.
func (p *Predictor) fitProjectedKind(x mat.Matrix, y []float64, cfg *Config) error {
	k := &ProjectedKind{Sharpness: 1}
	if err := (&projectedFit{p, k}).fitProjected(x, y, cfg); err != nil {
		return err
	}
	p.Kind = k
	return nil
}

// loadProjected reads a file's projected model into p and checks it with the file's
// top-level scaling and calibration cal.
func (p *Predictor) loadProjected(in *projected.File, cal calibration) error {
	pr, err := projected.Decode(in, max(len(p.Classes), 1)) // regression: one column
	if err == nil {
		k := &ProjectedKind{Projected: pr, Scaler: cal.Scaler, Sharpness: cal.Sharpness,
			LabelNoise: cal.LabelNoise, Softmax: cal.Softmax}
		err = k.checkCalibration(cal)
		if err == nil {
			err = k.check(p)
		}
		p.Kind = k
	}
	if err != nil {
		p.Kind = nil
		return fmt.Errorf("ivm: model file: %w", err)
	}
	return nil
}

// checkCalibration refuses what a projected model does not have: a logistic map.
func (k *ProjectedKind) checkCalibration(cal calibration) error {
	if cal.Logistic != nil {
		return errors.New("a logistic map is for a binary label regression, not a projected model")
	}
	return nil
}

// InputDim is the number of inputs the centres have.
func (k *ProjectedKind) InputDim() int {
	if k.Projected == nil {
		return 0
	}
	_, dim := k.Projected.Centres.Dims()
	return dim
}

// predict predicts checked rows (predictProjected); a classifier's Mean is the latent of
// the class of the largest probability (of a binary task: of its first class), with Var 0.
func (k *ProjectedKind) predict(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	return k.predictWith(p, x, true)
}

// predictLabels is predict without the probabilities: the label is the class of the
// largest latent.
func (k *ProjectedKind) predictLabels(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	return k.predictWith(p, x, false)
}

func (k *ProjectedKind) predictWith(p *Predictor, x mat.Matrix, probs bool) ([]noise.Prediction,
	error) {
	out, err := (&projectedFit{p, k}).predictProjected(x, probs)
	if err != nil || p.Task == Regression {
		return out, err
	}
	for i := range out {
		c := 0
		switch {
		case p.Task == MultiClass && out[i].Prob != nil:
			c = floats.MaxIdx(out[i].Prob)
		case p.Task == MultiClass:
			c = floats.MaxIdx(out[i].Latent)
		}
		out[i].Mean = out[i].Latent[c]
	}
	return out, nil
}

// check validates the projected model against p's task and classes.
func (k *ProjectedKind) check(p *Predictor) error {
	return (&projectedFit{p, k}).checkProjected()
}

// encode writes the projected model under "projected" with its scaling and calibration.
func (k *ProjectedKind) encode(_ *Predictor, f *fileJSON) error {
	f.setCalibration(calibration{Scaler: k.Scaler, Sharpness: k.Sharpness,
		LabelNoise: k.LabelNoise, Softmax: k.Softmax})
	f.Projected = projected.Encode(k.Projected)
	return nil
}

// submodels is empty: a projected model has no IVM models.
func (k *ProjectedKind) submodels(*Predictor) []Submodel { return nil }
