package ivm

// Small binary tasks: the label regression and the probit model, blended.
//
// Where Fit has both a binary task's label regression (labels.go) and the probit search's
// model, and neither predicts its held-out rows clearly better, it keeps both and reports
// the mean of their class probabilities (Predictor.Blend). Two calibrated models that err
// on different rows average to probabilities no worse than the mean of their log losses
// (−ln is convex) and often better than either (measured in bench/RESULTS.md, search for
// "Tenth pass"). Where one model's held-out log loss is more than blendRatio times the
// other's it is left out: a label regression that interpolates repeated inputs would only
// pull the blend towards its mistakes.
//
// One-vs-one pairs blend by the same rule but never take the label regression alone, which
// lost accuracy there; a pair whose probit model's held-out log loss is below search.FlatLoss
// skips it.

import (
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// blendRatio is the most one model's held-out log loss may exceed the other's for Fit to
// blend them (see the comment at the top of blend.go).
const blendRatio = 1.5

// blendable reports whether held-out log losses a and b are close enough to blend.
func blendable(a, b float64) bool {
	return a > 0 && b > 0 && max(a, b) < blendRatio*min(a, b)
}

// fitBlend fits, on the scaled inputs xs, the label regression labels and the probit model
// with the search's kernel spec, criterion and calibration (p's sharpness and label noise),
// and makes p their blend.
func (p *Predictor) fitBlend(xs *mat.Dense, y []float64, cfg *Config, labels *labelMember,
	spec string, criterion Criterion, d int) error {
	probit := &Predictor{Task: Binary, Classes: p.Classes, Scaler: p.Scaler, Sharpness: p.Sharpness,
		LabelNoise: p.LabelNoise}
	quiet := *cfg
	quiet.Progress = nil // one "done" report for the task, the probit member's
	if err := labels.p.fitProblems(xs, y, &quiet, labels.spec, Entropy, d); err != nil {
		return err
	}
	if err := probit.fitProblems(xs, y, cfg, spec, criterion, d); err != nil {
		return err
	}
	p.Blend = []*Predictor{labels.p, probit}
	p.Scaler, p.Sharpness, p.LabelNoise = nil, 1, 0
	return nil
}

// predictBlend is Predict for a blend on checked inputs: the members' mean class
// probabilities, the label of the larger, and each member's latent mean and variance in
// turn.
func (p *Predictor) predictBlend(x mat.Matrix) ([]Prediction, error) {
	var out []Prediction
	w := 1 / float64(len(p.Blend))
	for j, mp := range p.Blend {
		preds, err := mp.predictChecked(x)
		if err != nil {
			return nil, err
		}
		if j == 0 {
			out = make([]Prediction, len(preds))
			for i := range out {
				out[i].Prob = make([]float64, len(p.Classes))
			}
		}
		for i, pr := range preds {
			floats.AddScaled(out[i].Prob, w, pr.Prob)
			out[i].Mean = append(out[i].Mean, pr.Mean...)
			out[i].Var = append(out[i].Var, pr.Var...)
		}
	}
	for i := range out {
		out[i].Label = p.Classes[floats.MaxIdx(out[i].Prob)]
	}
	return out, nil
}

// loadBlend reads a blended file's members into p and checks the whole.
func (p *Predictor) loadBlend(in []pairJSON) error {
	p.Blend = make([]*Predictor, len(in))
	for j := range in {
		what := fmt.Sprintf("blend member %d", j+1)
		mp, err := decodeBinary(&in[j], what, what)
		if err != nil {
			return err
		}
		p.Blend[j] = mp
	}
	if err := p.checkBlend(); err != nil {
		return fmt.Errorf("ivm: model file: %w", err)
	}
	return nil
}

// checkBlend validates a blend: a binary task whose two or more members are binary
// predictors of one model each, of its classes, with the same inputs; no models, scaling or
// calibration of its own.
func (p *Predictor) checkBlend() error {
	switch {
	case p.Task != Binary || len(p.Classes) != 2:
		return fmt.Errorf("a %v task of %d classes with a blend", p.Task, len(p.Classes))
	case len(p.Blend) < 2:
		return fmt.Errorf("a blend of %d members", len(p.Blend))
	case len(p.Models) > 0 || p.Scaler != nil || p.Sharpness != 1 || p.LabelNoise != 0 ||
		p.Logistic != nil || p.Softmax:
		return errors.New("a blend's models, scaling and calibration are its members'")
	}
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	dim := p.Blend[0].InputDim()
	for j, mp := range p.Blend {
		switch {
		case mp == nil || len(mp.Models) != 1 || mp.Models[0] == nil || mp.Blend != nil:
			return fmt.Errorf("blend member %d is not a predictor of one model", j+1)
		case mp.Task != Binary || !slices.Equal(mp.Classes, p.Classes):
			return fmt.Errorf("blend member %d is a %v model of classes %v, want binary of %v", j+1, mp.Task,
				mp.Classes, p.Classes)
		case mp.InputDim() != dim:
			return fmt.Errorf("blend member %d has %d inputs, member 1 has %d", j+1, mp.InputDim(), dim)
		}
	}
	return nil
}

// encodeBlendedPair converts a one-vs-one pair that is a blend for a model or part file: its
// classes and members.
func encodeBlendedPair(pp *Predictor) (*pairJSON, error) {
	if err := pp.checkBlend(); err != nil {
		return nil, fmt.Errorf("ivm: %w", err)
	}
	out := &pairJSON{Classes: pp.Classes}
	for _, mp := range pp.Blend {
		mj, err := encodePair(mp)
		if err != nil {
			return nil, err
		}
		out.Blend = append(out.Blend, *mj)
	}
	return out, nil
}

// decodeBlendedPair rebuilds a one-vs-one pair that is a blend (see decodeBinary).
func decodeBlendedPair(in *pairJSON, what, where string) (*Predictor, error) {
	if in.hasModel() || in.Scale != nil || in.Sharpness != 0 || in.LabelNoise != 0 ||
		in.Logistic != nil {
		return nil,
			fmt.Errorf("ivm: model file %s: a blend's models, scaling and calibration are its members'",
				what)
	}
	pp := &Predictor{Task: Binary, Classes: in.Classes, Sharpness: 1,
		Blend: make([]*Predictor, len(in.Blend))}
	for j := range in.Blend {
		mp, err := decodeBinary(&in.Blend[j], fmt.Sprintf("%s, member %d", what, j+1),
			fmt.Sprintf("%s, member %d", where, j+1))
		if err != nil {
			return nil, err
		}
		pp.Blend[j] = mp
	}
	if err := pp.checkBlend(); err != nil {
		return nil, fmt.Errorf("ivm: model file %s: %w", what, err)
	}
	return pp, nil
}

// predictBinary is Predict for a binary predictor on checked inputs, blended or not.
func (p *Predictor) predictBinary(x mat.Matrix) ([]Prediction, error) {
	if p.Blend != nil {
		return p.predictBlend(x)
	}
	return p.predictChecked(x)
}

// labelsBinary is PredictLabels for a binary predictor on checked inputs, blended or not: a
// blend's labels need its members' probabilities.
func (p *Predictor) labelsBinary(x mat.Matrix) ([]Prediction, error) {
	if p.Blend != nil {
		return p.predictBlend(x)
	}
	return p.labelsChecked(x)
}

// labelNoise is the label noise of a binary predictor's probabilities: its own, or a
// blend's members' mean.
func (p *Predictor) labelNoise() float64 {
	if p.Blend == nil {
		return p.LabelNoise
	}
	sum := 0.0
	for _, mp := range p.Blend {
		sum += mp.LabelNoise
	}
	return sum / float64(len(p.Blend))
}
