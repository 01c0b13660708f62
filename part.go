package ivm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/multiclass"
)

// PartFormat is the version string of part files: the models of one slice of a
// partitioned training (Config.Part), which MergeParts joins into a model file.
const PartFormat = "ivm-part/1"

// Part names one slice of a partitioned training, for spreading the binary problems of a
// multi-class task (its one-vs-rest classes or its one-vs-one pairs) over machines (a batch
// engine's job array): the Index-th (0-based) of Count slices. Slice i holds the problems
// [⌊iC/K⌋, ⌊(i+1)C/K⌋) of the C problems (classes in ascending order; pairs in
// OneVsOneKind.Pairs' order). The zero value is no partition: the whole model.
type Part struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParsePart parses "i/K" with 0 ≤ i < K (Kubernetes' JOB_COMPLETION_INDEX is such an i).
func ParsePart(s string) (Part, error) {
	is, ks, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(is)
	k, err2 := strconv.Atoi(ks)
	if !ok || err1 != nil || err2 != nil || k < 1 || i < 0 || i >= k {
		return Part{}, fmt.Errorf("ivm: part %q: want i/K with 0 ≤ i < K, e.g. 0/4", s)
	}
	return Part{Index: i, Count: k}, nil
}

// String writes the part as ParsePart reads it.
func (pt Part) String() string { return fmt.Sprintf("%d/%d", pt.Index, pt.Count) }

// IsPart reports whether pt names a slice rather than the whole model.
func (pt Part) IsPart() bool { return pt.Count > 0 }

// Range returns the problems [lo, hi) of the slice among n (all n for the zero Part).
func (pt Part) Range(n int) (lo, hi int) {
	if !pt.IsPart() {
		return 0, n
	}
	return pt.Index * n / pt.Count, (pt.Index + 1) * n / pt.Count
}

// check refuses a partition that leaves a slice empty: a part file with no model is more
// likely a wrong K than an intended one.
func (pt Part) check(task Task, problems int) error {
	switch {
	case !pt.IsPart():
		return nil
	case pt.Index < 0 || pt.Index >= pt.Count:
		return fmt.Errorf("ivm: part %v: want 0 ≤ i < K", pt)
	case pt.Count > problems && task != MultiClass:
		return fmt.Errorf("ivm: part %v: a %v task is one problem; only the binary problems "+
			"of a multi-class task are partitioned", pt, task)
	case pt.Count > problems:
		return fmt.Errorf("ivm: part %v: %d binary problems cannot be split into %d parts "+
			"(K must not exceed them)", pt, problems, pt.Count)
	}
	return nil
}

// errPartFile is Load's answer to a part file.
// what names the part ("part 1/4").
func errPartFile(what string) error {
	return fmt.Errorf("ivm: this is %s of a partitioned training (ivm train -part), "+
		"not a model: merge the parts first (ivm merge, or ivm.MergeParts)", what)
}

// partFileJSON is a part file, ivm-part/1: the shared fields of the model a single run
// writes (task, all the classes, the scaling, the provenance) and the models of the part's
// classes, each with its class, or a one-vs-one training's pairs.
type partFileJSON struct {
	Format  string          `json:"format"`
	Part    Part            `json:"part"`
	Task    Task            `json:"task"`
	Classes []float64       `json:"classes,omitempty"`
	Scale   *dataset.Scaler `json:"scale,omitempty"`
	// Sharpness is Predictor.Sharpness, chosen from all the classes in every part.
	Sharpness float64 `json:"sharpness"`
	// LabelNoise is Predictor.LabelNoise, chosen with the sharpness.
	LabelNoise float64 `json:"label_noise,omitempty"`
	// Softmax is Predictor.Softmax, chosen with the sharpness.
	Softmax  bool               `json:"softmax,omitempty"`
	Models   []modelJSON        `json:"models"`
	Pairs    []pairJSON         `json:"pairs,omitempty"`
	Training dataset.Provenance `json:"training"`
}

// problems is the number of binary (or single) problems of a predictor's task.
func (p *Predictor) problems() int {
	ovo, isOVO := p.Kind.(*OneVsOneKind)
	switch {
	case p.Task == MultiClass && isOVO:
		return len(ovo.Pairs)
	case p.Task == MultiClass:
		return len(p.Classes)
	}
	return 1
}

// savePart writes a part predictor (from Fit with Config.Part) as a part file.
func (p *Predictor) savePart(w io.Writer) error {
	out := partFileJSON{Format: PartFormat, Part: p.Part, Task: p.Task, Classes: p.Classes,
		Training: p.Training, Models: []modelJSON{}}
	var err error
	switch k := p.Kind.(type) {
	case *OneVsOneKind:
		out.LabelNoise, out.Sharpness = k.LabelNoise, 1
		err = k.encodePart(p.Part, &out)
	case *OneVsRestKind:
		out.Scale, out.Sharpness, out.LabelNoise, out.Softmax = k.Scaler, k.Sharpness, k.LabelNoise,
			k.Softmax
		err = encodePartModels(p, k.Models, k.Traces, &out)
	case *SingleKind:
		out.Scale, out.Sharpness, out.LabelNoise = k.Scaler, k.Sharpness, k.LabelNoise
		err = encodePartModels(p, []*engine.Model{k.Model}, [][]engine.IterTrace{k.Trace}, &out)
	default:
		err = fmt.Errorf("ivm: a %T predictor has no parts", k)
	}
	if err != nil {
		return err
	}
	return writePart(w, &out)
}

// encodePart puts the pairs of the part's slice into a part file.
func (k *OneVsOneKind) encodePart(part Part, out *partFileJSON) error {
	lo, hi := part.Range(len(k.Pairs))
	for _, pp := range k.Pairs[lo:hi] {
		pj, err := encodePair(pp)
		if err != nil {
			return err
		}
		out.Pairs = append(out.Pairs, *pj)
	}
	return nil
}

// encodePartModels puts the models of p's part's slice into a part file, each with its
// trace and, for multi-class, its class.
func encodePartModels(p *Predictor, models []*engine.Model, traces [][]engine.IterTrace,
	out *partFileJSON) error {
	if len(models) != p.problems() {
		return fmt.Errorf("ivm: part %v holds %d model slots for %d problems", p.Part, len(models),
			p.problems())
	}
	lo, hi := p.Part.Range(len(models))
	for c := lo; c < hi; c++ {
		mj, err := encodeModel(models[c])
		if err != nil {
			return err
		}
		mj.Trace = traceOf(traces, c)
		if p.Task == MultiClass {
			cl := p.Classes[c]
			mj.Class = &cl
		}
		out.Models = append(out.Models, *mj)
	}
	return nil
}

func writePart(w io.Writer, out *partFileJSON) error {
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return fmt.Errorf("ivm: encoding the part: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// LoadPart reads a part file written by Save for a predictor from Fit with Config.Part.
// The predictor it returns has Part set and nil Models outside its slice; it cannot
// predict, only be merged.
func LoadPart(r io.Reader) (*Predictor, error) {
	var in partFileJSON
	doc, err := decodeFile(r, &in)
	if err != nil {
		return nil, jsonError(err)
	}
	if in.Format != PartFormat {
		return nil, fmt.Errorf("ivm: format %q is not a part file (want %q)", in.Format, PartFormat)
	}
	if err := doc.Require("task", "classes"); err != nil {
		return nil, jsonError(err)
	}
	p := &Predictor{Task: in.Task, Classes: in.Classes, Training: in.Training, Part: in.Part}
	cal := calibration{Scaler: in.Scale, Sharpness: in.Sharpness, LabelNoise: in.LabelNoise,
		Softmax: in.Softmax}
	if len(in.Pairs) > 0 {
		return p.loadPartPairs(&in, cal)
	}
	if err := in.Part.check(in.Task, p.problems()); err != nil || !in.Part.IsPart() {
		return nil, fmt.Errorf("ivm: part file with part %v for a %v task of %d classes", in.Part,
			in.Task, len(in.Classes))
	}
	lo, hi := in.Part.Range(p.problems())
	if len(in.Models) != hi-lo {
		return nil, fmt.Errorf("ivm: part file %v holds %d models, its slice has %d", in.Part,
			len(in.Models), hi-lo)
	}
	models, traces := make([]*engine.Model, p.problems()), make([][]engine.IterTrace, p.problems())
	for k := range in.Models {
		c := lo + k
		if cl := in.Models[k].Class; p.Task == MultiClass && (cl == nil || *cl != p.Classes[c]) {
			return nil, fmt.Errorf("ivm: part file %v: model %d is not class %g's", in.Part, k+1,
				p.Classes[c])
		}
		m, err := decodeModel(&in.Models[k])
		if err != nil {
			return nil, fmt.Errorf("%w (part %v, model %d)", err, in.Part, k+1)
		}
		models[c], traces[c] = m, in.Models[k].Trace
	}
	p.Kind = newModelsKind(p.Task, models, traces, cal)
	return p, nil
}

// loadPartPairs reads a one-vs-one part file's pairs into p; cal is the file's scaling and
// calibration, of which one-vs-one has the label noise alone.
func (p *Predictor) loadPartPairs(in *partFileJSON, cal calibration) (*Predictor, error) {
	k := len(p.Classes)
	switch {
	case p.Task != MultiClass || k < 3 || len(in.Models) > 0:
		return nil, fmt.Errorf("ivm: part file with one-vs-one pairs for a %v task of %d "+
			"classes and %d one-vs-rest models", p.Task, k, len(in.Models))
	case cal.Scaler != nil || cal.Sharpness != 1 || cal.Softmax:
		return nil, errors.New("ivm: part file: a one-vs-one model's scaling and " +
			"calibration are its pairs'")
	}
	if err := p.checkClasses(); err != nil {
		return nil, fmt.Errorf("ivm: part file: %w", err)
	}
	pairs := multiclass.PairCount(k)
	if err := in.Part.check(p.Task, pairs); err != nil || !in.Part.IsPart() {
		return nil, fmt.Errorf("ivm: part file with part %v for %d one-vs-one pairs",
			in.Part, pairs)
	}
	lo, hi := in.Part.Range(pairs)
	if len(in.Pairs) != hi-lo {
		return nil, fmt.Errorf("ivm: part file %v holds %d pairs, its slice has %d", in.Part,
			len(in.Pairs), hi-lo)
	}
	ovo := &OneVsOneKind{Pairs: make([]*Predictor, pairs), LabelNoise: cal.LabelNoise}
	for i := range in.Pairs {
		pp, err := decodePair(&in.Pairs[i], lo+i, p.Classes)
		if err != nil {
			return nil, fmt.Errorf("%w (part %v)", err, in.Part)
		}
		ovo.Pairs[lo+i] = pp
	}
	p.Kind = ovo
	return p, nil
}

// MergeParts joins the parts of one partitioned training into the predictor a single run
// would have made. It checks that the parts are complete and do not overlap, and that they
// agree on what every part computes from the whole data — the training file's SHA-256 and
// rows, the task, the classes, the scaling, the multi-class sharpness and a kernel shared by
// all classes; the caller checks the training settings
// (ivm merge compares the command lines). The provenance is the first part's, with the
// seconds summed over the parts and the earliest start time.
func MergeParts(parts []*Predictor) (*Predictor, error) {
	if len(parts) == 0 {
		return nil, errors.New("ivm: no parts to merge")
	}
	k := parts[0].Part.Count
	byIndex := make([]*Predictor, k)
	for _, pt := range parts {
		if err := sameTraining(parts[0], pt); err != nil {
			return nil, err
		}
		if byIndex[pt.Part.Index] != nil {
			return nil, fmt.Errorf("ivm: part %v is given twice", pt.Part)
		}
		byIndex[pt.Part.Index] = pt
	}
	for i, pt := range byIndex {
		if pt == nil {
			return nil, fmt.Errorf("ivm: part %v is missing", Part{Index: i, Count: k})
		}
	}
	first := byIndex[0]
	out := &Predictor{Task: first.Task, Classes: first.Classes, Training: first.Training}
	out.Training.Seconds = 0
	var models []*engine.Model
	var traces [][]engine.IterTrace
	var pairs []*Predictor
	for _, pt := range byIndex {
		lo, hi := pt.Part.Range(pt.problems())
		if ovo, ok := pt.Kind.(*OneVsOneKind); ok {
			pairs = append(pairs, ovo.Pairs[lo:hi]...)
		} else {
			ms, ts, _ := partModels(pt)
			models, traces = append(models, ms[lo:hi]...), append(traces, ts[lo:hi]...)
		}
		out.Training.Seconds += pt.Training.Seconds
		out.Training.Time = min(out.Training.Time, pt.Training.Time)
	}
	if pairs != nil {
		// Each part chose its label noise from its own pairs: the whole model's is
		// the mean over all of them, as a single run computes it.
		out.Kind = &OneVsOneKind{Pairs: pairs, LabelNoise: pairsLabelNoise(pairs)}
		return out, out.Kind.check(out)
	}
	_, _, cal := partModels(first)
	if err := checkModels(out, models, cal); err != nil {
		return nil, fmt.Errorf("ivm: merged model: %w", err)
	}
	out.Kind = newModelsKind(out.Task, models, traces, cal)
	return out, nil
}

// partModels returns a part's model slots (its one-vs-rest models, or its single model),
// their traces, and their scaling and calibration; a one-vs-one part has no models, its
// calibration the label noise alone.
func partModels(p *Predictor) ([]*engine.Model, [][]engine.IterTrace, calibration) {
	switch k := p.Kind.(type) {
	case *OneVsRestKind:
		return k.Models, k.Traces, k.calibration()
	case *SingleKind:
		return []*engine.Model{k.Model}, [][]engine.IterTrace{k.Trace}, k.calibration()
	case *OneVsOneKind:
		return nil, nil, calibration{Sharpness: 1, LabelNoise: k.LabelNoise}
	}
	return nil, nil, calibration{}
}

// sameTraining says how part b differs from part a in what every part must share.
func sameTraining(a, b *Predictor) error {
	ta, tb := a.Training, b.Training
	_, _, ca := partModels(a)
	_, _, cb := partModels(b)
	switch {
	case !b.Part.IsPart():
		return errors.New("ivm: a whole model is not a part")
	case b.Part.Index < 0 || b.Part.Index >= b.Part.Count:
		return fmt.Errorf("ivm: part %v: want 0 ≤ i < K", b.Part)
	case b.Part.Count != a.Part.Count:
		return fmt.Errorf("ivm: part %v and part %v split the classes differently", a.Part, b.Part)
	case ta.SHA256 != tb.SHA256 || ta.Rows != tb.Rows:
		return fmt.Errorf("ivm: part %v was trained on other data than part %v "+
			"(sha256 %.12s…, %d rows against %.12s…, %d rows)",
			b.Part, a.Part, tb.SHA256, tb.Rows, ta.SHA256, ta.Rows)
	case b.Task != a.Task || !slices.Equal(b.Classes, a.Classes):
		return fmt.Errorf("ivm: part %v is a %v task with classes %v, part %v a %v task "+
			"with classes %v", b.Part, b.Task, b.Classes, a.Part, a.Task, a.Classes)
	case isOneVsOne(a) != isOneVsOne(b):
		return fmt.Errorf("ivm: part %v and part %v decompose the classes differently "+
			"(one-vs-rest and one-vs-one)", a.Part, b.Part)
	case !isOneVsOne(a) && (cb.Sharpness != ca.Sharpness || cb.LabelNoise != ca.LabelNoise ||
		cb.Softmax != ca.Softmax):
		return fmt.Errorf(
			"ivm: part %v has sharpness %g, label noise %g and softmax %v, part %v %g, %g and %v",
			b.Part, cb.Sharpness, cb.LabelNoise, cb.Softmax,
			a.Part, ca.Sharpness, ca.LabelNoise, ca.Softmax)
	case !sameScaler(ca.Scaler, cb.Scaler):
		return fmt.Errorf("ivm: part %v scales its inputs differently from part %v", b.Part, a.Part)
	case b.InputDim() != a.InputDim():
		return fmt.Errorf("ivm: part %v has %d inputs, part %v %d", b.Part, b.InputDim(), a.Part,
			a.InputDim())
	}
	if ka, kb := sharedKernel(a), sharedKernel(b); ka != "" && kb != "" && ka != kb {
		return fmt.Errorf("ivm: part %v selected with kernel %s, part %v with %s: the parts "+
			"did not arrive at the same shared kernel", b.Part, kb, a.Part, ka)
	}
	return nil
}

// isOneVsOne reports whether p is a one-vs-one predictor.
func isOneVsOne(p *Predictor) bool {
	_, ovo := p.Kind.(*OneVsOneKind)
	return ovo
}

// sharedKernel returns the kernel a part's models were all selected with when none learnt
// its own (a fixed kernel, or one searched for all classes), else "".
func sharedKernel(p *Predictor) string {
	spec := ""
	models, traces, _ := partModels(p)
	for c, m := range models {
		switch {
		case m == nil:
		case c < len(traces) && len(traces[c]) > 0:
			return "" // learnt per class by Algorithm 2
		case spec == "":
			spec = fmt.Sprint(m.Kernel)
		case fmt.Sprint(m.Kernel) != spec:
			return ""
		}
	}
	return spec
}

func sameScaler(a, b *dataset.Scaler) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && slices.Equal(a.Shift, b.Shift) && slices.Equal(a.Factor, b.Factor) &&
		slices.Equal(a.Weight, b.Weight) && slices.Equal(a.Log, b.Log)
}
