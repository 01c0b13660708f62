package ssmtr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/fileformat"
	"github.com/ivmlab/ivm/internal/strictjson"
)

// ModelFormat is the "format" field of the model files Save writes.
const ModelFormat = "ivm-ssmtr/1"

// fileModel is the JSON form of a Model. It keeps what inductive prediction needs and
// nothing of the fit's history: per task the kernel parameters, the training rows the
// kernel is evaluated against (scaled; with a graph, the unlabelled rows too), the posterior
// weights w and matrix A into which the graph of eq. 6 and the likelihood are folded (so the
// graph itself is not stored), the target standardisation and the noise level; the input
// scaler; and the common prior, which fits new tasks (AddTask).
type fileModel struct {
	Format    string             `json:"format"`
	Method    Method             `json:"method"`
	Kernel    string             `json:"kernel"`
	Dim       int                `json:"dim"`
	Scaling   dataset.Scaling    `json:"scaling"`
	Scaler    *dataset.Scaler    `json:"scaler,omitempty"`
	Targets   TargetScaling      `json:"targets"`
	Graph     GraphOptions       `json:"graph"`
	Objective float64            `json:"objective"`
	Tasks     []fileTask         `json:"tasks"`
	Prior     *filePrior         `json:"prior,omitempty"`
	Training  dataset.Provenance `json:"training"`
}

type fileTask struct {
	Name           string      `json:"name"`
	Theta          []float64   `json:"theta"`
	Alpha          float64     `json:"alpha"`
	Sigma          float64     `json:"sigma"`
	Epsilon        float64     `json:"epsilon"`
	Mean           float64     `json:"mean"`
	Scale          float64     `json:"scale"`
	NegLogEvidence float64     `json:"neg_log_evidence"`
	Condition      float64     `json:"condition,omitempty"`
	X              [][]float64 `json:"x"`
	W              []float64   `json:"w"`
	// A is the upper triangle of the symmetric A, row by row.
	A []float64 `json:"a"`
}

type filePrior struct {
	Names       []string    `json:"names"`
	Mean        []float64   `json:"mean"`
	Cov         [][]float64 `json:"cov"`
	Sigma       float64     `json:"sigma"`
	Epsilon     float64     `json:"epsilon"`
	AlphaPrior  bool        `json:"alpha_prior"`
	Alpha       float64     `json:"alpha"`
	PooledMean  float64     `json:"pooled_mean"`
	PooledScale float64     `json:"pooled_scale"`
}

