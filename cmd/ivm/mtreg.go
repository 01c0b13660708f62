package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/ssmtr"
)

func init() {
	register("mtreg", command{Synopsis: "ivm mtreg [flags] TRAIN [TEST]", Short: "semi-supervised multi-task GP regression (SMTR/SSMTR)", Order: 60, Run: cmdMtreg})
}

const mtregHelp = `Fits one GP per task with the tasks' kernel parameters under a common prior (Zhang &
Yeung, "Semi-supervised multi-task regression"): SSTR (independent GPs), SMTR, SSMTR (adds
the unlabelled rows through a kNN-graph kernel) or SSMTRPI (adds pairwise constraints).

TRAIN is a CSV file (optionally gzipped, header detected) with a task column (-task-col,
default 1) and a target column (-label-col, default last); the other columns are inputs.
Rows whose target is "?" or empty are unlabelled. Every task needs at least one labelled
row. TEST has the same columns; its tasks must occur in TRAIN. With targets in TEST the
command prints the MSE and the nMSE (MSE / variance of the targets, per task, averaged
over tasks), and for reference the nMSE of predicting each task's labelled mean (the
models' prior mean: what a fit that learnt nothing from the inputs scores). -out writes
one line per TEST row (or, without TEST, per unlabelled TRAIN row): task, predictive mean,
latent variance.

-pairs FILE gives constraints y_u − y_v ≥ d as CSV lines "u,v,d", u and v 1-based data row
numbers of TRAIN (header not counted) of the same task; quadruple constraints
y_u − y_v ≥ y_w − y_z as lines "u,v,w,z" with -quads FILE. They are used by ssmtrpi.

Inputs are z-scored with the training rows' statistics unless -scale none.
`

func cmdMtreg(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mtreg", "ivm mtreg [flags] TRAIN [TEST]\n\n"+mtregHelp, stderr)
	method := fs.String("method", "ssmtr", "sstr, smtr, ssmtr or ssmtrpi")
	taskCol := fs.Int("task-col", 1, "1-based column of the task identifier")
	labelCol := fs.String("label-col", "last", "target column: last, first or a 1-based number")
	kernel := fs.String("kernel", "", `kernel spec without white noise (default: rbf, width from the median distance); e.g. "lin+rbf"`)
	k := fs.Int("k", ssmtr.DefaultNeighbours, "neighbours of the graph (ssmtr, ssmtrpi)")
	lap := fs.String("laplacian", "normalized", "graph Laplacian: normalized or unnormalized")
	alphaPrior := fs.Bool("alpha-prior", false, "put the graph weights α_i under the tasks' common prior (default: free per task, as the paper)")
	targets := fs.String("targets", "per-task", "target standardisation: per-task, pooled or none")
	scale := fs.String("scale", "zscore", "input scaling: zscore or none")
	pairs := fs.String("pairs", "", "CSV of pairwise constraints u,v,d (1-based TRAIN rows)")
	quads := fs.String("quads", "", "CSV of quadruple constraints u,v,w,z (1-based TRAIN rows)")
	outer := fs.Int("iters", 10, "alternations between gradient steps and the prior update")
	inner := fs.Int("kiters", 100, "optimiser iterations per alternation")
	out := fs.String("out", "", "write predictions here")
	workers := fs.Int("workers", 0, "goroutines (0: all cores)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	maxMem := registerMaxMem(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return errUsage
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	if *taskCol < 1 {
		return fmt.Errorf("-task-col %d: want a 1-based column number", *taskCol)
	}
	if *outer < 0 || *inner < 0 || *k < 0 {
		return fmt.Errorf("-iters %d, -kiters %d, -k %d: want 0 (the default) or more", *outer, *inner, *k)
	}
	if err := checkOutputs([]string{fs.Arg(0), fs.Arg(1), *pairs, *quads}, *out); err != nil {
		return err
	}
	predOut := stdout
	if *out == stdoutPath {
		stdout = stderr // the predictions go to standard output, the summary beside them
	}
	meth, err := ssmtr.ParseMethod(*method)
	if err != nil {
		return err
	}
	lc, err := dataset.ParseLabelCol(*labelCol)
	if err != nil {
		return err
	}
	opt := ssmtr.Options{Method: meth, Kernel: *kernel, OuterIters: *outer, InnerIters: *inner, Workers: *workers, AlphaPrior: *alphaPrior}
	opt.Graph.K = *k
	if opt.Graph.Laplacian, err = ssmtr.ParseLaplacian(*lap); err != nil {
		return err
	}
	if opt.Targets, err = ssmtr.ParseScaling(*targets); err != nil {
		return err
	}
	if *scale != "zscore" && *scale != "none" {
		return fmt.Errorf("unknown -scale %q (want zscore or none)", *scale)
	}
	if !*quiet {
		opt.Log = stderr
	}
	tr, err := mtregRead(fs.Arg(0), *taskCol, lc, 0, *maxMem)
	if err != nil {
		return err
	}
	if *scale == "zscore" {
		if err := tr.zscore(); err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(0), err)
		}
	}
	ids := tr.ids()
	tasks, rowMap, err := tr.tasks(ids)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if err := maxMem.check(mtregBytes(tasks), fmt.Sprintf("fitting %d tasks", len(tasks))); err != nil {
		return err
	}
	if err := mtregConstraints(tasks, rowMap, *pairs, *quads); err != nil {
		return err
	}
	m, err := ssmtr.Fit(tasks, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%v on %d tasks (%d labelled, %d unlabelled rows), kernel %s\n", meth, len(tasks), tr.labelled(), len(tr.y)-tr.labelled(), m.Kernel)
	if m.Prior != nil {
		fmt.Fprintf(stdout, "prior mean %s: %.4g; noise σ = %.4g (standardised units)", strings.Join(m.Prior.Names, ", "), m.Prior.Mean, m.Prior.Sigma)
		if meth == ssmtr.SSMTRPI {
			fmt.Fprintf(stdout, ", ε = %.4g", m.Prior.Epsilon)
		}
		if meth == ssmtr.SSMTR || meth == ssmtr.SSMTRPI {
			fmt.Fprintf(stdout, "; graph weight α: %s", mtregAlphas(m))
		}
		fmt.Fprintln(stdout)
	}
	var pred mtregPredictions
	if fs.NArg() == 2 {
		te, err := mtregRead(fs.Arg(1), *taskCol, lc, tr.dim, *maxMem)
		if err != nil {
			return err
		}
		if *scale == "zscore" {
			if err := te.applyScale(tr); err != nil {
				return fmt.Errorf("%s: %w", fs.Arg(1), err)
			}
		}
		if pred, err = mtregPredict(m, te, ids); err != nil {
			return err
		}
		if mse, nmse, ref, ok := pred.errors(); ok {
			fmt.Fprintf(stdout, "Mean squared error = %s\nnMSE (per task, averaged) = %.6g\n", mse, nmse)
			fmt.Fprintf(stdout, "nMSE of the labelled mean (each task's prior mean; a model that learnt nothing) = %.6g\n", ref)
		}
	} else {
		un := tr.unlabelledRows()
		if pred, err = mtregPredict(m, un, ids); err != nil {
			return err
		}
	}
	if *out != "" {
		return pred.write(*out, predOut)
	}
	return nil
}

