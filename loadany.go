package ivm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/internal/fileformat"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/ssmtr"
)

// AnyModel is a model of any family, read from its model file by LoadAny: exactly one of
// the model fields is set, the one Format names. Every family has the same shape (Fit →
// Predict → Save/Load in its own package); AnyModel is the one door for a program that
// applies model files without knowing which family wrote them.
type AnyModel struct {
	// Format is the file's format: ModelFormat, multitask.ModelFormat,
	// ssmtr.ModelFormat or archipelago.ModelFormat.
	Format string
	// IVM is a single-task IVM (binary, multi-class, regression, ordinal or
	// semi-supervised).
	IVM *Predictor
	// MultiTask is a multi-task IVM.
	MultiTask *multitask.Model
	// SSMTR is an SSTR, SMTR, SSMTR or SSMTRPI model.
	SSMTR *ssmtr.Model
	// Archipelago is an Archipelago or softmax GP classifier.
	Archipelago *archipelago.Model
}

// formats are the model file formats LoadAny reads, with their readers.
var formats = []struct {
	format string
	read   func(r io.Reader, m *AnyModel) error
}{
	{ModelFormat, func(r io.Reader, m *AnyModel) (err error) { m.IVM, err = Load(r); return }},
	{multitask.ModelFormat, func(r io.Reader, m *AnyModel) (err error) {
		m.MultiTask, err = multitask.Load(r)
		return
	}},
	{ssmtr.ModelFormat, func(r io.Reader, m *AnyModel) (err error) {
		m.SSMTR, err = ssmtr.Load(r)
		return
	}},
	{archipelago.ModelFormat, func(r io.Reader, m *AnyModel) (err error) {
		m.Archipelago, err = archipelago.Load(r)
		return
	}},
}

// LoadAny reads a model file of any family, choosing the reader by the file's "format"
// field. A file of a known family in a format version this version does not read is
// refused with a message naming both versions, as each family's Load does.
func LoadAny(r io.Reader) (*AnyModel, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	format, err := fileformat.Of(b)
	switch {
	case errors.Is(err, fileformat.ErrNoFormat):
		return nil, errors.New(`ivm: not a model file (no "format" field)`)
	case err != nil:
		return nil, fmt.Errorf("ivm: not a readable model file: %w", err)
	}
	family, _, _ := strings.Cut(format, "/")
	for _, f := range formats {
		if name, _, _ := strings.Cut(f.format, "/"); name == family {
			m := &AnyModel{Format: format}
			if err := f.read(bytes.NewBuffer(b), m); err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	if format == PartFormat {
		return nil, errPartFile("a part")
	}
	return nil, fmt.Errorf("ivm: unknown model format %q (this version reads %s)", format,
		knownFormats())
}

func knownFormats() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.format
	}
	return strings.Join(names, ", ")
}

// Predict predicts the rows of x. task names each row's task for the multi-task IVM and
// SSMTR (nil for the other families). Label is the predicted class (as in the training
// labels) or the predictive mean, Prob the class probabilities; Mean and Var are the
// predictive mean and variance for regression. For an IVM classifier Mean and Var are the
// latent mean and variance of the model of the predicted class (binary: of the one model;
// a projected model: its latent, variance 0); a one-vs-one model has no model per class,
// and its Mean and Var are 0 (Predictor.Predict gives every pair's).
func (m *AnyModel) Predict(x *mat.Dense, task []string) ([]noise.Prediction, error) {
	switch {
	case m.IVM != nil:
		if task != nil {
			return nil, errors.New("ivm: a single-task IVM predicts rows without tasks")
		}
		return m.predictIVM(x)
	case m.MultiTask != nil:
		return m.MultiTask.Predict(x, task)
	case m.SSMTR != nil:
		return m.SSMTR.Predict(x, task)
	case m.Archipelago != nil:
		if task != nil {
			return nil, errors.New("ivm: an Archipelago model predicts rows without tasks")
		}
		return m.Archipelago.Predict(x)
	}
	return nil, errors.New("ivm: an empty AnyModel")
}

func (m *AnyModel) predictIVM(x *mat.Dense) ([]noise.Prediction, error) {
	preds, err := m.IVM.Predict(x)
	if err != nil {
		return nil, err
	}
	out := make([]noise.Prediction, len(preds))
	oneVsOne := m.IVM.Pairs != nil
	for i, p := range preds {
		out[i] = noise.Prediction{Label: p.Label, Prob: p.Prob}
		if oneVsOne {
			continue
		}
		k := 0
		if m.IVM.Task == MultiClass {
			k = floats.MaxIdx(p.Prob)
		}
		out[i].Mean = p.Mean[k]
		if p.Var != nil { // a projected model's latents have none: 0
			out[i].Var = p.Var[k]
		}
	}
	return out, nil
}

// Save writes the model in its family's format.
func (m *AnyModel) Save(w io.Writer) error {
	switch {
	case m.IVM != nil:
		return m.IVM.Save(w)
	case m.MultiTask != nil:
		return m.MultiTask.Save(w)
	case m.SSMTR != nil:
		return m.SSMTR.Save(w)
	case m.Archipelago != nil:
		return m.Archipelago.Save(w)
	}
	return errors.New("ivm: an empty AnyModel")
}
