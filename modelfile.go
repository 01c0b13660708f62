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
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/strictjson"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/multiclass"
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
	Training dataset.Provenance
	// Trace is the learning trace of Algorithm 2 (one record per outer iteration and a
	// Final one), empty when the kernel was fixed.
	Trace []engine.IterTrace
}

// modelJSON is one IVM model on disk.
type modelJSON struct {
	KernelSpec      string          `json:"kernel_spec"`
	Kernel          json.RawMessage `json:"kernel"`
	Noise           json.RawMessage `json:"noise"`
	InputDim        int             `json:"input_dim"`
	Active          []int           `json:"active"`
	ActiveInputs    strictjson.Rows `json:"active_inputs"`
	SiteMean        []float64       `json:"site_mean"`
	SitePrecision   []float64       `json:"site_precision"`
	FactorPrecision []float64       `json:"factor_precision,omitempty"`
	// Class is the positive class of a one-vs-rest model.
	Class *float64 `json:"class,omitempty"`
	// Trace is a one-vs-rest model's learning trace.
	Trace []engine.IterTrace `json:"trace,omitempty"`
}

// fileScale is a model file's "scale": the scaler's fields, or the string "none" for a
// model of unscaled inputs, so that a file cut of its "scale" cannot pass for one.
type fileScale struct{ s *dataset.Scaler }

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
	f.s = new(dataset.Scaler)
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
func (f *fileScale) scaler() *dataset.Scaler {
	if f == nil {
		return nil
	}
	return f.s
}

// pairJSON is a binary predictor inside a model or part file (a one-vs-one pair, a blend's
// member): its two classes, scaling and calibration, and its model, or for a blended pair
// its members instead.
type pairJSON struct {
	Classes []float64 `json:"classes"`
	// Rows counts a one-vs-one pair's training rows (its two classes'), updates included: an
	// update grows the active set Fit sized for them (grownActiveSize).
	Rows       int             `json:"rows,omitempty"`
	Scale      *dataset.Scaler `json:"scale,omitempty"`
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
			Rows    int        `json:"rows,omitempty"`
			Blend   []pairJSON `json:"blend"`
		}{pj.Classes, pj.Rows, pj.Blend})
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
	ActiveInputs    strictjson.Rows `json:"active_inputs,omitempty"`
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
	Baseline *calib.Baseline    `json:"baseline,omitempty"`
	Training dataset.Provenance `json:"training"`
	Trace    []engine.IterTrace `json:"trace,omitempty"`
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
	return &modelJSON{KernelSpec: f.KernelSpec, Kernel: f.Kernel, Noise: f.Noise,
		InputDim: f.InputDim, Active: f.Active, ActiveInputs: f.ActiveInputs, SiteMean: f.SiteMean,
		SitePrecision: f.SitePrecision, FactorPrecision: f.FactorPrecision}
}

