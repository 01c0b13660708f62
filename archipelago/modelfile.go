package archipelago

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/strictjson"
)

// ModelFormat names the model file format Save writes and Load reads; the method field
// says whether the file holds Archipelago or the softmax GP (one format, one reader).
const ModelFormat = "ivm-archipelago/1"

// maxClasses, maxInputs and maxPoints bound what Load accepts, so that a damaged or
// hostile file is refused with an error rather than sized into a huge allocation at
// prediction (each sample is factorised as a Points×Points matrix).
const (
	maxClasses = 10000
	maxInputs  = 1 << 20
	maxPoints  = 1 << 16
)

// modelFile is the JSON form of a Model; "format" comes first.
type modelFile struct {
	Format   string             `json:"format"`
	Method   Method             `json:"method"`
	Classes  []float64          `json:"classes"`
	Inputs   int                `json:"inputs"`
	ARD      bool               `json:"ard"`
	Nugget   float64            `json:"nugget"`
	Seed     uint64             `json:"seed"`
	Scaler   *dataset.Scaler    `json:"scaler,omitempty"`
	Chain    ChainSummary       `json:"chain"`
	Rows     int                `json:"rows"`
	Data     []float64          `json:"data"`
	Samples  []PosteriorSample  `json:"samples"`
	Training dataset.Provenance `json:"training"`
}

