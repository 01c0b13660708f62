package multitask

import (
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
)

// The multi-task IVM's model files, read by family.Load.
func init() {
	family.Register(family.Format{Name: ModelFormat, Load: func(r io.Reader) (family.Model, error) {
		m, err := Load(r)
		if err != nil {
			return nil, err
		}
		return familyModel{m}, nil
	}})
}

// familyModel is a Model as family.Load returns it: every row names its task.
type familyModel struct{ m *Model }

func (f familyModel) Format() string         { return ModelFormat }
func (f familyModel) Kind() string           { return "multitask" }
func (f familyModel) InputDim() int          { return f.m.Dim() }
func (f familyModel) Classes() []float64     { return f.m.Classes() }
func (f familyModel) Save(w io.Writer) error { return f.m.Save(w) }
func (f familyModel) Unwrap() any            { return f.m }

func (f familyModel) Tasks() []string {
	names := make([]string, len(f.m.Tasks))
	for i, t := range f.m.Tasks {
		names[i] = t.Name
	}
	return names
}

// Predict is Model.Predict with, for a classifier, each row's latent posterior mean and
// variance in Latent and LatentVar (Model.PredictLatent's, without the noise model's bias).
func (f familyModel) Predict(x *mat.Dense, tasks []string) ([]noise.Prediction, error) {
	preds, mu, vs, err := f.m.PredictLatent(x, tasks)
	if err != nil || f.m.Classes() == nil {
		return preds, err
	}
	for i := range preds {
		preds[i].Latent, preds[i].LatentVar = mu[i:i+1], vs[i:i+1]
	}
	return preds, nil
}
