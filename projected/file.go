package projected

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/strictjson"
	"github.com/ivmlab/ivm/local"
)

// File is a projected model as a model file holds it (the "projected" object of the root
// package's ivm-model/1): its kernel, λ, score map, centres and weights by rows.
type File struct {
	KernelSpec string          `json:"kernel_spec"`
	Lambda     float64         `json:"lambda"`
	Mix        strictjson.Rows `json:"score_mix"`
	Offset     []float64       `json:"score_offset"`
	LogWeight  []float64       `json:"score_log_weight,omitempty"`
	LogFloor   float64         `json:"score_log_floor,omitempty"`
	Centres    strictjson.Rows `json:"centres"`
	Weights    strictjson.Rows `json:"weights"`
	NoiseVar   float64         `json:"noise_variance,omitempty"`
	// Additive is the kernel's additive part, where it has one.
	Additive *AdditiveFile `json:"additive,omitempty"`
	// Linear is a classification's linear part, where it has one.
	Linear *LinearFile `json:"linear,omitempty"`
	// Local is a regression's local part, where it has one.
	Local *local.File `json:"local,omitempty"`
	// Query is the query part (Query), where the model has one.
	Query *QueryFile `json:"query,omitempty"`
}

// QueryFile is a Query as a file holds it: the query centres' rows among the centres, the
// rows of the Gram matrix's upper triangle (row i from column i on) and the scale.
type QueryFile struct {
	Centres []int           `json:"centres"`
	Gram    strictjson.Rows `json:"gram"`
	Scale   float64         `json:"scale"`
}

// Encode returns pr's file form, whose rows share pr's storage.
func Encode(pr *Model) *File {
	return &File{KernelSpec: pr.Kernel, Lambda: pr.Lambda, Mix: denseRows(pr.Mix),
		Offset: pr.Offset, LogWeight: pr.LogWeight, LogFloor: pr.LogFloor,
		Centres: denseRows(pr.Centres), Weights: denseRows(pr.Weights), NoiseVar: pr.NoiseVar,
		Additive: encodeAdditive(pr.Additive), Linear: encodeLinear(pr.Linear),
		Local: local.Encode(pr.Local),
		Query: encodeQuery(pr.Query)}
}

func encodeQuery(q *Query) *QueryFile {
	if q == nil {
		return nil
	}
	n := q.Gram.SymmetricDim()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, n-i)
		for j := range rows[i] {
			rows[i][j] = q.Gram.At(i, i+j)
		}
	}
	return &QueryFile{Centres: q.Centres, Gram: rows, Scale: q.Scale}
}

// decodeQuery checks and rebuilds a query part of a model of the given number of centres.
func decodeQuery(in *QueryFile, centres int) (*Query, error) {
	n := len(in.Centres)
	if n < 1 || n > centres || len(in.Gram) != n {
		return nil, fmt.Errorf("projected model's query part of %d centres and %d Gram rows, "+
			"of %d centres", n, len(in.Gram), centres)
	}
	seen := make(map[int]bool, n)
	for _, c := range in.Centres {
		if c < 0 || c >= centres || seen[c] {
			return nil, fmt.Errorf("projected model's query centre %d: want distinct rows "+
				"0…%d of the centres", c, centres-1)
		}
		seen[c] = true
	}
	if !(in.Scale > 0) || math.IsInf(in.Scale, 1) {
		return nil, fmt.Errorf("projected model's query scale %v: want a positive finite value",
			in.Scale)
	}
	for i, r := range in.Gram {
		if len(r) != n-i {
			return nil, fmt.Errorf("projected model's query Gram row %d has %d values, want %d",
				i+1, len(r), n-i)
		}
		if err := finite("query Gram value", r); err != nil {
			return nil, err
		}
	}
	gram := mat.NewSymDense(n, nil)
	for i, r := range in.Gram {
		for j, v := range r {
			gram.SetSym(i, i+j, v)
		}
	}
	return &Query{Centres: in.Centres, Gram: gram, Scale: in.Scale}, nil
}

// LinearFile is a Linear as a file holds it: its weights by rows (one an input, a weight a
// class) and its biases.
type LinearFile struct {
	Weights strictjson.Rows `json:"weights"`
	Bias    []float64       `json:"bias"`
	Power   float64         `json:"power"`
}

func encodeLinear(l *Linear) *LinearFile {
	if l == nil {
		return nil
	}
	return &LinearFile{Weights: denseRows(l.Weights), Bias: l.Bias, Power: l.Power}
}

