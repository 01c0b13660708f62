package multitask

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/strictjson"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// ModelFormat is the version string of multi-task model files, the first field of every
// file Save writes. Load refuses any other.
const ModelFormat = "ivm-mtmodel/1"

// ModelMeta is what a multi-task model holds besides the Gaussian processes: the fields a
// model file has beside them.
type ModelMeta struct {
	// Labels are the original labels of the classes −1 and +1 of binary tasks (nil when the
	// training labels were −1 and +1 already).
	Labels []float64 `json:"labels,omitempty"`
	// Training records where the model came from (the command line fills it).
	Training dataset.Provenance `json:"training"`
	// Trace is the learning trace (nil when the kernel was fixed).
	Trace []TraceRecord `json:"trace,omitempty"`
}

// TraceRecord is an IterTrace as stored in a model file (an undefined held-out figure is
// null).
type TraceRecord struct {
	Iter         int       `json:"iter"`
	HeldOut      *float64  `json:"held_out"`
	Before       float64   `json:"objective_before,omitempty"`
	After        float64   `json:"objective_after,omitempty"`
	Steps        int       `json:"steps,omitempty"`
	Halvings     int       `json:"halvings,omitempty"`
	Rejected     bool      `json:"rejected,omitempty"`
	Final        bool      `json:"final,omitempty"`
	KernelParams []float64 `json:"kernel_params"`
	PerTask      []int     `json:"active_per_task"`
}

