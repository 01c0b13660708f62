package local

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/strictjson"
)

// File is a local model as a model file holds it.
type File struct {
	Weights   []float64       `json:"weights"`
	Gamma     float64         `json:"gamma"`
	Signal    float64         `json:"signal_variance"`
	Noise     float64         `json:"noise_variance"`
	Scale     float64         `json:"variance_scale"`
	Rows      strictjson.Rows `json:"rows"`
	Residuals []float64       `json:"residuals"`
}

// Encode returns m's file form, whose rows share m's storage.
func Encode(m *Model) *File {
	if m == nil {
		return nil
	}
	n, _ := m.Rows.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = m.Rows.RawRowView(i)
	}
	return &File{Weights: m.Weights, Gamma: m.Gamma, Signal: m.Signal, Noise: m.Noise,
		Scale: m.Scale, Rows: rows, Residuals: m.Residuals}
}

// Decode rebuilds a local model of dim inputs from its file form, checking every part
// before it allocates, and builds its tree.
func Decode(in *File, dim int) (*Model, error) {
	if len(in.Weights) != dim {
		return nil, fmt.Errorf("local part with %d input weights for %d inputs",
			len(in.Weights), dim)
	}
	if len(in.Rows) == 0 || len(in.Rows) != len(in.Residuals) {
		return nil, fmt.Errorf("local part with %d rows and %d residuals", len(in.Rows),
			len(in.Residuals))
	}
	for i, r := range in.Rows {
		if len(r) != dim {
			return nil, fmt.Errorf("local part's row %d has %d values, want %d", i+1, len(r), dim)
		}
	}
	for name, v := range map[string]float64{"gamma": in.Gamma, "signal_variance": in.Signal,
		"noise_variance": in.Noise, "variance_scale": in.Scale} {
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("local part's %s %v: want a positive finite value", name, v)
		}
	}
	for _, w := range in.Weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("local part's input weight %v: want a positive finite value", w)
		}
	}
	rows := mat.NewDense(len(in.Rows), dim, nil)
	for i, r := range in.Rows {
		if err := finite(fmt.Sprintf("row %d", i+1), r); err != nil {
			return nil, err
		}
		rows.SetRow(i, r)
	}
	if err := finite("residuals", in.Residuals); err != nil {
		return nil, err
	}
	m := New(in.Weights, rows, in.Residuals, in.Gamma, in.Signal, in.Noise)
	m.Scale = in.Scale
	return m, nil
}

// finite returns an error where one of vs is NaN or infinite.
func finite(what string, vs []float64) error {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("local part's %s holds %v, which a model file cannot hold", what, v)
		}
	}
	return nil
}
