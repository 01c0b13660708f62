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

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/strictjson"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
)

// ModelFormat is the version string of the model files this package writes. ReadModel
// refuses any other.
const ModelFormat = "ivm-model/1"

// ModelMeta is what a model file holds besides one model, for WriteModel and ReadModel.
type ModelMeta struct {
	// Labels are the original labels of the classes −1 and +1 of a binary model (nil when
	// the training labels were −1 and +1 already).
	Labels []float64
	// Training records where the model came from.
	Training Provenance
	// Trace is the learning trace of Algorithm 2 (one record per outer iteration and a
	// Final one), empty when the kernel was fixed.
	Trace []IterTrace
}

// Provenance records how a model was trained (see dataset.Provenance); every model
// family's file holds one.
type Provenance = dataset.Provenance

// modelJSON is one IVM model on disk.
type modelJSON struct {
	KernelSpec      string          `json:"kernel_spec"`
	Kernel          json.RawMessage `json:"kernel"`
	Noise           json.RawMessage `json:"noise"`
	InputDim        int             `json:"input_dim"`
	Active          []int           `json:"active"`
	ActiveInputs    [][]float64     `json:"active_inputs"`
	SiteMean        []float64       `json:"site_mean"`
	SitePrecision   []float64       `json:"site_precision"`
	FactorPrecision []float64       `json:"factor_precision,omitempty"`
	// Class is the positive class of a one-vs-rest model.
	Class *float64 `json:"class,omitempty"`
	// Trace is a one-vs-rest model's learning trace.
	Trace []IterTrace `json:"trace,omitempty"`
}

// fileScale is a model file's "scale": the scaler's fields, or the string "none" for a
// model of unscaled inputs, so that a file cut of its "scale" cannot pass for one.
type fileScale struct{ s *Scaler }

func (f fileScale) MarshalJSON() ([]byte, error) {
	if f.s == nil {
		return []byte(`"none"`), nil
	}
	return json.Marshal(f.s)
}

func (f *fileScale) UnmarshalJSON(b []byte) error {
	if string(b) == `"none"` {
		f.s = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		return fmt.Errorf(`scale %s: want "none" or the scaling's object`, b)
	}
	f.s = new(Scaler)
	return json.Unmarshal(b, f.s)
}

// scaledAtTraining reports whether a model trained by the command line args scaled its
// inputs: every ivm train does unless told -scale none. Files written before "scale":
// "none" omit "scale" only then, so a file that lacks it otherwise was cut. Without args
// (a model saved by a program) nothing can be told.
func scaledAtTraining(args []string) bool {
	if len(args) == 0 || args[0] != "train" {
		return false
	}
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if name != "-scale" && name != "scale" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		return value != "none"
	}
	return true
}

// scaler returns the scaler, nil for "none" or a file without "scale".
func (f *fileScale) scaler() *Scaler {
	if f == nil {
		return nil
	}
	return f.s
}

// pairJSON is a binary predictor inside a model or part file (a one-vs-one pair, a blend's
// member): its two classes, scaling and calibration, and its model, or for a blended pair
// its members instead.
type pairJSON struct {
	Classes    []float64       `json:"classes"`
	Scale      *Scaler         `json:"scale,omitempty"`
	Sharpness  float64         `json:"sharpness,omitempty"`
	LabelNoise float64         `json:"label_noise,omitempty"`
	Logistic   *calib.Logistic `json:"logistic,omitempty"`
	Blend      []pairJSON      `json:"blend,omitempty"`
	modelJSON
}

// MarshalJSON writes a blended pair as its classes and members alone, without the empty
// fields of a model it does not have.
func (pj pairJSON) MarshalJSON() ([]byte, error) {
	type plain pairJSON // without this method
	if pj.Blend != nil {
		return json.Marshal(struct {
			Classes []float64  `json:"classes"`
			Blend   []pairJSON `json:"blend"`
		}{pj.Classes, pj.Blend})
	}
	return json.Marshal(plain(pj))
}