// Save writes the model as versioned JSON (ModelFormat).
func (m *Model) Save(w io.Writer) error {
	if len(m.Tasks) != len(m.Names) {
		return fmt.Errorf("ssmtr: %d tasks but %d names", len(m.Tasks), len(m.Names))
	}
	f := fileModel{Format: ModelFormat, Method: m.Method, Kernel: m.Kernel, Dim: m.Dim,
		Scaling: m.Scaling, Scaler: m.Scaler,
		Targets: m.Targets, Graph: m.Graph, Objective: m.Objective, Training: m.Training}
	for k, tm := range m.Tasks {
		n, _ := tm.x.Dims()
		ft := fileTask{Name: m.Names[k], Theta: tm.Theta, Alpha: tm.Alpha, Sigma: tm.Sigma,
			Epsilon: tm.Epsilon, Mean: tm.Mean, Scale: tm.Scale,
			NegLogEvidence: tm.NegLogEvidence, Condition: tm.Condition,
			X: make([][]float64, n), W: tm.w, A: make([]float64, 0, n*(n+1)/2)}
		for i := 0; i < n; i++ {
			ft.X[i] = tm.x.RawRowView(i)
			ft.A = append(ft.A, tm.amat.RawRowView(i)[i:]...)
		}
		f.Tasks = append(f.Tasks, ft)
	}
	if p := m.Prior; p != nil {
		fp := &filePrior{Names: p.Names, Mean: p.Mean, Sigma: p.Sigma, Epsilon: p.Epsilon,
			AlphaPrior: p.AlphaPrior,
			Alpha:      p.Alpha, PooledMean: p.PooledMean, PooledScale: p.PooledScale}
		for i := 0; i < p.Cov.SymmetricDim(); i++ {
			row := make([]float64, p.Cov.SymmetricDim())
			for j := range row {
				row[j] = p.Cov.At(i, j)
			}
			fp.Cov = append(fp.Cov, row)
		}
		f.Prior = fp
	}
	if err := checkFinite(f); err != nil {
		return fmt.Errorf("ssmtr: not saving: %w", err)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("ssmtr: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Load reads a model written by Save. A file of another format or version is refused with
// a message naming both, and everything read is checked (finite numbers, consistent
// sizes, a kernel that parses) before it is used.
func Load(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	format, err := fileformat.Of(b)
	if err != nil {
		return nil, fmt.Errorf("ssmtr: not a model file: %w", err)
	}
	if format != ModelFormat {
		name, _, _ := strings.Cut(ModelFormat, "/")
		if strings.HasPrefix(format, name+"/") {
			return nil, fmt.Errorf(
				"ssmtr: model format %q is not supported by this version (it reads %q)",
				format, ModelFormat)
		}
		return nil, fmt.Errorf("ssmtr: model format %q is not %q", format, ModelFormat)
	}
	var f fileModel
	doc, err := strictjson.Decode(b, &f)
	if err == nil {
		err = doc.Require("method", "kernel", "dim", "scaling", "targets", "tasks")
	}
	if err != nil {
		return nil, fmt.Errorf("ssmtr: model file: %w", err)
	}
	return f.model()
}

// model checks f and builds the Model.
func (f *fileModel) model() (*Model, error) {
	if err := checkFinite(*f); err != nil {
		return nil, fmt.Errorf("ssmtr: model file: %w", err)
	}
	if f.Dim < 1 {
		return nil, fmt.Errorf("ssmtr: model file: %d inputs", f.Dim)
	}
	if len(f.Tasks) == 0 {
		return nil, errors.New("ssmtr: model file has no tasks")
	}
	cfg := Config{Method: f.Method, Targets: f.Targets, Graph: f.Graph}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("ssmtr: model file: %s", strings.TrimPrefix(err.Error(), "ssmtr: "))
	}
	m := &Model{Method: f.Method, Kernel: f.Kernel, Dim: f.Dim, Scaling: f.Scaling,
		Scaler: f.Scaler, Targets: f.Targets, Graph: f.Graph, Objective: f.Objective,
		Training: f.Training}
	switch {
	case f.Scaling == dataset.ScaleNone && f.Scaler != nil:
		return nil, errors.New("ssmtr: model file: scaling none with a scaler")
	case f.Scaling != dataset.ScaleNone:
		if f.Scaler == nil || f.Scaler.Kind != f.Scaling {
			return nil, fmt.Errorf("ssmtr: model file: scaling %v without its scaler", f.Scaling)
		}
		if err := f.Scaler.Check(f.Dim); err != nil {
			return nil, fmt.Errorf("ssmtr: model file: %w", err)
		}
	}
	seen := map[string]bool{}
	for k := range f.Tasks {
		ft := &f.Tasks[k]
		if seen[ft.Name] {
			return nil, fmt.Errorf("ssmtr: model file: task %q twice", ft.Name)
		}
		seen[ft.Name] = true
		tm, err := ft.taskModel(f.Kernel, f.Dim)
		if err != nil {
			return nil, fmt.Errorf("ssmtr: model file: task %q: %w", ft.Name, err)
		}
		m.Names, m.Tasks = append(m.Names, ft.Name), append(m.Tasks, tm)
	}
	if f.Prior != nil {
		p, err := f.Prior.prior(m)
		if err != nil {
			return nil, fmt.Errorf("ssmtr: model file: prior: %w", err)
		}
		m.Prior = p
	}
	return m, nil
}

// taskModel checks one task of a file and builds it.
func (ft *fileTask) taskModel(spec string, dim int) (*TaskModel, error) {
	k, err := parseKernel(spec, dim)
	if err != nil {
		return nil, err
	}
	if len(ft.Theta) != k.NumParams() {
		return nil, fmt.Errorf("%d kernel parameters, the kernel %q has %d", len(ft.Theta), spec,
			k.NumParams())
	}
	for i, v := range ft.Theta {
		if !(v > 0) {
			return nil, fmt.Errorf("kernel parameter %d is %v, want > 0", i+1, v)
		}
	}
	if err := k.SetParams(ft.Theta); err != nil {
		return nil, err
	}
	if !(ft.Sigma > 0 && ft.Scale > 0 && ft.Alpha >= 0 && ft.Epsilon >= 0 && ft.Condition >= 0) {
		return nil, fmt.Errorf("σ = %v, scale = %v, α = %v, ε = %v, condition %v: "+
			"want σ, scale > 0 and α, ε ≥ 0",
			ft.Sigma, ft.Scale, ft.Alpha, ft.Epsilon, ft.Condition)
	}
	n := len(ft.X)
	if n == 0 || len(ft.W) != n || len(ft.A) != n*(n+1)/2 {
		return nil, fmt.Errorf("%d training rows, %d weights and %d entries of A (want %d)",
			n, len(ft.W), len(ft.A), n*(n+1)/2)
	}
	for i, row := range ft.X { // before allocating n×dim: dim is the file's word
		if len(row) != dim {
			return nil, fmt.Errorf("training row %d has %d inputs, want %d", i+1, len(row), dim)
		}
	}
	x := mat.NewDense(n, dim, nil)
	for i, row := range ft.X {
		x.SetRow(i, row)
	}
	a := mat.NewDense(n, n, nil)
	p := 0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.Set(i, j, ft.A[p])
			a.Set(j, i, ft.A[p])
			p++
		}
	}
	return &TaskModel{Theta: ft.Theta, Alpha: ft.Alpha, Sigma: ft.Sigma, Epsilon: ft.Epsilon,
		Mean: ft.Mean, Scale: ft.Scale, NegLogEvidence: ft.NegLogEvidence,
		Condition: ft.Condition, kernel: k, x: x, w: ft.W, amat: a}, nil
}

