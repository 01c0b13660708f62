package archipelago

import (
	"errors"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
)

// The Archipelago and softmax GP model files, read by family.Load.
func init() {
	family.Register(family.Format{Name: ModelFormat, Load: func(r io.Reader) (family.Model, error) {
		m, err := Load(r)
		if err != nil {
			return nil, err
		}
		return familyModel{m}, nil
	}})
}

// familyModel is a Model as family.Load returns it: a classifier whose rows name no task.
type familyModel struct{ m *Model }

func (f familyModel) Format() string         { return ModelFormat }
func (f familyModel) InputDim() int          { return f.m.Inputs }
func (f familyModel) Classes() []float64     { return f.m.Classes }
func (f familyModel) Tasks() []string        { return nil }
func (f familyModel) Save(w io.Writer) error { return f.m.Save(w) }
func (f familyModel) Unwrap() any            { return f.m }

func (f familyModel) Kind() string {
	if len(f.m.Classes) == 2 {
		return "binary"
	}
	return "multiclass"
}

func (f familyModel) Predict(x *mat.Dense, tasks []string) ([]noise.Prediction, error) {
	if tasks != nil {
		return nil, errors.New("archipelago: an Archipelago model predicts rows without tasks")
	}
	return f.m.Predict(x)
}