// hasModel reports whether any of a model's fields is set.
func (pj *pairJSON) hasModel() bool {
	m := &pj.modelJSON
	return m.KernelSpec != "" || m.Kernel != nil || m.Noise != nil || m.InputDim != 0 ||
		m.Active != nil || m.ActiveInputs != nil ||
		m.SiteMean != nil || m.SitePrecision != nil || m.FactorPrecision != nil || m.Class != nil ||
		m.Trace != nil
}

// fileJSON is a model file, ivm-model/1: a Predictor. A single model's fields sit at the
// top level (so a binary, regression, ordinal or semi-supervised file reads as one flat
// object); a one-vs-rest multi-class file lists its models under "models", a one-vs-one
// file its pairs under "pairs".
type fileJSON struct {
	Format  string    `json:"format"`
	Task    Task      `json:"task"`
	Classes []float64 `json:"classes,omitempty"`
	// Scale is the input scaling, "none" for inputs used as they are; files written
	// before "none" was written omit it for those, and still read as unscaled.
	Scale *fileScale `json:"scale,omitempty"`
	// Sharpness is Predictor.Sharpness; absent (0) in files written before it, meaning 1.
	Sharpness float64 `json:"sharpness,omitempty"`
	// LabelNoise is Predictor.LabelNoise; absent means 0.
	LabelNoise float64 `json:"label_noise,omitempty"`
	// Softmax is Predictor.Softmax; absent means false.
	Softmax bool `json:"softmax,omitempty"`
	// Logistic is Predictor.Logistic (a binary label regression); absent means none.
	Logistic *calib.Logistic `json:"logistic,omitempty"`
	// The fields of modelJSON, for a single model.
	KernelSpec      string          `json:"kernel_spec,omitempty"`
	Kernel          json.RawMessage `json:"kernel,omitempty"`
	Noise           json.RawMessage `json:"noise,omitempty"`
	InputDim        int             `json:"input_dim,omitempty"`
	Active          []int           `json:"active,omitempty"`
	ActiveInputs    [][]float64     `json:"active_inputs,omitempty"`
	SiteMean        []float64       `json:"site_mean,omitempty"`
	SitePrecision   []float64       `json:"site_precision,omitempty"`
	FactorPrecision []float64       `json:"factor_precision,omitempty"`
	// Models holds a multi-class file's one-vs-rest models.
	Models []modelJSON `json:"models,omitempty"`
	// Pairs holds a one-vs-one multi-class file's pairs.
	Pairs []pairJSON `json:"pairs,omitempty"`
	// Blend holds a blended binary file's members (Predictor.Blend).
	Blend []pairJSON `json:"blend,omitempty"`
	// Projected holds a multi-class file's projected model (Predictor.Projected).
	Projected *projected.File `json:"projected,omitempty"`

	// Baseline is Predictor.Baseline; absent means not measured.
	Baseline *calib.Baseline `json:"baseline,omitempty"`
	Training Provenance      `json:"training"`
	Trace    []IterTrace     `json:"trace,omitempty"`
}

// setModel puts a single model's fields at the top level.
func (f *fileJSON) setModel(m *modelJSON) {
	f.KernelSpec, f.Kernel, f.Noise, f.InputDim = m.KernelSpec, m.Kernel, m.Noise, m.InputDim
	f.Active, f.ActiveInputs, f.SiteMean, f.SitePrecision, f.FactorPrecision = m.Active,
		m.ActiveInputs, m.SiteMean, m.SitePrecision, m.FactorPrecision
}

// model returns the top-level model, nil when there is none.
func (f *fileJSON) model() *modelJSON {
	if len(f.Kernel) == 0 && len(f.Noise) == 0 && len(f.ActiveInputs) == 0 {
		return nil
	}
	return &modelJSON{KernelSpec: f.KernelSpec, Kernel: f.Kernel, Noise: f.Noise, InputDim: f.InputDim,
		Active: f.Active, ActiveInputs: f.ActiveInputs, SiteMean: f.SiteMean,
		SitePrecision:   f.SitePrecision,
		FactorPrecision: f.FactorPrecision}
}