// prior checks a file's prior against its model and builds it.
func (fp *filePrior) prior(m *Model) (*Prior, error) {
	if m.Method == SSTR {
		return nil, errors.New("an SSTR model has no common prior")
	}
	k, err := parseKernel(m.Kernel, m.Dim)
	if err != nil {
		return nil, err
	}
	q := k.NumParams()
	if fp.AlphaPrior && m.Method.graph() {
		q++
	}
	if len(fp.Mean) != q || len(fp.Names) != q || len(fp.Cov) != q {
		return nil, fmt.Errorf("%d means, %d names and %d covariance rows, want %d", len(fp.Mean),
			len(fp.Names), len(fp.Cov), q)
	}
	cov := mat.NewSymDense(q, nil)
	for i, row := range fp.Cov {
		if len(row) != q {
			return nil, fmt.Errorf("covariance row %d has %d entries, want %d", i+1, len(row), q)
		}
		for j := i; j < q; j++ {
			cov.SetSym(i, j, row[j])
		}
	}
	if !(fp.Sigma > 0 && fp.Epsilon >= 0 && fp.Alpha >= 0 && fp.PooledScale > 0) ||
		(m.Method == SSMTRPI && fp.Epsilon == 0) {
		return nil, fmt.Errorf("σ = %v, ε = %v, α = %v, pooled scale %v", fp.Sigma, fp.Epsilon,
			fp.Alpha,
			fp.PooledScale)
	}
	return &Prior{Names: fp.Names, Mean: fp.Mean, Cov: cov, Kernel: m.Kernel, Dim: m.Dim,
		Method: m.Method, Graph: m.Graph,
		Targets: m.Targets, PooledMean: fp.PooledMean, PooledScale: fp.PooledScale, Sigma: fp.Sigma,
		Epsilon:    fp.Epsilon,
		AlphaPrior: fp.AlphaPrior, Alpha: fp.Alpha}, nil
}

// checkFinite reports the first NaN or infinite number of a model file.
func checkFinite(f fileModel) error {
	bad := func(what string, v ...float64) error {
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s (entry %d) is %v", what, i+1, x)
			}
		}
		return nil
	}
	errs := []error{bad("objective", f.Objective)}
	for _, t := range f.Tasks {
		errs = append(errs, bad("task "+t.Name+" θ", t.Theta...), bad("task "+t.Name+" w", t.W...),
			bad("task "+t.Name+" A", t.A...),
			bad("task "+t.Name+" noise, scaling or evidence", t.Alpha, t.Sigma, t.Epsilon,
				t.Mean, t.Scale, t.NegLogEvidence, t.Condition))
		for i, row := range t.X {
			errs = append(errs, bad(fmt.Sprintf("task %s row %d", t.Name, i+1), row...))
		}
	}
	if p := f.Prior; p != nil {
		errs = append(errs, bad("prior mean", p.Mean...),
			bad("prior noise", p.Sigma, p.Epsilon, p.Alpha, p.PooledMean, p.PooledScale))
		for _, row := range p.Cov {
			errs = append(errs, bad("prior covariance", row...))
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
