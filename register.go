package ivm

import (
	"errors"
	"io"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
)

// The single-task IVM's model files, and part files, which family.Load refuses with the
// advice to merge them (ivm merge and LoadPart read them).
func init() {
	family.Register(family.Format{Name: ModelFormat, Load: func(r io.Reader) (family.Model, error) {
		p, err := Load(r)
		if err != nil {
			return nil, err
		}
		return familyModel{p}, nil
	}})
	family.Register(family.Format{Name: PartFormat, Load: func(io.Reader) (family.Model, error) {
		return nil, errPartFile("a part")
	}})
}

// familyModel is a Predictor as family.Load returns it.
type familyModel struct{ p *Predictor }

func (m familyModel) Format() string         { return ModelFormat }
func (m familyModel) Kind() string           { return m.p.Task.String() }
func (m familyModel) InputDim() int          { return m.p.InputDim() }
func (m familyModel) Classes() []float64     { return m.p.Classes }
func (m familyModel) Tasks() []string        { return nil }
func (m familyModel) Save(w io.Writer) error { return m.p.Save(w) }
func (m familyModel) Unwrap() any            { return m.p }

// Predict predicts the rows of x, which name no task. For a classifier Mean and Var are
// the latent mean and variance of the model of the predicted class (binary: of the one
// model; a projected model: its latent, variance 0); a one-vs-one model has no model per
// class, and its Mean and Var are 0 (PredictLatent gives every pair's).
func (m familyModel) Predict(x *mat.Dense, tasks []string) ([]noise.Prediction, error) {
	preds, _, err := m.PredictLatent(x, tasks)
	return preds, err
}

// PredictLatent is Predict that also returns every model's latent mean and variance, as
// Predictor.Predict gives them.
func (m familyModel) PredictLatent(x *mat.Dense, tasks []string) ([]noise.Prediction,
	[]family.Latent, error) {
	if tasks != nil {
		return nil, nil, errors.New("ivm: a single-task IVM predicts rows without tasks")
	}
	preds, err := m.p.Predict(x)
	if err != nil {
		return nil, nil, err
	}
	out, latents := make([]noise.Prediction, len(preds)), make([]family.Latent, len(preds))
	oneVsOne := m.p.Pairs != nil
	for i, p := range preds {
		out[i] = noise.Prediction{Label: p.Label, Prob: p.Prob}
		latents[i] = family.Latent{Mean: p.Mean, Var: p.Var}
		if oneVsOne {
			continue
		}
		k := 0
		if m.p.Task == MultiClass {
			k = floats.MaxIdx(p.Prob)
		}
		out[i].Mean = p.Mean[k]
		if p.Var != nil { // a projected model's latents have none: 0
			out[i].Var = p.Var[k]
		}
	}
	return out, latents, nil
}