// encodeModel converts m for a model file; values JSON cannot hold (NaN, ±Inf) are an error.
func encodeModel(m *Model) (*modelJSON, error) {
	sum, ok := m.Kernel.(*kern.Sum)
	if !ok {
		return nil, fmt.Errorf("ivm: model files need a *kern.Sum kernel, not %T", m.Kernel)
	}
	kj, err := json.Marshal(sum)
	if err != nil {
		return nil, fmt.Errorf("ivm: encoding the kernel: %w", err)
	}
	nj, err := noise.Marshal(m.Noise)
	if err != nil {
		return nil, fmt.Errorf("ivm: encoding the noise model: %w", err)
	}
	d, dim := m.XActive.Dims()
	out := &modelJSON{KernelSpec: sum.String(), Kernel: kj, Noise: nj, InputDim: dim,
		Active: m.Active, SiteMean: m.SiteM, SitePrecision: m.SiteBeta}
	if !slices.Equal(m.FactorBeta, m.SiteBeta) {
		out.FactorPrecision = m.FactorBeta
	}
	out.ActiveInputs = make([][]float64, d)
	for i := range out.ActiveInputs {
		out.ActiveInputs[i] = m.XActive.RawRowView(i)
	}
	for name, vs := range map[string][]float64{"site mean": out.SiteMean,
		"site precision":   out.SitePrecision,
		"factor precision": out.FactorPrecision} {
		if err := finite(name, vs); err != nil {
			return nil, err
		}
	}
	for i, r := range out.ActiveInputs {
		if err := finite(fmt.Sprintf("active input %d", i), r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeModel rebuilds a model from its file form.
func decodeModel(in *modelJSON) (*Model, error) {
	switch {
	case len(in.Kernel) == 0 || len(in.Noise) == 0:
		return nil, errors.New("ivm: model file lacks its kernel or noise model")
	case in.InputDim < 1 || in.InputDim > MaxInputDim:
		return nil, fmt.Errorf("ivm: model file has input dimension %d", in.InputDim)
	case len(in.ActiveInputs) == 0:
		return nil, errors.New("ivm: model file has no active points")
	}
	var sum kern.Sum
	if err := json.Unmarshal(in.Kernel, &sum); err != nil {
		return nil, fmt.Errorf("ivm: model file kernel: %w", err)
	}
	if sum.Dim() != 0 && sum.Dim() != in.InputDim {
		return nil, fmt.Errorf("ivm: model file kernel is for %d inputs, the model has %d", sum.Dim(),
			in.InputDim)
	}
	nm, err := noise.Unmarshal(in.Noise)
	if err != nil {
		return nil, fmt.Errorf("ivm: model file noise model: %w", err)
	}
	if err := CheckSites(nm, in.SitePrecision, in.FactorPrecision); err != nil {
		return nil, fmt.Errorf("ivm: model file: %w", err)
	}
	// Check the rows before allocating: a corrupt input_dim must not allocate its size.
	for i, row := range in.ActiveInputs {
		if len(row) != in.InputDim {
			return nil, fmt.Errorf("ivm: model file active input %d has %d values, want %d", i, len(row),
				in.InputDim)
		}
	}
	d := len(in.ActiveInputs)
	xa := mat.NewDense(d, in.InputDim, nil)
	for i, row := range in.ActiveInputs {
		xa.SetRow(i, row)
	}
	factor := in.FactorPrecision
	if factor == nil {
		factor = in.SitePrecision
	}
	return NewModel(&sum, nm, xa, in.Active, in.SiteMean, in.SitePrecision, factor)
}

func finite(name string, vs []float64) error {
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("ivm: %s %d is %v, which a model file cannot hold", name, i, v)
		}
	}
	return nil
}

// encodePair converts a one-vs-one pair's binary predictor for a model or part file.
func encodePair(pp *Predictor) (*pairJSON, error) {
	if pp != nil && pp.Blend != nil && pp.Models == nil {
		return encodeBlendedPair(pp)
	}
	if pp == nil || len(pp.Models) != 1 || pp.Models[0] == nil {
		return nil,
			errors.New(
				"ivm: a one-vs-one pair or blend member must be a binary predictor of one model or a blend " +
					"of them")
	}
	mj, err := encodeModel(pp.Models[0])
	if err != nil {
		return nil, err
	}
	if err := finite("class label", pp.Classes); err != nil {
		return nil, err
	}
	out := &pairJSON{Classes: pp.Classes, Scale: pp.Scaler, LabelNoise: pp.LabelNoise,
		Logistic: pp.Logistic, modelJSON: *mj}
	if pp.Sharpness != 1 {
		out.Sharpness = pp.Sharpness
	}
	if len(pp.Traces) > 0 {
		out.Trace = pp.Traces[0]
	}
	return out, nil
}

// decodePair rebuilds pair j of a one-vs-one predictor with the given classes, checking
// that it is a binary predictor of the pair's two classes.
func decodePair(in *pairJSON, j int, classes []float64) (*Predictor, error) {
	a, b := pairOf(j, len(classes))
	if !slices.Equal(in.Classes, []float64{classes[a], classes[b]}) {
		return nil, fmt.Errorf("ivm: model file pair %d has classes %v, want [%g %g]", j+1, in.Classes,
			classes[a], classes[b])
	}
	return decodeBinary(in, fmt.Sprintf("pair %d", j+1), fmt.Sprintf("pair %d, classes %g and %g", j+1,
		classes[a], classes[b]))
}

// decodeBinary rebuilds a binary predictor held as a pairJSON (a one-vs-one pair, a blend's
// member); what and where name it in errors.
func decodeBinary(in *pairJSON, what, where string) (*Predictor, error) {
	if in.Blend != nil {
		return decodeBlendedPair(in, what, where)
	}
	m, err := decodeModel(&in.modelJSON)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, where)
	}
	pp := &Predictor{Task: Binary, Classes: in.Classes, Scaler: in.Scale, Sharpness: in.Sharpness,
		LabelNoise: in.LabelNoise,
		Logistic:   in.Logistic, Models: []*Model{m}, Traces: [][]IterTrace{in.Trace}}
	if err := pp.checkSharpness(); err != nil {
		return nil, fmt.Errorf("ivm: model file %s: %w", what, err)
	}
	if err := pp.check(); err != nil {
		return nil, fmt.Errorf("ivm: model file %s: %w", what, err)
	}
	return pp, nil
}