// Save writes the model as JSON in ModelFormat.
func (m *Model) Save(w io.Writer) error {
	if m.cov == nil {
		return errors.New("archipelago: model not fitted or loaded")
	}
	f := modelFile{Format: ModelFormat, Method: m.Method, Classes: m.Classes, Inputs: m.Inputs,
		ARD: m.ARD, Nugget: m.Nugget,
		Seed: m.Seed, Scaler: m.Scaler, Chain: m.Chain, Rows: m.Rows, Data: m.Data,
		Samples: m.Samples, Training: m.Training}
	if err := f.check(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	return enc.Encode(&f)
}

// Load reads a model written by Save, checking every field: the format and method,
// finite values, consistent sizes and usable hyperparameters. Other versions of the
// format are refused with a message naming both.
func Load(r io.Reader) (*Model, error) {
	var f modelFile
	doc, err := strictjson.Reader(r, &f)
	if err == nil && f.Format == ModelFormat {
		err = doc.Require("method", "classes", "inputs", "ard", "nugget", "seed", "chain", "rows",
			"data", "samples")
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("the file is empty or ends early (truncated?): %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("archipelago: reading model: %w", err)
	}
	if f.Format != ModelFormat {
		if name, _, _ := strings.Cut(f.Format, "/"); name == "ivm-archipelago" {
			return nil,
				fmt.Errorf("archipelago: model format %q is not supported by this version "+
					"(it reads %q)", f.Format, ModelFormat)
		}
		return nil, fmt.Errorf("archipelago: not an Archipelago model file (format %q, want %q)",
			f.Format, ModelFormat)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	cov, err := NewCov(f.Inputs, f.ARD, 1, []float64{1}, f.Nugget, 0)
	if err != nil {
		return nil, err
	}
	for i, s := range f.Samples {
		if err := cov.Clone().SetTheta(s.Theta); err != nil {
			return nil, fmt.Errorf("archipelago: sample %d: %w", i+1, err)
		}
	}
	return &Model{Method: f.Method, Classes: f.Classes, Inputs: f.Inputs, ARD: f.ARD,
		Nugget: f.Nugget, Seed: f.Seed,
		Scaler: f.Scaler, Chain: f.Chain, Rows: f.Rows, Data: f.Data, Samples: f.Samples,
		Training: f.Training, cov: cov}, nil
}

// check validates a model file's fields.
func (f *modelFile) check() error {
	if f.Method != Archipelago && f.Method != SoftmaxGP {
		return fmt.Errorf("archipelago: unknown method %d", int(f.Method))
	}
	k := len(f.Classes)
	if k < 2 || k > maxClasses {
		return fmt.Errorf("archipelago: %d classes, want 2 to %d", k, maxClasses)
	}
	for i, c := range f.Classes {
		if !finite(c) || (i > 0 && !(c > f.Classes[i-1])) {
			return errors.New("archipelago: classes must be finite, distinct and ascending")
		}
	}
	if f.Inputs < 1 || f.Inputs > maxInputs {
		return fmt.Errorf("archipelago: %d inputs", f.Inputs)
	}
	if !(f.Nugget > 0 && f.Nugget <= 1) {
		return fmt.Errorf("archipelago: nugget %v, want (0, 1]", f.Nugget)
	}
	if f.Scaler != nil {
		if err := f.Scaler.Check(f.Inputs); err != nil {
			return err
		}
	}
	if err := f.Chain.check(); err != nil {
		return err
	}
	if err := f.checkRows(); err != nil {
		return err
	}
	if len(f.Samples) == 0 {
		return errors.New("archipelago: model holds no posterior samples")
	}
	theta := 2
	if f.ARD {
		theta = 1 + f.Inputs
	}
	for i := range f.Samples {
		s := &f.Samples[i]
		if f.Method == SoftmaxGP && s.Rejections != 0 {
			return fmt.Errorf("archipelago: sample %d of a softmax GP has %d rejections",
				i+1, s.Rejections)
		}
		if err := s.check(f.Rows, f.Inputs, k, theta); err != nil {
			return fmt.Errorf("archipelago: sample %d: %w", i+1, err)
		}
	}
	return nil
}

// checkRows validates the training rows: as many as the chain used, finite.
func (f *modelFile) checkRows() error {
	want := f.Chain.Labelled
	if f.Method == Archipelago {
		want += f.Chain.Unlabelled
	}
	if f.Rows < 1 || f.Rows > maxPoints || f.Rows != want {
		return fmt.Errorf("archipelago: %d training rows, the chain used %d", f.Rows, want)
	}
	if len(f.Data) != f.Rows*f.Inputs {
		return fmt.Errorf("archipelago: %d input values for %d rows of %d inputs",
			len(f.Data), f.Rows, f.Inputs)
	}
	for _, v := range f.Data {
		if !finite(v) {
			return fmt.Errorf("archipelago: training input %v is not finite", v)
		}
	}
	return nil
}

// check validates a sample of a model with the given rows, inputs, classes and
// hyperparameters.
func (s *PosteriorSample) check(rows, inputs, classes, theta int) error {
	switch {
	case s.Rejections < 0 || s.Rejections > maxPoints-rows:
		return fmt.Errorf("%d rejections beside %d rows, want 0 to %d", s.Rejections, rows,
			maxPoints-rows)
	case s.Sweep < 0:
		return fmt.Errorf("sweep %d", s.Sweep)
	case len(s.X) != s.Rejections*inputs:
		return fmt.Errorf("%d input values for %d rejections of %d inputs", len(s.X), s.Rejections,
			inputs)
	case len(s.G) != s.Points(rows)*classes:
		return fmt.Errorf("%d function values for %d points of %d classes",
			len(s.G), s.Points(rows), classes)
	case len(s.Theta) != theta:
		return fmt.Errorf("%d hyperparameters, want %d", len(s.Theta), theta)
	}
	for _, vs := range [][]float64{s.X, s.G, s.Theta} {
		for _, v := range vs {
			if !finite(v) {
				return fmt.Errorf("value %v is not finite", v)
			}
		}
	}
	return nil
}

// check validates a chain summary (informational, but not nonsense).
func (c *ChainSummary) check() error {
	if c.Sweeps < 1 || c.Burn < 0 || c.Burn >= c.Sweeps || c.Thin < 1 || c.Labelled < 0 ||
		c.Unlabelled < 0 {
		return fmt.Errorf(
			"archipelago: chain of %d sweeps, %d burn-in, thinned by %d, over %d labelled and %d "+
				"unlabelled rows",
			c.Sweeps, c.Burn, c.Thin, c.Labelled, c.Unlabelled)
	}
	for _, v := range []float64{c.RejectionsMean, c.RejectionsSD, c.RejectionsESS,
		c.Stats.MaxJitter} {
		if !finite(v) || v < 0 {
			return fmt.Errorf("archipelago: chain summary value %v", v)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
