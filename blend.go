package ivm

// Small binary tasks: the label regression and the probit model, blended.
//
// Where Fit has both a binary task's label regression (labels.go) and the probit search's
// model, and neither predicts its held-out rows clearly better, it keeps both and reports
// the mean of their class probabilities (BlendKind). Two calibrated models that err
// on different rows average to probabilities no worse than the mean of their log losses
// (−ln is convex) and often better than either (bench/RESULTS.md records the runs). Where
// one model's held-out log loss is more than blendRatio times the other's it is left out: a
// label regression that interpolates repeated inputs would only pull the blend towards its
// mistakes.
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

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
)

// blendRatio is the most one model's held-out log loss may exceed the other's for Fit to
// blend them (see the comment at the top of blend.go).
const blendRatio = 1.5

// blendable reports whether held-out log losses a and b are close enough to blend.
func blendable(a, b float64) bool {
	return a > 0 && b > 0 && max(a, b) < blendRatio*min(a, b)
}

// BlendKind is a binary task's blend: its members' mean class probabilities.
type BlendKind struct {
	// Members are binary predictors of one model each (*SingleKind) of the blend's classes,
	// with the same inputs: the label regression (labels.go) and the probit model, each
	// with its own kernel, scaling and calibration.
	Members []*Predictor
}

// fitBlend fits, on the scaled inputs xs, the label regression sel.partner and the probit
// model with the search's kernel spec, criterion and calibration (f's sharpness and label
// noise), and makes f their blend.
func (f *modelFit) fitBlend(xs *mat.Dense, y []float64, cfg *Config, sel *selection) error {
	labels := sel.partner
	probit := &modelFit{Predictor: &Predictor{Task: Binary, Classes: f.Classes},
		calibration: calibration{Scaler: f.Scaler, Sharpness: f.Sharpness,
			LabelNoise: f.LabelNoise}}
	quiet := *cfg
	quiet.Progress = nil // one "done" report for the task, the probit member's
	if err := labels.p.fitProblems(xs, y, &quiet, labels.spec, engine.Entropy, sel.d); err != nil {
		return err
	}
	if err := probit.fitProblems(xs, y, cfg, sel.spec, sel.criterion, sel.d); err != nil {
		return err
	}
	f.Kind = &BlendKind{Members: []*Predictor{labels.p.predictor(), probit.predictor()}}
	return nil
}

// InputDim is the number of inputs the members take.
func (k *BlendKind) InputDim() int {
	for _, mp := range k.Members {
		if mp != nil {
			return mp.InputDim()
		}
	}
	return 0
}

// predict predicts checked rows: the members' mean class probabilities, the label of the
// larger, and each member's latent mean and variance in turn; Mean and Var are the first
// member's.
func (k *BlendKind) predict(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	var out []noise.Prediction
	w := 1 / float64(len(k.Members))
	for j, mp := range k.Members {
		preds, err := mp.Kind.predict(mp, x)
		if err != nil {
			return nil, err
		}
		if j == 0 {
			out = make([]noise.Prediction, len(preds))
			for i := range out {
				out[i].Prob = make([]float64, len(p.Classes))
				out[i].Mean, out[i].Var = preds[i].Mean, preds[i].Var
			}
		}
		for i, pr := range preds {
			floats.AddScaled(out[i].Prob, w, pr.Prob)
			out[i].Latent = append(out[i].Latent, pr.Latent...)
			out[i].LatentVar = append(out[i].LatentVar, pr.LatentVar...)
		}
	}
	for i := range out {
		out[i].Label = p.Classes[floats.MaxIdx(out[i].Prob)]
	}
	return out, nil
}

// predictLabels is predict: a blend's labels need its members' probabilities.
func (k *BlendKind) predictLabels(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	return k.predict(p, x)
}

// check validates the blend against p's task and classes.
func (k *BlendKind) check(p *Predictor) error {
	return checkBlend(p, k.Members, calibration{Sharpness: 1})
}

// encode writes the members under "blend".
func (k *BlendKind) encode(p *Predictor, f *fileJSON) error {
	if err := k.check(p); err != nil {
		return fmt.Errorf("ivm: %w", err)
	}
	for _, mp := range k.Members {
		mj, err := encodeBinary(mp)
		if err != nil {
			return err
		}
		f.Blend = append(f.Blend, *mj)
	}
	return nil
}