// Records converts a learning trace for a model file.
func Records(trace []IterTrace) []TraceRecord {
	out := make([]TraceRecord, len(trace))
	for i, t := range trace {
		r := TraceRecord{Iter: t.Iter, Before: t.Before, After: t.After, Steps: t.Steps,
			Halvings: t.Halvings, Rejected: t.Rejected, Final: t.Final,
			KernelParams: t.KernelParams, PerTask: t.ActivePerTask}
		if h := t.HeldOut; !math.IsNaN(h) && !math.IsInf(h, 0) {
			r.HeldOut = &h
		}
		if bad(r.Before) || bad(r.After) {
			r.Before, r.After = 0, 0
		}
		out[i] = r
	}
	return out
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

type activeJSON struct {
	Task string `json:"task"`
	Row  int    `json:"row"`
}

type taskJSON struct {
	Name            string          `json:"name"`
	Noise           json.RawMessage `json:"noise"`
	ActiveInputs    [][]float64     `json:"active_inputs"`
	SiteMean        []float64       `json:"site_mean"`
	SitePrecision   []float64       `json:"site_precision"`
	FactorPrecision []float64       `json:"factor_precision,omitempty"`
}

type modelJSON struct {
	Format     string          `json:"format"`
	KernelSpec string          `json:"kernel_spec"`
	Kernel     json.RawMessage `json:"kernel"`
	InputDim   int             `json:"input_dim"`
	// Active lists every inclusion in order: the task's label and the 0-based row of the
	// training file.
	Active []activeJSON `json:"active"`
	Tasks  []taskJSON   `json:"tasks"`
	// Scaling is the input scaling (absent: inputs used as given); active inputs are
	// stored scaled.
	Scaling *dataset.Scaler `json:"scaling,omitempty"`
	ModelMeta
}

// Save writes m as versioned JSON (ModelFormat): the shared kernel, every task's noise
// model, active inputs and sites (in the task's inclusion order), the overall inclusion
// order as {"task", "row"} pairs, and ModelMeta's fields. The kernel must be a *kern.Sum.
// NaN and ±Inf are an error and nothing is written then.
func (m *Model) Save(w io.Writer) error {
	sum, ok := m.Kernel.(*kern.Sum)
	if !ok {
		return fmt.Errorf("multitask: model files need a *kern.Sum kernel, not %T", m.Kernel)
	}
	kj, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("multitask: encoding the kernel: %w", err)
	}
	out := modelJSON{Format: ModelFormat, KernelSpec: sum.String(), Kernel: kj, InputDim: sum.Dim(),
		Scaling: m.Scaler}
	if out.InputDim == 0 {
		out.InputDim = m.InputDim // a kernel without a dimension, tasks perhaps without points
	}
	if m.Scaler != nil {
		for name, vs := range map[string][]float64{"scaling shift": m.Scaler.Shift,
			"scaling factor": m.Scaler.Factor} {
			if err := finite(name, vs); err != nil {
				return err
			}
		}
	}
	out.ModelMeta = m.ModelMeta
	if err := finite("label", out.Labels); err != nil {
		return err
	}
	for _, st := range m.Steps {
		if st.Task < 0 || st.Task >= len(m.Tasks) {
			return fmt.Errorf("multitask: inclusion of task %d, model has %d tasks",
				st.Task, len(m.Tasks))
		}
		out.Active = append(out.Active, activeJSON{Task: m.Tasks[st.Task].Name, Row: st.Row})
	}
	for _, t := range m.Tasks {
		if !utf8.ValidString(t.Name) {
			// JSON would replace the invalid bytes, and two names could become one.
			return fmt.Errorf("multitask: task name %q is not UTF-8 text", t.Name)
		}
		nj, err := noise.Marshal(t.Noise)
		if err != nil {
			return fmt.Errorf("multitask: task %q: encoding the noise model: %w", t.Name, err)
		}
		tj := taskJSON{Name: t.Name, Noise: nj, ActiveInputs: [][]float64{}, SiteMean: []float64{},
			SitePrecision: []float64{}}
		if im := t.Model; im != nil {
			d, dim := im.X.Dims()
			if out.InputDim == 0 {
				out.InputDim = dim
			}
			tj.SiteMean, tj.SitePrecision = im.SiteM, im.SiteBeta
			if !slices.Equal(im.FactorBeta, im.SiteBeta) {
				tj.FactorPrecision = im.FactorBeta
			}
			for i := 0; i < d; i++ {
				tj.ActiveInputs = append(tj.ActiveInputs, im.X.RawRowView(i))
			}
		}
		for name, vs := range map[string][]float64{"site mean": tj.SiteMean,
			"site precision": tj.SitePrecision, "factor precision": tj.FactorPrecision} {
			if err := finite(fmt.Sprintf("task %q %s", t.Name, name), vs); err != nil {
				return err
			}
		}
		for i, r := range tj.ActiveInputs {
			if err := finite(fmt.Sprintf("task %q active input %d", t.Name, i), r); err != nil {
				return err
			}
		}
		out.Tasks = append(out.Tasks, tj)
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return fmt.Errorf("multitask: encoding the model: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func finite(name string, vs []float64) error {
	for i, v := range vs {
		if bad(v) {
			return fmt.Errorf("multitask: %s %d is %v, which a model file cannot hold", name, i, v)
		}
	}
	return nil
}

// fileError words the errors of an empty or truncated file.
func fileError(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("it is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("it ends early (truncated?)")
	}
	return err
}

// Load reads a model written by Save (or by earlier versions of this package in the same
// format). An unknown format, a missing or inconsistent field, or a task whose active-set
// matrix cannot be factorised is an error that says which. Steps of the model read have
// Index −1 (the file keeps the task and the file row).
func Load(r io.Reader) (*Model, error) {
	var in modelJSON
	doc, err := strictjson.Reader(r, &in)
	if err != nil {
		return nil, fmt.Errorf("multitask: reading the model: %w", fileError(err))
	}
	if in.Format != ModelFormat {
		return nil, fmt.Errorf("multitask: model format %q, want %q", in.Format, ModelFormat)
	}
	if err := doc.Require("kernel", "tasks", "input_dim", "active"); err != nil {
		return nil, fmt.Errorf("multitask: reading the model: %w", err)
	}
	if len(in.Kernel) == 0 || len(in.Tasks) == 0 {
		return nil, errors.New("multitask: model file without a kernel or tasks")
	}
	sum := new(kern.Sum)
	if err := json.Unmarshal(in.Kernel, sum); err != nil {
		return nil, fmt.Errorf("multitask: the model's kernel: %w", err)
	}
	if in.InputDim < 1 || in.InputDim > engine.MaxInputDim {
		return nil, fmt.Errorf("multitask: input_dim %d", in.InputDim)
	}
	if sum.Dim() != 0 && sum.Dim() != in.InputDim {
		return nil, fmt.Errorf("multitask: the kernel is for %d inputs, input_dim says %d",
			sum.Dim(), in.InputDim)
	}
	m := &Model{Kernel: sum, Scaler: in.Scaling, InputDim: in.InputDim, ModelMeta: in.ModelMeta}
	if in.Scaling != nil {
		if err := in.Scaling.Check(in.InputDim); err != nil {
			return nil, fmt.Errorf("multitask: %w", err)
		}
	}
	if err := finite("label", in.Labels); err != nil {
		return nil, err
	}
	if len(in.Labels) != 0 && (len(in.Labels) != 2 || !(in.Labels[0] < in.Labels[1])) {
		return nil, fmt.Errorf("multitask: labels %v: want two labels, the smaller first",
			in.Labels)
	}
	index := map[string]int{}
	for ti, tj := range in.Tasks {
		if _, dup := index[tj.Name]; dup {
			return nil, fmt.Errorf("multitask: task %q appears twice", tj.Name)
		}
		index[tj.Name] = ti
		tm, err := readTask(tj, sum, in.InputDim)
		if err != nil {
			return nil, fmt.Errorf("multitask: task %q: %w", tj.Name, err)
		}
		m.Tasks = append(m.Tasks, tm)
	}
	count := make([]int, len(m.Tasks))
	for _, a := range in.Active {
		ti, ok := index[a.Task]
		if !ok {
			return nil, fmt.Errorf("multitask: active point of unknown task %q", a.Task)
		}
		if a.Row < 0 {
			return nil, fmt.Errorf("multitask: active point of task %q has row %d", a.Task, a.Row)
		}
		m.Steps = append(m.Steps, Step{Task: ti, Index: -1, Row: a.Row})
		m.Tasks[ti].Rows = append(m.Tasks[ti].Rows, a.Row)
		count[ti]++
	}
	for ti, t := range m.Tasks {
		if d := len(in.Tasks[ti].ActiveInputs); count[ti] != d {
			return nil, fmt.Errorf(
				"multitask: task %q has %d active inputs but %d entries in \"active\"",
				t.Name, d, count[ti])
		}
	}
	return m, nil
}

// readTask rebuilds one task's model, checking every length against dim before it
// allocates: a corrupt input_dim must not allocate its size.
func readTask(tj taskJSON, sum *kern.Sum, dim int) (TaskModel, error) {
	nm, err := noise.Unmarshal(tj.Noise)
	if err != nil {
		return TaskModel{}, err
	}
	tm := TaskModel{Name: tj.Name, Noise: nm}
	d := len(tj.ActiveInputs)
	if len(tj.SiteMean) != d || len(tj.SitePrecision) != d ||
		(tj.FactorPrecision != nil && len(tj.FactorPrecision) != d) {
		return tm, fmt.Errorf(
			"%d active inputs, %d site means, %d site precisions, %d factor precisions",
			d, len(tj.SiteMean), len(tj.SitePrecision), len(tj.FactorPrecision))
	}
	if err := engine.CheckSites(nm, tj.SitePrecision, tj.FactorPrecision); err != nil {
		return tm, err
	}
	if d == 0 {
		return tm, nil
	}
	for i, row := range tj.ActiveInputs {
		if len(row) != dim {
			return tm, fmt.Errorf("active input %d has %d values, input_dim %d", i, len(row), dim)
		}
	}
	x := mat.NewDense(d, dim, nil)
	for i, row := range tj.ActiveInputs {
		x.SetRow(i, row)
	}
	if tm.Model, err = NewSiteModel(sum, nm, x, tj.SiteMean, tj.SitePrecision,
		tj.FactorPrecision); err != nil {
		return tm, err
	}
	return tm, nil
}
