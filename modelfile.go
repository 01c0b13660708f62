package ivm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// ModelFormat is the version string of the model files this package writes. ReadModel
// refuses any other.
const ModelFormat = "ivm-model/1"

// ModelMeta is what a model file holds besides the model itself.
type ModelMeta struct {
	// Labels are the original labels of the classes −1 and +1 of a binary model (nil when
	// the training labels were −1 and +1 already).
	Labels []float64 `json:"labels,omitempty"`
	// Training records where the model came from.
	Training Provenance `json:"training"`
	// Trace is the learning trace of Algorithm 2 (one record per outer iteration and a
	// Final one), empty when the kernel was fixed.
	Trace []IterTrace `json:"trace,omitempty"`
}

// Provenance records how a model was trained: the training file's base name, SHA-256 and
// row count, the command-line arguments, the start time (RFC 3339) and the seconds taken.
type Provenance struct {
	File    string   `json:"file,omitempty"`
	SHA256  string   `json:"sha256,omitempty"`
	Rows    int      `json:"rows,omitempty"`
	Args    []string `json:"args,omitempty"`
	Time    string   `json:"time,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
}

// modelJSON is the on-disk form of a model, ivm-model/1.
type modelJSON struct {
	Format          string          `json:"format"`
	KernelSpec      string          `json:"kernel_spec"`
	Kernel          json.RawMessage `json:"kernel"`
	Noise           json.RawMessage `json:"noise"`
	InputDim        int             `json:"input_dim"`
	Active          []int           `json:"active"`
	ActiveInputs    [][]float64     `json:"active_inputs"`
	SiteMean        []float64       `json:"site_mean"`
	SitePrecision   []float64       `json:"site_precision"`
	FactorPrecision []float64       `json:"factor_precision,omitempty"`
	ModelMeta
}

// WriteModel writes m as versioned JSON (ModelFormat). The kernel must be a *kern.Sum (wrap a
// single kernel with kern.NewSum). Values that JSON cannot hold (NaN, ±Inf) are an error,
// and nothing is written then.
func WriteModel(w io.Writer, m *Model, meta *ModelMeta) error {
	sum, ok := m.Kernel.(*kern.Sum)
	if !ok {
		return fmt.Errorf("ivm: model files need a *kern.Sum kernel, not %T", m.Kernel)
	}
	kj, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("ivm: encoding the kernel: %w", err)
	}
	nj, err := noise.Marshal(m.Noise)
	if err != nil {
		return fmt.Errorf("ivm: encoding the noise model: %w", err)
	}
	d, dim := m.XActive.Dims()
	out := modelJSON{Format: ModelFormat, KernelSpec: sum.String(), Kernel: kj, Noise: nj, InputDim: dim,
		Active: m.Active, SiteMean: m.SiteM, SitePrecision: m.SiteBeta}
	if meta != nil {
		out.ModelMeta = *meta
	}
	if !slices.Equal(m.FactorBeta, m.SiteBeta) {
		out.FactorPrecision = m.FactorBeta
	}
	out.ActiveInputs = make([][]float64, d)
	for i := range out.ActiveInputs {
		out.ActiveInputs[i] = m.XActive.RawRowView(i)
	}
	for name, vs := range map[string][]float64{"site mean": out.SiteMean, "site precision": out.SitePrecision,
		"factor precision": out.FactorPrecision, "labels": out.Labels} {
		if err := finite(name, vs); err != nil {
			return err
		}
	}
	for i, r := range out.ActiveInputs {
		if err := finite(fmt.Sprintf("active input %d", i), r); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return fmt.Errorf("ivm: encoding the model: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func finite(name string, vs []float64) error {
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("ivm: %s %d is %v, which a model file cannot hold", name, i, v)
		}
	}
	return nil
}

// ReadModel reads a model written by WriteModel. An unknown format version, a missing or
// inconsistent field, or a model whose active-set matrix cannot be factorised is an error
// that says which.
func ReadModel(r io.Reader) (*Model, *ModelMeta, error) {
	var in modelJSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&in); err != nil {
		return nil, nil, fmt.Errorf("ivm: not a readable model file: %w", err)
	}
	switch {
	case in.Format == "":
		return nil, nil, errors.New(`ivm: not a model file (no "format" field)`)
	case in.Format != ModelFormat:
		if strings.HasPrefix(in.Format, "ivm-model/") {
			return nil, nil, fmt.Errorf("ivm: model format %q is not supported by this version (it reads %q)", in.Format, ModelFormat)
		}
		return nil, nil, fmt.Errorf("ivm: unknown model format %q", in.Format)
	case len(in.Kernel) == 0 || len(in.Noise) == 0:
		return nil, nil, errors.New("ivm: model file lacks its kernel or noise model")
	case in.InputDim < 1:
		return nil, nil, fmt.Errorf("ivm: model file has input dimension %d", in.InputDim)
	case len(in.ActiveInputs) == 0:
		return nil, nil, errors.New("ivm: model file has no active points")
	}
	var sum kern.Sum
	if err := json.Unmarshal(in.Kernel, &sum); err != nil {
		return nil, nil, fmt.Errorf("ivm: model file kernel: %w", err)
	}
	nm, err := noise.Unmarshal(in.Noise)
	if err != nil {
		return nil, nil, fmt.Errorf("ivm: model file noise model: %w", err)
	}
	d := len(in.ActiveInputs)
	xa := mat.NewDense(d, in.InputDim, nil)
	for i, row := range in.ActiveInputs {
		if len(row) != in.InputDim {
			return nil, nil, fmt.Errorf("ivm: model file active input %d has %d values, want %d", i, len(row), in.InputDim)
		}
		xa.SetRow(i, row)
	}
	factor := in.FactorPrecision
	if factor == nil {
		factor = in.SitePrecision
	}
	m, err := NewModel(&sum, nm, xa, in.Active, in.SiteMean, in.SitePrecision, factor)
	if err != nil {
		return nil, nil, err
	}
	meta := in.ModelMeta
	return m, &meta, nil
}

// iterTraceJSON is IterTrace with the numbers that may be undefined (NaN when a figure
// could not be computed, ±Inf) as pointers, written as null.
type iterTraceJSON struct {
	Iter          int       `json:"iter"`
	HeldOut       *float64  `json:"held_out"`
	KernelBefore  *float64  `json:"kernel_before,omitempty"`
	KernelAfter   *float64  `json:"kernel_after,omitempty"`
	KernelSteps   int       `json:"kernel_steps,omitempty"`
	NoiseBefore   *float64  `json:"noise_before,omitempty"`
	NoiseAfter    *float64  `json:"noise_after,omitempty"`
	NoiseSteps    int       `json:"noise_steps,omitempty"`
	KernelParams  []float64 `json:"kernel_params,omitempty"`
	NoiseParams   []float64 `json:"noise_params,omitempty"`
	EPFailures    int       `json:"ep_failures,omitempty"`
	EPUnconverged int       `json:"ep_unconverged,omitempty"`
	Halvings      int       `json:"halvings,omitempty"`
	Rejected      bool      `json:"rejected,omitempty"`
	Final         bool      `json:"final,omitempty"`
}

// MarshalJSON writes a trace record; undefined figures (NaN, ±Inf) become null and zero
// objective values are omitted (the step did not run).
func (t IterTrace) MarshalJSON() ([]byte, error) {
	num := func(v float64, keepZero bool) *float64 {
		if bad(v) || (v == 0 && !keepZero) {
			return nil
		}
		return &v
	}
	j := iterTraceJSON{Iter: t.Iter, HeldOut: num(t.HeldOut, true),
		KernelBefore: num(t.KernelBefore, false), KernelAfter: num(t.KernelAfter, false), KernelSteps: t.KernelSteps,
		NoiseBefore: num(t.NoiseBefore, false), NoiseAfter: num(t.NoiseAfter, false), NoiseSteps: t.NoiseSteps,
		KernelParams: t.KernelParams, NoiseParams: t.NoiseParams, EPFailures: t.EPFailures, EPUnconverged: t.EPUnconverged,
		Halvings: t.Halvings, Rejected: t.Rejected, Final: t.Final}
	if j.HeldOut == nil {
		// null rather than absent: the field is always there, undefined or not.
		return json.Marshal(struct {
			iterTraceJSON
			HeldOut json.RawMessage `json:"held_out"`
		}{j, json.RawMessage("null")})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; a null held-out figure becomes NaN.
func (t *IterTrace) UnmarshalJSON(data []byte) error {
	var j iterTraceJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	val := func(p *float64, missing float64) float64 {
		if p == nil {
			return missing
		}
		return *p
	}
	*t = IterTrace{Iter: j.Iter, HeldOut: val(j.HeldOut, math.NaN()),
		KernelBefore: val(j.KernelBefore, 0), KernelAfter: val(j.KernelAfter, 0), KernelSteps: j.KernelSteps,
		NoiseBefore: val(j.NoiseBefore, 0), NoiseAfter: val(j.NoiseAfter, 0), NoiseSteps: j.NoiseSteps,
		KernelParams: j.KernelParams, NoiseParams: j.NoiseParams, EPFailures: j.EPFailures, EPUnconverged: j.EPUnconverged,
		Halvings: j.Halvings, Rejected: j.Rejected, Final: j.Final}
	return nil
}