// decodeLinear checks and rebuilds the linear part of a model of dim inputs and the given
// classes.
func decodeLinear(in *LinearFile, dim, classes int) (*Linear, error) {
	if classes < 2 {
		return nil, errors.New("a linear part is for a classification, not a regression")
	}
	if len(in.Weights) != dim || len(in.Bias) != classes {
		return nil, fmt.Errorf("projected model's linear part of %d rows of weights and %d "+
			"biases, want %d and %d", len(in.Weights), len(in.Bias), dim, classes)
	}
	w := mat.NewDense(dim, classes, nil)
	for i, r := range in.Weights {
		if len(r) != classes {
			return nil, fmt.Errorf("projected model's linear weights row %d has %d values, "+
				"want %d", i+1, len(r), classes)
		}
		if err := finite("linear weight", r); err != nil {
			return nil, err
		}
		w.SetRow(i, r)
	}
	if err := finite("linear bias", append(slices.Clone(in.Bias), in.Power)); err != nil {
		return nil, err
	}
	return &Linear{Weights: w, Bias: in.Bias, Power: in.Power}, nil
}

// denseRows returns a's rows, which share its storage.
func denseRows(a *mat.Dense) [][]float64 {
	r, _ := a.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = a.RawRowView(i)
	}
	return out
}

// Decode rebuilds a projected model of the given number of classes (a regression: 1) from
// its file form, checking every part before it allocates: a corrupt or hostile file is
// refused with an error that names what is wrong.
func Decode(in *File, classes int) (*Model, error) {
	if classes < 1 {
		return nil, fmt.Errorf("projected model of %d classes", classes)
	}
	if len(in.Centres) == 0 || len(in.Centres) != len(in.Weights) {
		return nil, fmt.Errorf("projected model with %d centres and %d rows of weights",
			len(in.Centres), len(in.Weights))
	}
	dim := len(in.Centres[0])
	if dim < 1 || dim > engine.MaxInputDim {
		return nil, fmt.Errorf("projected model with %d inputs", dim)
	}
	// Check the rows before allocating: a corrupt file must not allocate its claims.
	for i := range in.Centres {
		if len(in.Centres[i]) != dim || len(in.Weights[i]) != classes {
			return nil,
				fmt.Errorf(
					"projected model's row %d has %d centre values and %d weights, "+
						"want %d and %d (one per class)",
					i+1, len(in.Centres[i]), len(in.Weights[i]), dim, classes)
		}
	}
	if len(in.Mix) != classes || len(in.Offset) != classes {
		return nil, fmt.Errorf("projected model of %d classes with %d rows of score map "+
			"and %d offsets", classes, len(in.Mix), len(in.Offset))
	}
	for i, r := range in.Mix {
		if len(r) != classes {
			return nil, fmt.Errorf("projected model's score map row %d has %d values, want %d",
				i+1, len(r), classes)
		}
	}
	dense := func(rows [][]float64, cols int) *mat.Dense {
		out := mat.NewDense(len(rows), cols, nil)
		for i, r := range rows {
			out.SetRow(i, r)
		}
		return out
	}
	pr, err := newModel(in.KernelSpec, in.Lambda, dense(in.Centres, dim),
		dense(in.Weights, classes), scoreMap{mix: dense(in.Mix, classes), offset: in.Offset,
			logWeight: in.LogWeight, floor: in.LogFloor})
	if err != nil {
		return nil, err
	}
	if !(in.NoiseVar >= 0) || math.IsInf(in.NoiseVar, 1) {
		return nil, fmt.Errorf("projected model's noise_variance %v: want a finite value ≥ 0",
			in.NoiseVar)
	}
	pr.NoiseVar = in.NoiseVar
	if in.Additive != nil {
		if pr.Additive, err = decodeAdditive(in.Additive, dim, classes); err != nil {
			return nil, err
		}
	}
	if in.Linear != nil {
		if pr.Linear, err = decodeLinear(in.Linear, dim, classes); err != nil {
			return nil, err
		}
	}
	if in.Query != nil {
		if pr.Query, err = decodeQuery(in.Query, len(in.Centres)); err != nil {
			return nil, err
		}
	}
	if in.Local != nil {
		if classes != 1 {
			return nil, fmt.Errorf("a local part is for a regression, not %d classes", classes)
		}
		if pr.Local, err = local.Decode(in.Local, dim); err != nil {
			return nil, err
		}
	}
	return pr, nil
}