// mtregBytes estimates what fitting allocates: each task's GP holds n×n matrices over its
// labelled and unlabelled rows (kernel, graph, factors, gradients); measured peak RSS
// 130·n² bytes for one task of n = 800.
func mtregBytes(tasks []ssmtr.Task) float64 {
	var need float64
	for _, t := range tasks {
		n := float64(len(t.Y))
		if t.U != nil {
			u, _ := t.U.Dims()
			n += float64(u)
		}
		need += 160 * n * n
	}
	return need
}

// mtregData is a CSV file split into task ids, inputs and targets.
type mtregData struct {
	task []float64
	x    *mat.Dense
	y    []float64
	dim  int
	// scaler is the input standardisation (nil before zscore).
	scaler *ivm.Scaler
}

func mtregRead(path string, taskCol int, lc dataset.LabelCol, dim int, limit memLimit) (*mtregData, error) {
	opt := dataset.ReadOptions{Format: dataset.CSV, LabelCol: lc}
	limit.limitOptions(&opt)
	d, err := dataset.ReadFile(path, opt)
	if err != nil {
		return nil, err
	}
	return mtregSplit(d, path, taskCol, lc, dim)
}

// mtregSplit splits the columns of data read from path into task ids and inputs; dim > 0
// is the number of inputs the training file had.
func mtregSplit(d *dataset.Data, path string, taskCol int, lc dataset.LabelCol, dim int) (*mtregData, error) {
	n, c := d.X.Dims()
	// The task column's index among the feature columns: the label column is removed.
	label := int(lc) - 1
	if lc == dataset.LabelLast {
		label = c
	}
	tc := taskCol - 1
	if tc < 0 || tc > c || tc == label {
		return nil, fmt.Errorf("%s: task column %d is not an input column", path, taskCol)
	}
	if tc > label {
		tc--
	}
	if c < 2 {
		return nil, fmt.Errorf("%s: no input column besides the task", path)
	}
	if dim > 0 && c-1 != dim {
		return nil, fmt.Errorf("%s: %d input columns, the training file has %d", path, c-1, dim)
	}
	td := &mtregData{task: make([]float64, n), x: mat.NewDense(n, c-1, nil), y: d.Y, dim: c - 1}
	for i := 0; i < n; i++ {
		td.task[i] = d.X.At(i, tc)
		k := 0
		for j := 0; j < c; j++ {
			if j != tc {
				td.x.Set(i, k, d.X.At(i, j))
				k++
			}
		}
	}
	return td, nil
}

