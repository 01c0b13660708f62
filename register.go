package ivm

import (
	"errors"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
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

// Predict predicts the rows of x, which name no task: Predictor.Predict's predictions.
func (m familyModel) Predict(x *mat.Dense, tasks []string) ([]noise.Prediction, error) {
	if tasks != nil {
		return nil, errors.New("ivm: a single-task IVM predicts rows without tasks")
	}
	return m.p.Predict(x)
}

// Query chooses the k rows of x whose labels would tell the model most (Predictor.Query,
// score a QueryScore's name): their rows, scores and predictions, best first. Package serve
// answers queries with it.
func (m familyModel) Query(x *mat.Dense, k int, score string) (rows []int, scores []float64,
	preds []noise.Prediction, err error) {
	s, err := ParseQueryScore(score)
	if err != nil {
		return nil, nil, nil, err
	}
	qs, err := m.p.Query(x, k, QueryOptions{Score: s})
	if err != nil {
		return nil, nil, nil, err
	}
	for _, q := range qs {
		rows, scores, preds = append(rows, q.Row), append(scores, q.Score),
			append(preds, q.Prediction)
	}
	return rows, scores, preds, nil
}

// Update returns the model updated with the labelled rows x and their targets y
// (Predictor.Update; activeSize and maxSwaps are UpdateOptions' ActiveSize and MaxSwaps), its
// provenance naming where the rows came from as ivm update names its file: source's File,
// SHA256 and Args. Package serve updates served models with it.
func (m familyModel) Update(x *mat.Dense, y []float64, activeSize, maxSwaps int,
	source dataset.Update) (family.Model, error) {
	q, err := m.p.Update(x, y, UpdateOptions{ActiveSize: activeSize, MaxSwaps: maxSwaps})
	if err != nil {
		return nil, err
	}
	q.Training.SourceLastUpdate(source.File, source.SHA256, source.Args)
	return familyModel{q}, nil
}

// ActiveSizes names the model's IVM models (Predictor.Submodels: "" for a single model) and
// gives each one's active set size, which package serve reports before and after an update.
func (m familyModel) ActiveSizes() (names []string, sizes []int) {
	for _, sm := range m.p.Submodels() {
		names, sizes = append(names, sm.Name), append(sizes, sm.Model.Size())
	}
	return names, sizes
}
