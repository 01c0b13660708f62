package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
	ivmplot "github.com/ivmlab/ivm/plot"
	"github.com/ivmlab/ivm/ssmtr"
)

// The SSTR/SMTR/SSMTR/SSMTRPI family (Zhang & Yeung): "ivm train -method ssmtr" and the
// others write an ivm-ssmtr/1 model file that predict, info and plot read; "ivm mtreg"
// (mtreg.go) is train then predict in one call, through the same functions.
func init() {
	registerFamily(modelFamily{Methods: []string{"sstr", "smtr", "ssmtr", "ssmtrpi"},
		Train: trainSSMTR, Open: openSSMTR})
}

const ssmtrTrainHelp = `Fits one GP per task with the tasks' kernel parameters under a common ` +
	`prior (Zhang &
Yeung, "Semi-supervised multi-task regression"): sstr (independent GPs), smtr, ssmtr (adds
the unlabelled rows through a kNN-graph kernel) or ssmtrpi (adds pairwise constraints).

TRAIN is CSV or libsvm (the shared data flags); -task-col names the task column of a CSV
file (libsvm rows give task:NAME tokens); without one all rows are one task. Rows whose
target is "?" or empty are unlabelled; every task needs a labelled row. MODEL (ivm-ssmtr/1)
keeps what predicting new rows needs: "ivm predict -task-col ... TEST MODEL [OUTPUT]".

-pairs FILE gives constraints y_u − y_v ≥ d as CSV lines "u,v,d", u and v 1-based data row
numbers of TRAIN (header not counted) of the same task; quadruple constraints
y_u − y_v ≥ y_w − y_z as lines "u,v,w,z" with -quads FILE. They are used by ssmtrpi.
`

// ssmtrFlags are the flags of train -method ssmtr and of mtreg.
type ssmtrFlags struct {
	df                             dataFlags
	method, kernel, lap, targets   *string
	scale, optimizer, pairs, quads *string
	k, outer, inner, workers       *int
	alphaPrior, quiet              *bool
}

func registerSSMTRFlags(fs *flag.FlagSet, method string) *ssmtrFlags {
	f := &ssmtrFlags{}
	f.df.register(fs)
	f.method = fs.String("method", method, "sstr, smtr, ssmtr or ssmtrpi")
	f.kernel = fs.String("kernel", "",
		`kernel spec without white noise (default: rbf, width from the median distance); `+
			`e.g. "lin+rbf"`)
	f.k = fs.Int("k", ssmtr.DefaultNeighbours, "neighbours of the graph (ssmtr, ssmtrpi)")
	f.lap = fs.String("laplacian", "normalized", "graph Laplacian: normalized or unnormalized")
	f.alphaPrior = fs.Bool("alpha-prior", false,
		"put the graph weights α_i under the tasks' common prior "+
			"(default: free per task, as the paper)")
	f.targets = fs.String("targets", "per-task", "target standardisation: per-task, pooled or none")
	f.scale = fs.String("scale", "std",
		"input scaling, stored in the model: std (zero mean, unit variance; zscore is a synonym), "+
			"minmax, none or auto (std)")
	f.optimizer = fs.String("optimizer", "scg", "optimiser of the hyperparameters: scg or lbfgs")
	f.pairs = fs.String("pairs", "", "CSV of pairwise constraints u,v,d (1-based TRAIN rows)")
	f.quads = fs.String("quads", "", "CSV of quadruple constraints u,v,w,z (1-based TRAIN rows)")
	f.outer = fs.Int("iters", 10, "alternations between gradient steps and the prior update")
	f.inner = fs.Int("kiters", 100, "optimiser iterations per alternation")
	f.workers = fs.Int("workers", 0, "goroutines (0: all cores)")
	f.quiet = fs.Bool("quiet", false, "no progress on stderr (train: no summary either)")
	return f
}

