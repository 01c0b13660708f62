package ssmtr

import (
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
)

// The SSTR/SMTR/SSMTR/SSMTRPI model files, read by family.Load.
func init() {
	family.Register(family.Format{Name: ModelFormat, Load: func(r io.Reader) (family.Model, error) {
		m, err := Load(r)
		if err != nil {
			return nil, err
		}
		return familyModel{m}, nil
	}})
}

// familyModel is a Model as family.Load returns it. Rows name their task, except for a
// model fitted without tasks (its one task is named ""), whose rows name none.
type familyModel struct{ m *Model }

func (f familyModel) Format() string         { return ModelFormat }
func (f familyModel) InputDim() int          { return f.m.Dim }
func (f familyModel) Classes() []float64     { return nil }
func (f familyModel) Save(w io.Writer) error { return f.m.Save(w) }
func (f familyModel) Unwrap() any            { return f.m }

// untasked says whether the model was fitted without tasks: one task named "".
func (f familyModel) untasked() bool { return len(f.m.Names) == 1 && f.m.Names[0] == "" }

func (f familyModel) Kind() string {
	if f.untasked() {
		return "regression"
	}
	return "multitask"
}

func (f familyModel) Tasks() []string {
	if f.untasked() {
		return nil
	}
	return f.m.Names
}

func (f familyModel) Predict(x *mat.Dense, tasks []string) ([]noise.Prediction, error) {
	if tasks == nil && f.untasked() && x != nil {
		n, _ := x.Dims()
		tasks = make([]string, n)
	}
	return f.m.Predict(x, tasks)
}