// Save writes the predictor as a versioned JSON model file (ModelFormat). Nothing is
// written when a value cannot be stored (NaN, ±Inf); write to a temporary file and rename
// it for an atomic update.
func (p *Predictor) Save(w io.Writer) error {
	if len(p.Models) == 0 && len(p.Pairs) == 0 && len(p.Blend) == 0 && p.Projected == nil {
		return errors.New("ivm: a predictor without models cannot be saved")
	}
	if p.Part.IsPart() {
		return p.savePart(w)
	}
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	out := fileJSON{Format: ModelFormat, Task: p.Task, Classes: p.Classes, Training: p.Training,
		Baseline: p.Baseline}
	// a pair's or member's own otherwise
	if p.Scaler != nil || len(p.Pairs) == 0 && len(p.Blend) == 0 {
		out.Scale = &fileScale{p.Scaler}
	}
	out.LabelNoise, out.Softmax, out.Logistic = p.LabelNoise, p.Softmax, p.Logistic
	if p.Sharpness != 1 {
		out.Sharpness = p.Sharpness
	}
	for _, pp := range p.Pairs {
		pj, err := encodePair(pp)
		if err != nil {
			return err
		}
		out.Pairs = append(out.Pairs, *pj)
	}
	if p.Blend != nil {
		if err := p.checkBlend(); err != nil {
			return fmt.Errorf("ivm: %w", err)
		}
	}
	if p.Projected != nil {
		if len(p.Models) > 0 || len(p.Pairs) > 0 || len(p.Blend) > 0 {
			return errors.New(
				"ivm: a predictor with both a projected model and other models cannot be saved")
		}
		out.Projected = projected.Encode(p.Projected)
	}
	for _, mp := range p.Blend {
		mj, err := encodePair(mp)
		if err != nil {
			return err
		}
		out.Blend = append(out.Blend, *mj)
	}
	for c, m := range p.Models {
		mj, err := encodeModel(m)
		if err != nil {
			return err
		}
		var trace []IterTrace
		if c < len(p.Traces) {
			trace = p.Traces[c]
		}
		if len(p.Models) == 1 {
			out.setModel(mj)
			out.Trace = trace
			break
		}
		cl := p.Classes[c]
		mj.Class, mj.Trace = &cl, trace
		out.Models = append(out.Models, *mj)
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return fmt.Errorf("ivm: encoding the model: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// Load reads a model file written by Save (or WriteModel). An unknown format version, a
// missing or inconsistent field, data after the file's JSON object, or a model whose
// active-set matrix cannot be factorised is an error that says which. A *bytes.Buffer
// (anything with a Bytes method) is decoded in place, without the copy of a reader's bytes.
func Load(r io.Reader) (*Predictor, error) {
	var in fileJSON
	doc, err := decodeFile(r, &in)
	if err != nil {
		return nil, jsonError(err)
	}
	switch {
	case in.Format == "":
		return nil, errors.New(`ivm: not a model file (no "format" field)`)
	case in.Format == PartFormat:
		return nil, errPartFile("a part")
	case in.Format != ModelFormat:
		if strings.HasPrefix(in.Format, "ivm-model/") {
			return nil, fmt.Errorf("ivm: model format %q is not supported by this version (it reads %q)",
				in.Format, ModelFormat)
		}
		if strings.HasPrefix(in.Format, "ivm-") {
			return nil,
				fmt.Errorf(
					"ivm: model format %q is another family's than the single-task IVM's; family.Load reads "+
						"every family's", in.Format)
		}
		return nil, fmt.Errorf("ivm: unknown model format %q", in.Format)
	case in.model() != nil && len(in.Models) > 0:
		return nil, errors.New(`ivm: model file has both a top-level model and "models"`)
	case len(in.Pairs) > 0 && (in.model() != nil || len(in.Models) > 0):
		return nil, errors.New(`ivm: model file has both one-vs-one "pairs" and other models`)
	case len(in.Blend) > 0 && (in.model() != nil || len(in.Models) > 0 || len(in.Pairs) > 0):
		return nil, errors.New(`ivm: model file has both a "blend" and other models`)
	case in.Projected != nil && (in.model() != nil || len(in.Models) > 0 || len(in.Pairs) > 0 ||
		len(in.Blend) > 0):
		return nil, errors.New(`ivm: model file has both a "projected" model and other models`)
	case in.model() == nil && len(in.Models) == 0 && len(in.Pairs) == 0 && len(in.Blend) == 0 &&
		in.Projected == nil:
		return nil, errors.New("ivm: model file lacks its kernel or noise model")
	}
	if err := doc.Require("task"); err != nil {
		return nil, jsonError(err)
	}
	if in.Scale == nil && len(in.Pairs) == 0 && len(in.Blend) == 0 &&
		scaledAtTraining(in.Training.Args) {
		return nil, jsonError(&strictjson.Error{Field: "scale",
			Msg: `missing, and the model was trained ` +
				`on scaled inputs (its training command has no -scale none): restore the "scale" object`})
	}
	if in.Classes == nil && (in.Task == Binary || in.Task == MultiClass || in.Task == Ordinal) {
		return nil, fmt.Errorf("ivm: not a readable model file: field classes: missing: "+
			"a model of task %v lists its classes", in.Task)
	}
	p := &Predictor{Task: in.Task, Classes: in.Classes, Scaler: in.Scale.scaler(),
		Training: in.Training, Sharpness: in.Sharpness, LabelNoise: in.LabelNoise,
		Softmax: in.Softmax, Logistic: in.Logistic, Baseline: in.Baseline}
	if p.Baseline != nil {
		if err := p.Baseline.Check(); err != nil {
			return nil, fmt.Errorf("ivm: model file %w", err)
		}
	}
	if err := p.checkSharpness(); err != nil {
		return nil, fmt.Errorf("ivm: model file %w", err)
	}
	if len(in.Pairs) > 0 {
		if err := p.loadPairs(in.Pairs); err != nil {
			return nil, err
		}
		return p, nil
	}
	if len(in.Blend) > 0 {
		if err := p.loadBlend(in.Blend); err != nil {
			return nil, err
		}
		return p, nil
	}
	if in.Projected != nil {
		pr, err := projected.Decode(in.Projected, max(len(p.Classes), 1)) // regression: one column
		if err == nil {
			p.Projected = pr
			err = p.checkProjected()
		}
		if err != nil {
			return nil, fmt.Errorf("ivm: model file: %w", err)
		}
		return p, nil
	}
	if mj := in.model(); mj != nil {
		m, err := decodeModel(mj)
		if err != nil {
			return nil, err
		}
		p.Models, p.Traces = []*Model{m}, [][]IterTrace{in.Trace}
	}
	for c := range in.Models {
		m, err := decodeModel(&in.Models[c])
		if err != nil {
			return nil, fmt.Errorf("%w (one-vs-rest model %d)", err, c+1)
		}
		if cl := in.Models[c].Class; cl == nil || c >= len(p.Classes) || *cl != p.Classes[c] {
			return nil, fmt.Errorf("ivm: model file one-vs-rest model %d does not match class %d of %v", c+1,
				c+1, p.Classes)
		}
		p.Models, p.Traces = append(p.Models, m), append(p.Traces, in.Models[c].Trace)
	}
	if p.Task == TaskAuto && len(p.Models) == 1 {
		// A file without "task" holds a single model whose noise model says it.
		p.Task = taskOf(p.Models[0].Noise)
	}
	if p.Classes == nil && len(p.Models) == 1 {
		p.Classes = p.Models[0].Noise.Classes()
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("ivm: model file: %w", err)
	}
	return p, nil
}

// checkSharpness checks a sharpness read from a file, 0 (absent) meaning 1.
func (p *Predictor) checkSharpness() error {
	switch {
	case p.Sharpness == 0:
		p.Sharpness = 1
	case !(p.Sharpness > 0) || math.IsInf(p.Sharpness, 0) ||
		(p.Task != MultiClass && p.Task != Binary && p.Task != Regression):
		return fmt.Errorf(
			"sharpness %v: want a positive finite value, and only for a binary, multi-class or regression "+
				"model", p.Sharpness)
	}
	return nil
}

// loadPairs reads a one-vs-one file's pairs into p and checks the whole.
func (p *Predictor) loadPairs(in []pairJSON) error {
	k := len(p.Classes)
	if p.Task != MultiClass || k < 3 || len(in) != pairCount(k) {
		return fmt.Errorf("ivm: model file: a %v task of %d classes with %d one-vs-one pairs", p.Task, k,
			len(in))
	}
	p.Pairs = make([]*Predictor, len(in))
	for j := range in {
		pp, err := decodePair(&in[j], j, p.Classes)
		if err != nil {
			return err
		}
		p.Pairs[j] = pp
	}
	if err := p.checkPairs(); err != nil {
		return fmt.Errorf("ivm: model file: %w", err)
	}
	return nil
}

// checkPairs validates a one-vs-one predictor: one binary predictor per pair of its
// classes, in order, all with the same inputs; no scaling or sharpness of its own.
func (p *Predictor) checkPairs() error {
	k := len(p.Classes)
	switch {
	case p.Task != MultiClass || k < 3:
		return fmt.Errorf("a %v task of %d classes with one-vs-one pairs", p.Task, k)
	case len(p.Pairs) != pairCount(k):
		return fmt.Errorf("%d one-vs-one pairs for %d classes (want %d)", len(p.Pairs), k, pairCount(k))
	case len(p.Models) > 0 || p.Scaler != nil || p.Sharpness != 1 || p.Softmax:
		return errors.New("a one-vs-one model's models, scaling and calibration are its pairs'")
	case !(p.LabelNoise >= 0 && p.LabelNoise < 1):
		return fmt.Errorf("label_noise %v: want 0 ≤ ε < 1", p.LabelNoise)
	}
	if err := p.checkClasses(); err != nil {
		return err
	}
	for j, pp := range p.Pairs {
		a, b := pairOf(j, k)
		switch {
		case pp == nil || pp.Task != Binary || !slices.Equal(pp.Classes,
			[]float64{p.Classes[a], p.Classes[b]}):
			return fmt.Errorf("pair %d is not a binary predictor of classes %g and %g", j+1, p.Classes[a],
				p.Classes[b])
		case pp.InputDim() != p.Pairs[0].InputDim():
			return fmt.Errorf("pair %d has %d inputs, pair 1 %d", j+1, pp.InputDim(), p.Pairs[0].InputDim())
		}
	}
	return nil
}

// decodeFile decodes the one JSON value r holds into v, strictly (internal/strictjson):
// nothing after it, no null where a number belongs; the Doc checks required fields.
// A reader that holds its bytes (a *bytes.Buffer) is decoded in place: a json.Decoder
// would copy them into a buffer it grows by doubling. An empty input is io.EOF and one
// cut short io.ErrUnexpectedEOF.
func decodeFile(r io.Reader, v any) (strictjson.Doc, error) {
	return strictjson.Reader(r, v)
}

// jsonError explains why a model file could not be decoded.
func jsonError(err error) error {
	var strict *strictjson.Error
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("ivm: not a readable model file: it is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("ivm: not a readable model file: it ends early (truncated?)")
	case errors.As(err, &strict):
		return fmt.Errorf("ivm: not a readable model file: %w", err)
	case errors.As(err, &syntax):
		return fmt.Errorf("ivm: not a readable model file: not JSON at byte %d (%v)", syntax.Offset, err)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("ivm: not a readable model file: a JSON %s, not an object", typ.Value)
	case errors.As(err, &typ):
		return fmt.Errorf("ivm: not a readable model file: field %q holds a JSON %s", typ.Field,
			typ.Value)
	}
	return fmt.Errorf("ivm: not a readable model file: %w", err)
}

// check validates a predictor read from a file.
func (p *Predictor) check() error {
	dim := p.InputDim()
	for c, m := range p.Models {
		if _, d := m.XActive.Dims(); d != dim {
			return fmt.Errorf("model %d has %d inputs, model 1 has %d", c+1, d, dim)
		}
	}
	if p.Scaler != nil {
		if err := p.Scaler.Check(dim); err != nil {
			return err
		}
	}
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	if !(p.LabelNoise >= 0 && p.LabelNoise < 1) || (p.LabelNoise != 0 && p.Task != MultiClass &&
		p.Task != Binary) {
		return fmt.Errorf("label_noise %v: want 0 ≤ ε < 1, and only for a binary or multi-class model",
			p.LabelNoise)
	}
	if p.Softmax && p.Task != MultiClass {
		return fmt.Errorf("softmax probabilities are for a one-vs-rest multi-class model, not a %v one",
			p.Task)
	}
	if p.Logistic != nil {
		if p.Task != Binary {
			return fmt.Errorf("a logistic map is for a binary label regression, not a %v model", p.Task)
		}
		if err := p.Logistic.Check(); err != nil {
			return err
		}
	}
	name := p.Models[0].Noise.Name()
	want := p.noiseName()
	switch p.Task {
	case Binary, SemiSupervised, Ordinal, Regression:
		if len(p.Models) != 1 {
			return fmt.Errorf("task %v with %d models", p.Task, len(p.Models))
		}
	case MultiClass:
		if len(p.Models) < 3 || len(p.Classes) != len(p.Models) {
			return fmt.Errorf("multi-class with %d models for %d classes", len(p.Models), len(p.Classes))
		}
	default:
		return fmt.Errorf("unknown task %v", p.Task)
	}
	if name != want {
		return fmt.Errorf("task %v with a %s noise model", p.Task, name)
	}
	for _, m := range p.Models[1:] {
		if m.Noise.Name() != want {
			return fmt.Errorf("task %v with a %s noise model", p.Task, m.Noise.Name())
		}
	}
	nc := len(p.Models[0].Noise.Classes())
	switch {
	case p.Task == Regression && len(p.Classes) != 0:
		return errors.New("regression with class labels")
	case p.Logistic != nil && len(p.Classes) != 2:
		return fmt.Errorf("%d class labels for a binary model", len(p.Classes))
	case p.Logistic == nil && (p.Task == Binary || p.Task == SemiSupervised || p.Task == Ordinal) &&
		len(p.Classes) != nc:
		return fmt.Errorf("%d class labels for a %v model of %d classes", len(p.Classes), p.Task, nc)
	}
	return p.checkClasses()
}

// checkClasses checks that the class labels are finite, distinct and ascending.
func (p *Predictor) checkClasses() error {
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	if !slices.IsSorted(p.Classes) || len(slices.Compact(slices.Clone(p.Classes))) != len(p.Classes) {
		return fmt.Errorf("class labels %v are not distinct and ascending", p.Classes)
	}
	return nil
}

// taskOf is the single-model task of a noise model.
func taskOf(nm noise.Model) Task {
	switch nm.Name() {
	case "gaussian":
		return Regression
	case "ordinal":
		return Ordinal
	case "ncnm":
		return SemiSupervised
	}
	return Binary
}

// WriteModel writes one model as a model file (ModelFormat), with unscaled inputs. The
// kernel must be a *kern.Sum (wrap a single kernel with kern.NewSum). Values that JSON
// cannot hold (NaN, ±Inf) are an error, and nothing is written then.
func WriteModel(w io.Writer, m *Model, meta *ModelMeta) error {
	p := &Predictor{Task: taskOf(m.Noise), Models: []*Model{m}, Classes: m.Noise.Classes()}
	if meta != nil {
		p.Training, p.Traces = meta.Training, [][]IterTrace{meta.Trace}
		if meta.Labels != nil {
			if len(meta.Labels) != len(p.Classes) {
				return fmt.Errorf("ivm: %d labels for a model of %d classes", len(meta.Labels), len(p.Classes))
			}
			p.Classes = meta.Labels
		}
	}
	return p.Save(w)
}

// ReadModel reads a model file holding one model on unscaled inputs (what WriteModel
// writes); use Load for any model file.
func ReadModel(r io.Reader) (*Model, *ModelMeta, error) {
	p, err := Load(r)
	if err != nil {
		return nil, nil, err
	}
	if len(p.Models) != 1 {
		return nil, nil, fmt.Errorf("ivm: the model file holds %d one-vs-rest models; read it with Load",
			len(p.Models))
	}
	if p.Scaler != nil {
		return nil, nil, errors.New("ivm: the model file scales its inputs; read it with Load")
	}
	meta := &ModelMeta{Training: p.Training, Trace: p.Traces[0]}
	if !slices.Equal(p.Classes, p.Models[0].Noise.Classes()) {
		meta.Labels = p.Classes
	}
	return p.Models[0], meta, nil
}