// config checks the flags and returns the fit's configuration (without constraints).
func (f *ssmtrFlags) config(stderr io.Writer) (ssmtr.Config, error) {
	var cfg ssmtr.Config
	var err error
	if cfg.Method, err = ssmtr.ParseMethod(*f.method); err != nil {
		return cfg, err
	}
	if err := checkWorkers(*f.workers); err != nil {
		return cfg, err
	}
	if *f.outer < 0 || *f.inner < 0 || *f.k < 0 {
		return cfg, fmt.Errorf("-iters %d, -kiters %d, -k %d: want 0 (the default) or more",
			*f.outer, *f.inner, *f.k)
	}
	if err := checkIters("-iters", *f.outer); err != nil {
		return cfg, err
	}
	if err := checkIters("-kiters", *f.inner); err != nil {
		return cfg, err
	}
	scale := *f.scale
	if scale == "zscore" {
		scale = "std"
	}
	if cfg.Scaling, err = dataset.ParseScaling(scale); err != nil {
		return cfg, fmt.Errorf("unknown -scale %q (want std, minmax, none or auto)", *f.scale)
	}
	if cfg.Graph.Laplacian, err = ssmtr.ParseLaplacian(*f.lap); err != nil {
		return cfg, err
	}
	if cfg.Targets, err = ssmtr.ParseTargetScaling(*f.targets); err != nil {
		return cfg, err
	}
	if cfg.Optimizer, err = ssmtr.ParseOptimizer(*f.optimizer); err != nil {
		return cfg, err
	}
	cfg.Kernel, cfg.Graph.K, cfg.AlphaPrior = *f.kernel, *f.k, *f.alphaPrior
	cfg.OuterIters, cfg.InnerIters, cfg.Workers = *f.outer, *f.inner, *f.workers
	if !*f.quiet {
		cfg.Progress = func(p ssmtr.Progress) { fmt.Fprintln(stderr, p) }
	}
	return cfg, nil
}

// ssmtrTasks returns the task of every row: data.Task, or one task "" for a file without
// a task column.
func ssmtrTasks(data *dataset.Data) []string {
	if data.Task != nil {
		return data.Task
	}
	n, _ := data.X.Dims()
	return make([]string, n)
}

// fitSSMTR reads TRAIN and fits the model the flags describe: the one fit of train
// -method ssmtr and of mtreg.
func fitSSMTR(trainPath string, f *ssmtrFlags, stderr io.Writer) (*ssmtr.Model, *dataset.Data,
	error) {
	cfg, err := f.config(stderr)
	if err != nil {
		return nil, nil, err
	}
	opt, err := f.df.options()
	if err != nil {
		return nil, nil, err
	}
	data, err := readTraining(trainPath, opt, "", stderr)
	if err != nil {
		return nil, nil, err
	}
	task := ssmtrTasks(data)
	need, tasks := ssmtrBytes(data, task, cfg.Method)
	if err := f.df.maxMem.check(need, fmt.Sprintf("fitting %d tasks", tasks)); err != nil {
		return nil, nil, err
	}
	if cfg.Pairs, err = readConstraints[ssmtr.Pair](*f.pairs, task,
		func(v []int, d float64) ssmtr.Pair {
			return ssmtr.Pair{U: v[0], V: v[1], D: d}
		}); err != nil {
		return nil, nil, err
	}
	if cfg.Quads, err = readConstraints[ssmtr.Quad](*f.quads, task,
		func(v []int, _ float64) ssmtr.Quad {
			return ssmtr.Quad{U: v[0], V: v[1], W: v[2], Z: v[3]}
		}); err != nil {
		return nil, nil, err
	}
	m, err := ssmtr.Fit(data.X, data.Y, task, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", trainPath, err)
	}
	return m, data, nil
}

// ssmtrBytes estimates what fitting allocates: each task's GP holds n×n matrices over its
// training rows (labelled, and with a graph unlabelled: kernel, graph, factors,
// gradients), and 160·n² bytes per task covers them with a margin (bench/RESULTS.md records
// the peak).
func ssmtrBytes(data *dataset.Data, task []string, method ssmtr.Method) (need float64, tasks int) {
	rows := map[string]float64{}
	for i, name := range task {
		if !math.IsNaN(data.Y[i]) || method == ssmtr.SSMTR || method == ssmtr.SSMTRPI {
			rows[name]++
		}
	}
	for _, n := range rows {
		need += 160 * n * n
	}
	return need, len(rows)
}