// encodeModel converts m for a model file; values JSON cannot hold (NaN, ±Inf) are an error.
func encodeModel(m *engine.Model) (*modelJSON, error) {
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
func decodeModel(in *modelJSON) (*engine.Model, error) {
	switch {
	case len(in.Kernel) == 0 || len(in.Noise) == 0:
		return nil, errors.New("ivm: model file lacks its kernel or noise model")
	case in.InputDim < 1 || in.InputDim > engine.MaxInputDim:
		return nil, fmt.Errorf("ivm: model file has input dimension %d", in.InputDim)
	case len(in.ActiveInputs) == 0:
		return nil, errors.New("ivm: model file has no active points")
	}
	var sum kern.Sum
	if err := json.Unmarshal(in.Kernel, &sum); err != nil {
		return nil, fmt.Errorf("ivm: model file kernel: %w", err)
	}
	if sum.Dim() != 0 && sum.Dim() != in.InputDim {
		return nil, fmt.Errorf("ivm: model file kernel is for %d inputs, the model has %d",
			sum.Dim(), in.InputDim)
	}
	nm, err := noise.Unmarshal(in.Noise)
	if err != nil {
		return nil, fmt.Errorf("ivm: model file noise model: %w", err)
	}
	if err := engine.CheckSites(nm, in.SitePrecision, in.FactorPrecision); err != nil {
		return nil, fmt.Errorf("ivm: model file: %w", err)
	}
	// Check the rows before allocating: a corrupt input_dim must not allocate its size.
	for i, row := range in.ActiveInputs {
		if len(row) != in.InputDim {
			return nil, fmt.Errorf("ivm: model file active input %d has %d values, want %d",
				i, len(row), in.InputDim)
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
	return engine.NewModel(&sum, nm, xa, in.Active, in.SiteMean, in.SitePrecision, factor)
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
	out, err := encodeBinary(pp)
	if err == nil {
		out.Rows = pp.Training.Rows
	}
	return out, err
}

// encodeBinary is encodePair without the rows.
func encodeBinary(pp *Predictor) (*pairJSON, error) {
	var s *SingleKind
	if pp != nil {
		switch k := pp.Kind.(type) {
		case *BlendKind:
			return encodeBlendedPair(pp, k)
		case *SingleKind:
			s = k
		}
	}
	if s == nil || s.Model == nil {
		return nil, errors.New("ivm: a one-vs-one pair or blend member must be a binary " +
			"predictor of one model or a blend of them")
	}
	mj, err := encodeModel(s.Model)
	if err != nil {
		return nil, err
	}
	if err := finite("class label", pp.Classes); err != nil {
		return nil, err
	}
	out := &pairJSON{Classes: pp.Classes, Scale: s.Scaler, LabelNoise: s.LabelNoise,
		Logistic: s.Logistic, modelJSON: *mj}
	if s.Sharpness != 1 {
		out.Sharpness = s.Sharpness
	}
	out.Trace = s.Trace
	return out, nil
}

// decodePair rebuilds pair j of a one-vs-one predictor with the given classes, checking
// that it is a binary predictor of the pair's two classes.
func decodePair(in *pairJSON, j int, classes []float64) (*Predictor, error) {
	a, b := multiclass.PairOf(j, len(classes))
	if !slices.Equal(in.Classes, []float64{classes[a], classes[b]}) {
		return nil, fmt.Errorf("ivm: model file pair %d has classes %v, want [%g %g]",
			j+1, in.Classes, classes[a], classes[b])
	}
	if in.Rows < 0 {
		return nil, fmt.Errorf("ivm: model file pair %d has %d rows", j+1, in.Rows)
	}
	pp, err := decodeBinary(in, fmt.Sprintf("pair %d", j+1),
		fmt.Sprintf("pair %d, classes %g and %g", j+1, classes[a], classes[b]))
	if err == nil {
		pp.Training.Rows = in.Rows
	}
	return pp, err
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
	pp := &Predictor{Task: Binary, Classes: in.Classes}
	cal := calibration{Scaler: in.Scale, Sharpness: in.Sharpness, LabelNoise: in.LabelNoise,
		Logistic: in.Logistic}
	if err := checkSharpness(pp.Task, &cal.Sharpness); err != nil {
		return nil, fmt.Errorf("ivm: model file %s: %w", what, err)
	}
	if err := checkModels(pp, []*engine.Model{m}, cal); err != nil {
		return nil, fmt.Errorf("ivm: model file %s: %w", what, err)
	}
	pp.Kind = &SingleKind{Model: m, Trace: in.Trace, Scaler: cal.Scaler, Sharpness: cal.Sharpness,
		LabelNoise: cal.LabelNoise, Logistic: cal.Logistic}
	return pp, nil
}

// Save writes the predictor as a versioned JSON model file (ModelFormat). Nothing is
// written when a value cannot be stored (NaN, ±Inf); write to a temporary file and rename
// it for an atomic update.
func (p *Predictor) Save(w io.Writer) error {
	if p.Kind == nil || p.InputDim() == 0 {
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
	if err := p.Kind.encode(p, &out); err != nil {
		return err
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return fmt.Errorf("ivm: encoding the model: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// setCalibration puts a single model's, one-vs-rest models' or projected model's input
// scaling ("none" for none) and calibration at the file's top level.
func (f *fileJSON) setCalibration(c calibration) {
	f.Scale = &fileScale{c.Scaler}
	if c.Sharpness != 1 {
		f.Sharpness = c.Sharpness
	}
	f.LabelNoise, f.Softmax, f.Logistic = c.LabelNoise, c.Softmax, c.Logistic
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
	if err := in.checkShape(); err != nil {
		return nil, err
	}
	if err := doc.Require("task"); err != nil {
		return nil, jsonError(err)
	}
	if in.Scale == nil && len(in.Pairs) == 0 && len(in.Blend) == 0 &&
		scaledAtTraining(in.Training.Args) {
		return nil, jsonError(&strictjson.Error{Field: "scale",
			Msg: `missing, and the model was trained on scaled inputs ` +
				`(its training command has no -scale none): restore the "scale" object`})
	}
	if in.Classes == nil && (in.Task == Binary || in.Task == MultiClass || in.Task == Ordinal) {
		return nil, fmt.Errorf("ivm: not a readable model file: field classes: missing: "+
			"a model of task %v lists its classes", in.Task)
	}
	p := &Predictor{Task: in.Task, Classes: in.Classes, Training: in.Training,
		Baseline: in.Baseline}
	cal := calibration{Scaler: in.Scale.scaler(), Sharpness: in.Sharpness,
		LabelNoise: in.LabelNoise, Softmax: in.Softmax, Logistic: in.Logistic}
	if p.Baseline != nil {
		if err := p.Baseline.Check(); err != nil {
			return nil, fmt.Errorf("ivm: model file %w", err)
		}
	}
	if err := checkSharpness(p.Task, &cal.Sharpness); err != nil {
		return nil, fmt.Errorf("ivm: model file %w", err)
	}
	switch {
	case len(in.Pairs) > 0:
		err = p.loadPairs(in.Pairs, cal)
	case len(in.Blend) > 0:
		err = p.loadBlend(in.Blend, cal)
	case in.Projected != nil:
		err = p.loadProjected(in.Projected, cal)
	default:
		err = p.loadModels(&in, cal)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// checkShape checks a model file's format and that it holds one kind of models: a top-level
// model, "models", "pairs", "blend" or "projected".
func (in *fileJSON) checkShape() error {
	switch {
	case in.Format == "":
		return errors.New(`ivm: not a model file (no "format" field)`)
	case in.Format == PartFormat:
		return errPartFile("a part")
	case in.Format != ModelFormat:
		if strings.HasPrefix(in.Format, "ivm-model/") {
			return fmt.Errorf("ivm: model format %q is not supported by this version (it reads %q)",
				in.Format, ModelFormat)
		}
		if strings.HasPrefix(in.Format, "ivm-") {
			return fmt.Errorf("ivm: model format %q is another family's than the "+
				"single-task IVM's; family.Load reads every family's", in.Format)
		}
		return fmt.Errorf("ivm: unknown model format %q", in.Format)
	case in.model() != nil && len(in.Models) > 0:
		return errors.New(`ivm: model file has both a top-level model and "models"`)
	case len(in.Pairs) > 0 && (in.model() != nil || len(in.Models) > 0):
		return errors.New(`ivm: model file has both one-vs-one "pairs" and other models`)
	case len(in.Blend) > 0 && (in.model() != nil || len(in.Models) > 0 || len(in.Pairs) > 0):
		return errors.New(`ivm: model file has both a "blend" and other models`)
	case in.Projected != nil && (in.model() != nil || len(in.Models) > 0 || len(in.Pairs) > 0 ||
		len(in.Blend) > 0):
		return errors.New(`ivm: model file has both a "projected" model and other models`)
	case in.model() == nil && len(in.Models) == 0 && len(in.Pairs) == 0 && len(in.Blend) == 0 &&
		in.Projected == nil:
		return errors.New("ivm: model file lacks its kernel or noise model")
	}
	return nil
}

// loadModels reads a file's top-level model, or its one-vs-rest "models", into p and
// checks the whole.
func (p *Predictor) loadModels(in *fileJSON, cal calibration) error {
	var models []*engine.Model
	var traces [][]engine.IterTrace
	if mj := in.model(); mj != nil {
		m, err := decodeModel(mj)
		if err != nil {
			return err
		}
		models, traces = []*engine.Model{m}, [][]engine.IterTrace{in.Trace}
	}
	for c := range in.Models {
		m, err := decodeModel(&in.Models[c])
		if err != nil {
			return fmt.Errorf("%w (one-vs-rest model %d)", err, c+1)
		}
		if cl := in.Models[c].Class; cl == nil || c >= len(p.Classes) || *cl != p.Classes[c] {
			return fmt.Errorf("ivm: model file one-vs-rest model %d does not match class %d of %v",
				c+1, c+1, p.Classes)
		}
		models, traces = append(models, m), append(traces, in.Models[c].Trace)
	}
	if p.Task == TaskAuto && len(models) == 1 {
		// A file without "task" holds a single model whose noise model says it.
		p.Task = taskOf(models[0].Noise)
	}
	if p.Classes == nil && len(models) == 1 {
		p.Classes = models[0].Noise.Classes()
	}
	if err := checkModels(p, models, cal); err != nil {
		return fmt.Errorf("ivm: model file: %w", err)
	}
	if p.Task == MultiClass {
		p.Kind = &OneVsRestKind{Models: models, Traces: traces, Scaler: cal.Scaler,
			Sharpness: cal.Sharpness, Softmax: cal.Softmax, LabelNoise: cal.LabelNoise}
	} else {
		p.Kind = &SingleKind{Model: models[0], Trace: traces[0], Scaler: cal.Scaler,
			Sharpness: cal.Sharpness, LabelNoise: cal.LabelNoise, Logistic: cal.Logistic}
	}
	return nil
}

// checkSharpness checks a sharpness read from a file for a model of the task, 0 (absent)
// meaning 1, which it sets.
func checkSharpness(task Task, sharpness *float64) error {
	switch a := *sharpness; {
	case a == 0:
		*sharpness = 1
	case !(a > 0) || math.IsInf(a, 0) ||
		(task != MultiClass && task != Binary && task != Regression):
		return fmt.Errorf("sharpness %v: want a positive finite value, and only for a "+
			"binary, multi-class or regression model", a)
	}
	return nil
}

// loadPairs reads a one-vs-one file's pairs into p and checks the whole; cal is the file's
// top-level scaling and calibration, of which one-vs-one has the label noise alone.
func (p *Predictor) loadPairs(in []pairJSON, cal calibration) error {
	k := len(p.Classes)
	if p.Task != MultiClass || k < 3 || len(in) != multiclass.PairCount(k) {
		return fmt.Errorf("ivm: model file: a %v task of %d classes with %d one-vs-one pairs",
			p.Task, k, len(in))
	}
	pairs := make([]*Predictor, len(in))
	for j := range in {
		pp, err := decodePair(&in[j], j, p.Classes)
		if err != nil {
			return err
		}
		pairs[j] = pp
	}
	if err := checkPairs(p, pairs, cal); err != nil {
		return fmt.Errorf("ivm: model file: %w", err)
	}
	p.Kind = &OneVsOneKind{Pairs: pairs, LabelNoise: cal.LabelNoise}
	return nil
}

// checkPairs validates a one-vs-one predictor of p's task and classes: one binary predictor
// per pair of its classes, in order, all with the same inputs; no scaling or calibration of
// its own (cal) but the label noise.
func checkPairs(p *Predictor, pairs []*Predictor, cal calibration) error {
	k := len(p.Classes)
	switch {
	case p.Task != MultiClass || k < 3:
		return fmt.Errorf("a %v task of %d classes with one-vs-one pairs", p.Task, k)
	case len(pairs) != multiclass.PairCount(k):
		return fmt.Errorf("%d one-vs-one pairs for %d classes (want %d)", len(pairs), k,
			multiclass.PairCount(k))
	case cal.Scaler != nil || cal.Sharpness != 1 || cal.Softmax || cal.Logistic != nil:
		return errors.New("a one-vs-one model's models, scaling and calibration are its pairs'")
	case !(cal.LabelNoise >= 0 && cal.LabelNoise < 1):
		return fmt.Errorf("label_noise %v: want 0 ≤ ε < 1", cal.LabelNoise)
	}
	if err := p.checkClasses(); err != nil {
		return err
	}
	for j, pp := range pairs {
		a, b := multiclass.PairOf(j, k)
		switch {
		case pp == nil || pp.Task != Binary || !slices.Equal(pp.Classes,
			[]float64{p.Classes[a], p.Classes[b]}):
			return fmt.Errorf("pair %d is not a binary predictor of classes %g and %g",
				j+1, p.Classes[a], p.Classes[b])
		case pp.InputDim() != pairs[0].InputDim():
			return fmt.Errorf("pair %d has %d inputs, pair 1 %d",
				j+1, pp.InputDim(), pairs[0].InputDim())
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
		return fmt.Errorf("ivm: not a readable model file: not JSON at byte %d (%v)",
			syntax.Offset, err)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("ivm: not a readable model file: a JSON %s, not an object", typ.Value)
	case errors.As(err, &typ):
		return fmt.Errorf("ivm: not a readable model file: field %q holds a JSON %s", typ.Field,
			typ.Value)
	}
	return fmt.Errorf("ivm: not a readable model file: %w", err)
}

// checkModels validates a single model or one-vs-rest models of p's task and classes, with
// their input scaling and calibration cal, read from a file or merged from parts.
func checkModels(p *Predictor, models []*engine.Model, cal calibration) error {
	_, dim := models[0].XActive.Dims()
	for c, m := range models {
		if _, d := m.XActive.Dims(); d != dim {
			return fmt.Errorf("model %d has %d inputs, model 1 has %d", c+1, d, dim)
		}
	}
	if cal.Scaler != nil {
		if err := cal.Scaler.Check(dim); err != nil {
			return err
		}
	}
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	if err := cal.check(p.Task); err != nil {
		return err
	}
	if err := checkNoise(p.Task, models, len(p.Classes), cal.noiseName(p.Task)); err != nil {
		return err
	}
	nc := len(models[0].Noise.Classes())
	switch {
	case p.Task == Regression && len(p.Classes) != 0:
		return errors.New("regression with class labels")
	case cal.Logistic != nil && len(p.Classes) != 2:
		return fmt.Errorf("%d class labels for a binary model", len(p.Classes))
	case cal.Logistic == nil &&
		(p.Task == Binary || p.Task == SemiSupervised || p.Task == Ordinal) &&
		len(p.Classes) != nc:
		return fmt.Errorf("%d class labels for a %v model of %d classes",
			len(p.Classes), p.Task, nc)
	}
	return p.checkClasses()
}

// check checks a single model's or one-vs-rest models' label noise, softmax and logistic
// map against the task.
func (cal calibration) check(task Task) error {
	if !(cal.LabelNoise >= 0 && cal.LabelNoise < 1) || (cal.LabelNoise != 0 && task != MultiClass &&
		task != Binary) {
		return fmt.Errorf("label_noise %v: want 0 ≤ ε < 1, and only for a binary or "+
			"multi-class model", cal.LabelNoise)
	}
	if cal.Softmax && task != MultiClass {
		return fmt.Errorf("softmax probabilities are for a one-vs-rest multi-class model, "+
			"not a %v one", task)
	}
	if cal.Logistic != nil {
		if task != Binary {
			return fmt.Errorf("a logistic map is for a binary label regression, not a %v model",
				task)
		}
		return cal.Logistic.Check()
	}
	return nil
}

// noiseName is the noise model of a task's binary problems: the task's, or Gaussian for a
// label regression (a logistic map).
func (cal calibration) noiseName(task Task) string {
	if cal.Logistic != nil {
		return "gaussian"
	}
	return task.noiseName()
}

// checkNoise checks the number of models and their noise model (want) against the task
// and its number of classes.
func checkNoise(task Task, models []*engine.Model, classes int, want string) error {
	switch task {
	case Binary, SemiSupervised, Ordinal, Regression:
		if len(models) != 1 {
			return fmt.Errorf("task %v with %d models", task, len(models))
		}
	case MultiClass:
		if len(models) < 3 || classes != len(models) {
			return fmt.Errorf("multi-class with %d models for %d classes", len(models), classes)
		}
	default:
		return fmt.Errorf("unknown task %v", task)
	}
	for _, m := range models {
		if m.Noise.Name() != want {
			return fmt.Errorf("task %v with a %s noise model", task, m.Noise.Name())
		}
	}
	return nil
}

// checkClasses checks that the class labels are finite, distinct and ascending.
func (p *Predictor) checkClasses() error {
	if err := finite("class label", p.Classes); err != nil {
		return err
	}
	if !slices.IsSorted(p.Classes) ||
		len(slices.Compact(slices.Clone(p.Classes))) != len(p.Classes) {
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
func WriteModel(w io.Writer, m *engine.Model, meta *ModelMeta) error {
	p := &Predictor{Task: taskOf(m.Noise), Classes: m.Noise.Classes()}
	s := &SingleKind{Model: m}
	if meta != nil {
		p.Training, s.Trace = meta.Training, meta.Trace
		if meta.Labels != nil {
			if len(meta.Labels) != len(p.Classes) {
				return fmt.Errorf("ivm: %d labels for a model of %d classes",
					len(meta.Labels), len(p.Classes))
			}
			p.Classes = meta.Labels
		}
	}
	p.Kind = s
	return p.Save(w)
}

// ReadModel reads a model file holding one model on unscaled inputs (what WriteModel
// writes); use Load for any model file.
func ReadModel(r io.Reader) (*engine.Model, *ModelMeta, error) {
	p, err := Load(r)
	if err != nil {
		return nil, nil, err
	}
	s, single := p.Kind.(*SingleKind)
	if !single {
		models := 0
		if k, ovr := p.Kind.(*OneVsRestKind); ovr {
			models = len(k.Models)
		}
		return nil, nil, fmt.Errorf("ivm: the model file holds %d one-vs-rest models; "+
			"read it with Load", models)
	}
	if s.Scaler != nil {
		return nil, nil, errors.New("ivm: the model file scales its inputs; read it with Load")
	}
	meta := &ModelMeta{Training: p.Training, Trace: s.Trace}
	if !slices.Equal(p.Classes, s.Model.Noise.Classes()) {
		meta.Labels = p.Classes
	}
	return s.Model, meta, nil
}