// zscore standardises the inputs with their own statistics (ivm.FitScaler, robust to
// values near ±1e300) and keeps the scaling for applyScale.
func (t *mtregData) zscore() error {
	sc, err := ivm.FitScaler(t.x, ivm.ScaleStd)
	if err != nil {
		return err
	}
	t.scaler = sc
	return t.applyScale(t)
}

// applyScale scales the inputs as from's were.
func (t *mtregData) applyScale(from *mtregData) error {
	x, err := from.scaler.Apply(t.x)
	if err != nil {
		return err
	}
	t.x = x
	return nil
}

func (t *mtregData) ids() []float64 {
	seen := map[float64]bool{}
	var ids []float64
	for _, v := range t.task {
		if !seen[v] {
			seen[v] = true
			ids = append(ids, v)
		}
	}
	sort.Float64s(ids)
	return ids
}

func (t *mtregData) labelled() int {
	n := 0
	for _, v := range t.y {
		if !math.IsNaN(v) {
			n++
		}
	}
	return n
}

// tasks groups the rows by task; rowMap[r] = (task, index among that task's training
// points: labelled rows first, then unlabelled, each in file order).
func (t *mtregData) tasks(ids []float64) ([]ssmtr.Task, [][2]int, error) {
	_, d := t.x.Dims()
	index := map[float64]int{}
	for i, v := range ids {
		index[v] = i
	}
	lab := make([][]int, len(ids))
	unl := make([][]int, len(ids))
	for r, v := range t.task {
		k := index[v]
		if math.IsNaN(t.y[r]) {
			unl[k] = append(unl[k], r)
		} else {
			lab[k] = append(lab[k], r)
		}
	}
	for k, id := range ids {
		if len(lab[k]) == 0 {
			return nil, nil, fmt.Errorf("task %s has no labelled rows; every task needs at least one", strconv.FormatFloat(id, 'g', -1, 64))
		}
	}
	rowMap := make([][2]int, len(t.task))
	out := make([]ssmtr.Task, len(ids))
	rows := func(idx []int) *mat.Dense {
		if len(idx) == 0 {
			return nil
		}
		m := mat.NewDense(len(idx), d, nil)
		for i, r := range idx {
			m.SetRow(i, t.x.RawRowView(r))
		}
		return m
	}
	for k := range ids {
		out[k].X = rows(lab[k])
		out[k].U = rows(unl[k])
		for i, r := range lab[k] {
			out[k].Y = append(out[k].Y, t.y[r])
			rowMap[r] = [2]int{k, i}
		}
		for i, r := range unl[k] {
			rowMap[r] = [2]int{k, len(lab[k]) + i}
		}
	}
	return out, rowMap, nil
}

func (t *mtregData) unlabelledRows() *mtregData {
	var idx []int
	for r, v := range t.y {
		if math.IsNaN(v) {
			idx = append(idx, r)
		}
	}
	_, d := t.x.Dims()
	u := &mtregData{dim: d}
	if len(idx) == 0 {
		return u
	}
	u.x = mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		u.x.SetRow(i, t.x.RawRowView(r))
		u.task = append(u.task, t.task[r])
		u.y = append(u.y, math.NaN())
	}
	return u
}