// readConstraints reads a CSV of constraints, each line 1-based data rows of TRAIN (whose
// rows have the tasks task), all of one task, and for pairs an offset d: "u,v,d" (pairs)
// or "u,v,w,z" (quadruples).
func readConstraints[C ssmtr.Pair | ssmtr.Quad](path string, task []string,
	mk func(rows []int, d float64) C) ([]C, error) {
	if path == "" {
		return nil, nil
	}
	var zero C
	fields, nrow := 3, 2
	if _, quad := any(zero).(ssmtr.Quad); quad {
		fields, nrow = 4, 4
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []C
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		txt := strings.TrimSpace(sc.Text())
		if txt == "" || strings.HasPrefix(txt, "#") {
			continue
		}
		parts := strings.Split(txt, ",")
		if len(parts) != fields {
			return nil, fmt.Errorf("%s:%d: want %d fields, got %d", path, line, fields, len(parts))
		}
		rows := make([]int, nrow)
		for i := range rows {
			r, err := strconv.Atoi(strings.TrimSpace(parts[i]))
			if err != nil || r < 1 || r > len(task) {
				return nil, fmt.Errorf("%s:%d: row %s is not a data row of TRAIN (1..%d)",
					path, line, strings.TrimSpace(parts[i]), len(task))
			}
			rows[i] = r - 1
			if task[rows[i]] != task[rows[0]] {
				return nil, fmt.Errorf("%s:%d: rows belong to different tasks (%q and %q)",
					path, line, task[rows[0]], task[rows[i]])
			}
		}
		var d float64
		if fields == 3 {
			if d, err = strconv.ParseFloat(strings.TrimSpace(parts[2]), 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
		}
		out = append(out, mk(rows, d))
	}
	return out, sc.Err()
}

func trainSSMTR(method string, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train", "ivm train -method sstr|smtr|ssmtr|ssmtrpi [flags] TRAIN MODEL\n\n"+
		ssmtrTrainHelp, stderr)
	f := registerSSMTRFlags(fs, method)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	trainPath, modelPath := fs.Arg(0), fs.Arg(1)
	run, err := startTraining([]string{trainPath, *f.pairs, *f.quads}, modelPath, args,
		stdout, stderr)
	if err != nil {
		return err
	}
	defer run.discard()
	m, data, err := fitSSMTR(trainPath, f, stderr)
	if err != nil {
		return err
	}
	// A model file must predict finite variances; mtreg, which only scores the fit, may go on.
	if err := checkTargetScale(trainPath, data.Y); err != nil {
		return err
	}
	n, dim := data.X.Dims()
	if err := run.save(m, &m.Training, n); err != nil {
		return err
	}
	warnSSMTRCondition(stderr, m)
	if !*f.quiet {
		writeSSMTRSummary(run.summary, m, data)
		fmt.Fprintf(run.summary, "%s: ", modelPath)
		run.printTrained(m.Training, dim)
	}
	return nil
}

// warnSSMTRCondition says which tasks' posterior solves gonum warned were ill-conditioned.
func warnSSMTRCondition(stderr io.Writer, m *ssmtr.Model) {
	for k, t := range m.Tasks {
		if t.Condition != 0 {
			fmt.Fprintf(stderr,
				"ivm: warning: task %q: the posterior's matrix has condition number %.3g; "+
					"predictions may be inaccurate\n", m.Names[k], t.Condition)
		}
	}
}