// submodels lists the members' models, named "labels" (the label regression) or "probit".
func (k *BlendKind) submodels(*Predictor) []Submodel {
	var out []Submodel
	for _, mp := range k.Members {
		s := mp.Kind.(*SingleKind)
		name := "probit"
		if s.Logistic != nil {
			name = "labels"
		}
		out = append(out, Submodel{Name: name, Model: s.Model, Trace: s.Trace, Pair: mp})
	}
	return out
}

// loadBlend reads a blended file's members into p and checks the whole; cal is the file's
// top-level scaling and calibration, which a blend leaves to its members.
func (p *Predictor) loadBlend(in []pairJSON, cal calibration) error {
	members := make([]*Predictor, len(in))
	for j := range in {
		what := fmt.Sprintf("blend member %d", j+1)
		mp, err := decodeBinary(&in[j], what, what)
		if err != nil {
			return err
		}
		members[j] = mp
	}
	if err := checkBlend(p, members, cal); err != nil {
		return fmt.Errorf("ivm: model file: %w", err)
	}
	p.Kind = &BlendKind{Members: members}
	return nil
}

// checkBlend validates a blend of p's task: a binary task whose two or more members are
// binary predictors of one model each, of its classes, with the same inputs; no scaling or
// calibration of its own (cal).
func checkBlend(p *Predictor, members []*Predictor, cal calibration) error {
	switch {
	case p.Task != Binary || len(p.Classes) != 2:
		return fmt.Errorf("a %v task of %d classes with a blend", p.Task, len(p.Classes))
	case len(members) < 2:
		return fmt.Errorf("a blend of %d members", len(members))
	case cal != calibration{Sharpness: 1}:
		return errors.New("a blend's models, scaling and calibration are its members'")
	}
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	dim := members[0].InputDim()
	for j, mp := range members {
		s, single := (*SingleKind)(nil), false
		if mp != nil {
			s, single = mp.Kind.(*SingleKind)
		}
		switch {
		case !single || s.Model == nil:
			return fmt.Errorf("blend member %d is not a predictor of one model", j+1)
		case mp.Task != Binary || !slices.Equal(mp.Classes, p.Classes):
			return fmt.Errorf("blend member %d is a %v model of classes %v, want binary of %v",
				j+1, mp.Task, mp.Classes, p.Classes)
		case mp.InputDim() != dim:
			return fmt.Errorf("blend member %d has %d inputs, member 1 has %d",
				j+1, mp.InputDim(), dim)
		}
	}
	return nil
}

// encodeBlendedPair converts a one-vs-one pair that is a blend for a model or part file: its
// classes and members.
func encodeBlendedPair(pp *Predictor, k *BlendKind) (*pairJSON, error) {
	if err := k.check(pp); err != nil {
		return nil, fmt.Errorf("ivm: %w", err)
	}
	out := &pairJSON{Classes: pp.Classes}
	for _, mp := range k.Members {
		mj, err := encodeBinary(mp)
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
		return nil, fmt.Errorf("ivm: model file %s: a blend's models, scaling and "+
			"calibration are its members'", what)
	}
	pp := &Predictor{Task: Binary, Classes: in.Classes}
	members := make([]*Predictor, len(in.Blend))
	for j := range in.Blend {
		mp, err := decodeBinary(&in.Blend[j], fmt.Sprintf("%s, member %d", what, j+1),
			fmt.Sprintf("%s, member %d", where, j+1))
		if err != nil {
			return nil, err
		}
		members[j] = mp
	}
	if err := checkBlend(pp, members, calibration{Sharpness: 1}); err != nil {
		return nil, fmt.Errorf("ivm: model file %s: %w", what, err)
	}
	pp.Kind = &BlendKind{Members: members}
	return pp, nil
}

// binaryLabelNoise is the label noise of a binary predictor's probabilities: its own, or a
// blend's members' mean.
func binaryLabelNoise(p *Predictor) float64 {
	k, blend := p.Kind.(*BlendKind)
	if !blend {
		return p.Kind.(*SingleKind).LabelNoise
	}
	sum := 0.0
	for _, mp := range k.Members {
		sum += mp.Kind.(*SingleKind).LabelNoise
	}
	return sum / float64(len(k.Members))
}