func mtregConstraints(tasks []ssmtr.Task, rowMap [][2]int, pairs, quads string) error {
	for _, spec := range []struct {
		path string
		n    int
	}{{pairs, 3}, {quads, 4}} {
		if spec.path == "" {
			continue
		}
		f, err := os.Open(spec.path)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		line := 0
		for sc.Scan() {
			line++
			txt := strings.TrimSpace(sc.Text())
			if txt == "" || strings.HasPrefix(txt, "#") {
				continue
			}
			fields := strings.Split(txt, ",")
			if len(fields) != spec.n {
				f.Close()
				return fmt.Errorf("%s:%d: want %d fields, got %d", spec.path, line, spec.n, len(fields))
			}
			var v []float64
			for _, s := range fields {
				x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					f.Close()
					return fmt.Errorf("%s:%d: %v", spec.path, line, err)
				}
				v = append(v, x)
			}
			nrow := spec.n
			if spec.n == 3 {
				nrow = 2
			}
			task, idx := -1, make([]int, nrow)
			for i := 0; i < nrow; i++ {
				r := int(v[i]) - 1
				if float64(r+1) != v[i] || r < 0 || r >= len(rowMap) {
					f.Close()
					return fmt.Errorf("%s:%d: row %v is not a data row of TRAIN (1..%d)", spec.path, line, v[i], len(rowMap))
				}
				if task >= 0 && rowMap[r][0] != task {
					f.Close()
					return fmt.Errorf("%s:%d: rows belong to different tasks", spec.path, line)
				}
				task, idx[i] = rowMap[r][0], rowMap[r][1]
			}
			if spec.n == 3 {
				tasks[task].Pairs = append(tasks[task].Pairs, ssmtr.Pair{U: idx[0], V: idx[1], D: v[2]})
			} else {
				tasks[task].Quads = append(tasks[task].Quads, ssmtr.Quad{U: idx[0], V: idx[1], W: idx[2], Z: idx[3]})
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// mtregPredictions are per-row predictions in input order.
type mtregPredictions struct {
	task, mean, vari, y []float64
	// prior is each row's task's prior mean in target units (TaskModel.Mean): the
	// prediction of a model that learnt nothing from the inputs.
	prior []float64
}

func mtregPredict(m *ssmtr.Model, te *mtregData, ids []float64) (mtregPredictions, error) {
	var p mtregPredictions
	if te.x == nil {
		return p, nil
	}
	index := map[float64]int{}
	for i, v := range ids {
		index[v] = i
	}
	n, d := te.x.Dims()
	p.task, p.mean, p.vari, p.y = te.task, make([]float64, n), make([]float64, n), te.y
	p.prior = make([]float64, n)
	byTask := map[int][]int{}
	for r, v := range te.task {
		k, ok := index[v]
		if !ok {
			return p, fmt.Errorf("test row %d: task %v does not occur in the training file", r+1, v)
		}
		byTask[k] = append(byTask[k], r)
	}
	for k, rows := range byTask {
		x := mat.NewDense(len(rows), d, nil)
		for i, r := range rows {
			x.SetRow(i, te.x.RawRowView(r))
		}
		mu, va := make([]float64, len(rows)), make([]float64, len(rows))
		if err := m.Predict(k, x, mu, va); err != nil {
			return p, err
		}
		for i, r := range rows {
			p.mean[r], p.vari[r], p.prior[r] = mu[i], va[i], m.Tasks[k].Mean
		}
	}
	return p, nil
}

// errors returns the MSE over labelled rows, the per-task nMSE averaged over tasks, and
// that nMSE for the prior mean (every row predicted by its task's prior mean).
func (p mtregPredictions) errors() (mse string, nmse, priorNMSE float64, ok bool) {
	type rows struct{ pred, prior, truth []float64 }
	byTask := map[float64]*rows{}
	var order []float64
	mse, n := meanSquaredError(p.mean, p.y)
	if n == 0 {
		return "", 0, 0, false
	}
	for r, y := range p.y {
		if math.IsNaN(y) {
			continue
		}
		e := byTask[p.task[r]]
		if e == nil {
			e = &rows{}
			byTask[p.task[r]] = e
			order = append(order, p.task[r])
		}
		e.pred, e.prior, e.truth = append(e.pred, p.mean[r]), append(e.prior, p.prior[r]), append(e.truth, y)
	}
	var preds, priors, truth [][]float64
	for _, t := range order {
		e := byTask[t]
		preds, priors, truth = append(preds, e.pred), append(priors, e.prior), append(truth, e.truth)
	}
	nmse, _, _ = ssmtr.NMSE(preds, truth)
	priorNMSE, _, _ = ssmtr.NMSE(priors, truth)
	return mse, nmse, priorNMSE, true
}

func (p mtregPredictions) write(path string, stdout io.Writer) error {
	var w bytes.Buffer
	for r := range p.mean {
		fmt.Fprintf(&w, "%s,%.10g,%.10g\n", strconv.FormatFloat(p.task[r], 'g', -1, 64), p.mean[r], p.vari[r])
	}
	return writeOutput(path, w.Bytes(), stdout)
}

// mtregAlphas summarises the tasks' learnt graph weights α_i: the value when there is one
// task, the geometric mean and range otherwise.
func mtregAlphas(m *ssmtr.Model) string {
	if len(m.Tasks) == 1 {
		return fmt.Sprintf("%.4g", m.Tasks[0].Alpha)
	}
	lo, hi, s := math.Inf(1), math.Inf(-1), 0.0
	for _, t := range m.Tasks {
		lo, hi = math.Min(lo, t.Alpha), math.Max(hi, t.Alpha)
		s += math.Log(t.Alpha)
	}
	return fmt.Sprintf("geometric mean %.4g over %d tasks (%.4g to %.4g)", math.Exp(s/float64(len(m.Tasks))), len(m.Tasks), lo, hi)
}