// writeSSMTRSummary describes a fitted model in a few lines.
func writeSSMTRSummary(w io.Writer, m *ssmtr.Model, data *dataset.Data) {
	labelled := 0
	for _, v := range data.Y {
		if !math.IsNaN(v) {
			labelled++
		}
	}
	fmt.Fprintf(w, "%v on %d tasks (%d labelled, %d unlabelled rows), kernel %s\n", m.Method,
		len(m.Tasks), labelled, len(data.Y)-labelled, m.Kernel)
	if m.Prior == nil {
		return
	}
	fmt.Fprintf(w, "prior mean %s: %.4g; noise σ = %.4g (standardised units)",
		strings.Join(m.Prior.Names, ", "), m.Prior.Mean, m.Prior.Sigma)
	if m.Method == ssmtr.SSMTRPI {
		fmt.Fprintf(w, ", ε = %.4g", m.Prior.Epsilon)
	}
	if m.Method == ssmtr.SSMTR || m.Method == ssmtr.SSMTRPI {
		fmt.Fprintf(w, "; graph weight α: %s", ssmtrAlphas(m))
	}
	fmt.Fprintln(w)
}

// ssmtrAlphas summarises the tasks' learnt graph weights α_i: the value when there is one
// task, the geometric mean and range otherwise.
func ssmtrAlphas(m *ssmtr.Model) string {
	if len(m.Tasks) == 1 {
		return fmt.Sprintf("%.4g", m.Tasks[0].Alpha)
	}
	lo, hi, s := math.Inf(1), math.Inf(-1), 0.0
	for _, t := range m.Tasks {
		lo, hi = math.Min(lo, t.Alpha), math.Max(hi, t.Alpha)
		s += math.Log(t.Alpha)
	}
	return fmt.Sprintf("geometric mean %.4g over %d tasks (%.4g to %.4g)",
		math.Exp(s/float64(len(m.Tasks))), len(m.Tasks), lo, hi)
}

// ssmtrFile is an ivm-ssmtr/1 model file read by predict, info or plot.
type ssmtrFile struct{ m *ssmtr.Model }

// openSSMTR opens an SSMTR model for predict, info and plot.
func openSSMTR(m family.Model) familyModel {
	if sm, ok := m.Unwrap().(*ssmtr.Model); ok {
		return ssmtrFile{sm}
	}
	return nil
}

// WriteInfo describes the model for ivm info.
func (f ssmtrFile) WriteInfo(w io.Writer, path string) {
	m := f.m
	fmt.Fprintf(w, "model file:  %s (%v, %s)\n", path, m.Method, ssmtr.ModelFormat)
	fmt.Fprintf(w, "kernel:      %s (per-task parameters), targets standardised %v\n", m.Kernel,
		m.Targets)
	fmt.Fprintf(w, "inputs:      %d", m.Dim)
	if m.Scaler != nil {
		fmt.Fprintf(w, ", scaled (%v) as at training", m.Scaling)
	} else {
		fmt.Fprint(w, ", not scaled")
	}
	fmt.Fprintln(w)
	if m.Method == ssmtr.SSMTR || m.Method == ssmtr.SSMTRPI {
		fmt.Fprintf(w, "graph:       %d nearest neighbours, %v Laplacian\n", m.Graph.K,
			m.Graph.Laplacian)
	}
	if p := m.Prior; p != nil {
		fmt.Fprintf(w, "prior:       mean %s = %.4g; σ = %.4g", strings.Join(p.Names, ", "),
			p.Mean, p.Sigma)
		if m.Method == ssmtr.SSMTRPI {
			fmt.Fprintf(w, ", ε = %.4g", p.Epsilon)
		}
		fmt.Fprintln(w)
	}
	for k, t := range m.Tasks {
		fmt.Fprintf(w, "task %-7s θ = %.4g, σ = %.4g", m.Names[k], t.Theta, t.Sigma)
		if m.Method == ssmtr.SSMTR || m.Method == ssmtr.SSMTRPI {
			fmt.Fprintf(w, ", α = %.4g", t.Alpha)
		}
		fmt.Fprintf(w, "; %d training rows, −ln p(y) = %.6g\n", t.Rows(), t.NegLogEvidence)
	}
	writeProvenance(w, m.Training)
}

// Predict serves ivm predict.
func (f ssmtrFile) Predict(c predictCall) error {
	data, err := readTest(c.TestPath, c.Read, f.m.Dim, c.Stderr)
	if err != nil {
		return err
	}
	warnSSMTRCondition(c.Stderr, f.m)
	preds, err := predictSSMTR(f.m, data)
	if err != nil {
		return fmt.Errorf("%s: %w", c.TestPath, err)
	}
	if c.OutPath != "" {
		if err := writeTaskPredictions(c.OutPath, nil, preds, nil, nil, c.Prob,
			c.Stdout); err != nil {
			return err
		}
	}
	if !c.Quiet {
		printSSMTRMetrics(c.Report, data, preds, nil)
	}
	return nil
}

// predictSSMTR predicts every row of data with its task's model: the one prediction path
// of ivm predict and ivm mtreg.
func predictSSMTR(m *ssmtr.Model, data *dataset.Data) ([]noise.Prediction, error) {
	task := data.Task
	if task == nil {
		if len(m.Names) != 1 {
			return nil,
				fmt.Errorf(
					"the model has %d tasks: name the task column of the test rows "+
						"(-task-col for CSV, task:NAME tokens for libsvm)", len(m.Names))
		}
		task = make([]string, len(data.Y))
		for i := range task {
			task[i] = m.Names[0]
		}
	}
	return m.Predict(data.X, task)
}

// printSSMTRMetrics prints the regression's mean squared error line and the nMSE (MSE over
// the variance of the targets, per task, averaged over the tasks) over the rows with a
// target; with prior (each row's task's prior mean), the nMSE of predicting by it too.
func printSSMTRMetrics(w io.Writer, data *dataset.Data, preds []noise.Prediction, prior []float64) {
	mtPrintMetrics(w, true, preds, data.Y)
	task := ssmtrTasks(data)
	index := map[string]int{}
	var pred, ref, truth [][]float64
	for r, y := range data.Y {
		if math.IsNaN(y) {
			continue
		}
		k, ok := index[task[r]]
		if !ok {
			k = len(truth)
			index[task[r]] = k
			pred, ref, truth = append(pred, nil), append(ref, nil), append(truth, nil)
		}
		pred[k], truth[k] = append(pred[k], preds[r].Mean), append(truth[k], y)
		if prior != nil {
			ref[k] = append(ref[k], prior[r])
		}
	}
	if len(truth) == 0 {
		return
	}
	nmse, _, _ := ssmtr.NMSE(pred, truth)
	fmt.Fprintf(w, "nMSE (per task, averaged) = %.6g\n", nmse)
	if prior != nil {
		v, _, _ := ssmtr.NMSE(ref, truth)
		fmt.Fprintf(w,
			"nMSE of the labelled mean "+
				"(each task's prior mean; a model that learnt nothing) = %.6g\n", v)
	}
}

// Plot draws a model of one input over its training data: per task its points and the
// predictive mean ± 2 sd (taskPanels, as for multi-task IVM models).
func (f ssmtrFile) Plot(c plotCall) (*ivmplot.Figure, error) {
	m := f.m
	if m.Dim != 1 {
		return nil, fmt.Errorf("%s has %d inputs; ivm plot draws SSMTR models of one input",
			c.ModelPath, m.Dim)
	}
	if c.DataPath == "" {
		return nil,
			errors.New("an SSMTR model is drawn over its data: give the DATA file " +
				"(with -task-col for CSV)")
	}
	data, err := readPlotData(c.DataPath, c.Data, 1)
	if err != nil {
		return nil, err
	}
	task := ssmtrTasks(data)
	tasks, err := taskPanels(data, task, m.Names, c.Grid,
		func(k int, gm *mat.Dense) ([]noise.Prediction, error) {
			n, _ := gm.Dims()
			names := make([]string, n)
			for i := range names {
				names[i] = m.Names[k]
			}
			return m.Predict(gm, names)
		})
	if err != nil {
		return nil, err
	}
	return ivmplot.MultiTask(tasks, c.Options)
}
