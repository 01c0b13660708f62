package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/ssmtr"
)

func init() {
	register("mtreg", command{Synopsis: "ivm mtreg [flags] TRAIN [TEST]",
		Short: "semi-supervised multi-task GP regression (SMTR/SSMTR), train and test in one call",
		Order: 60, Run: cmdMtreg})
}

const mtregHelp = `A shorthand for "ivm train -method METHOD TRAIN MODEL" followed by ` +
	`"ivm predict TEST
MODEL": the same fit and the same predictions, without a model file. Fits one GP per task
with the tasks' kernel parameters under a common prior (Zhang & Yeung, "Semi-supervised
multi-task regression"): sstr (independent GPs), smtr, ssmtr (adds the unlabelled rows
through a kNN-graph kernel) or ssmtrpi (adds pairwise constraints).

TRAIN is CSV or libsvm (the shared data flags) with a task column (-task-col first, last or
a 1-based number; default first) and a target column (-label-col, default last); the other
columns are inputs. Rows whose target is "?" or empty are unlabelled. Every task needs at
least one labelled row. TEST has the same columns; its tasks must occur in TRAIN. With
targets in TEST the command prints the MSE and the nMSE (MSE / variance of the targets, per
task, averaged over tasks), and for reference the nMSE of predicting each task's labelled
mean (the models' prior mean: what a fit that learnt nothing from the inputs scores). -out
writes one line per TEST row (or, without TEST, per unlabelled TRAIN row): task, predictive
mean, predictive variance.

-pairs FILE gives constraints y_u − y_v ≥ d as CSV lines "u,v,d", u and v 1-based data row
numbers of TRAIN (header not counted) of the same task; quadruple constraints
y_u − y_v ≥ y_w − y_z as lines "u,v,w,z" with -quads FILE. They are used by ssmtrpi.

Inputs are standardised with the training rows' statistics unless -scale none.
`

func cmdMtreg(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mtreg", "ivm mtreg [flags] TRAIN [TEST]\n\n"+mtregHelp, stderr)
	f := registerSSMTRFlags(fs, "ssmtr")
	fs.Lookup("task-col").DefValue = "first"
	fs.Set("task-col", "first")
	out := fs.String("out", "", "write predictions here")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return errUsage
	}
	if err := checkOutputs([]string{fs.Arg(0), fs.Arg(1), *f.pairs, *f.quads}, *out); err != nil {
		return err
	}
	predOut := stdout
	if *out == stdoutPath {
		stdout = stderr // the predictions go to standard output, the summary beside them
	}
	m, tr, err := fitSSMTR(fs.Arg(0), f, stderr)
	if err != nil {
		return err
	}
	warnSSMTRCondition(stderr, m)
	writeSSMTRSummary(stdout, m, tr)
	te := unlabelledRows(tr)
	if fs.NArg() == 2 {
		opt, err := f.df.options()
		if err != nil {
			return err
		}
		if te, err = readTest(fs.Arg(1), opt, m.Dim, stderr); err != nil {
			return err
		}
	}
	var preds []noise.Prediction
	if te.X != nil {
		if preds, err = predictSSMTR(m, te); err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(fs.NArg()-1), err)
		}
	}
	if fs.NArg() == 2 {
		printSSMTRMetrics(stdout, te, preds, priorMeans(m, te))
	}
	if *out != "" {
		return writeMtregPredictions(*out, predOut, ssmtrTasks(te), preds)
	}
	return nil
}

// unlabelledRows returns the rows of data without a target.
func unlabelledRows(data *dataset.Data) *dataset.Data {
	var rows []int
	for r, v := range data.Y {
		if math.IsNaN(v) {
			rows = append(rows, r)
		}
	}
	u := &dataset.Data{Y: make([]float64, len(rows))}
	if len(rows) > 0 {
		u.X = dataset.RowsOf(data.X, rows)
	}
	for i, r := range rows {
		u.Y[i] = math.NaN()
		if data.Task != nil {
			u.Task = append(u.Task, data.Task[r])
		}
	}
	return u
}

// priorMeans returns each row's task's prior mean in target units (TaskModel.Mean): the
// prediction of a model that learnt nothing from the inputs.
func priorMeans(m *ssmtr.Model, data *dataset.Data) []float64 {
	index := map[string]int{}
	for k, name := range m.Names {
		index[name] = k
	}
	task := ssmtrTasks(data)
	out := make([]float64, len(task))
	for r, name := range task {
		if k, ok := index[name]; ok {
			out[r] = m.Tasks[k].Mean
		} else if len(m.Tasks) == 1 {
			out[r] = m.Tasks[0].Mean
		}
	}
	return out
}

// writeMtregPredictions writes one line "task,mean,variance" per row.
func writeMtregPredictions(path string, stdout io.Writer, task []string,
	preds []noise.Prediction) error {
	var w bytes.Buffer
	for r, p := range preds {
		fmt.Fprintf(&w, "%s,%s,%s\n", task[r], strconv.FormatFloat(p.Mean, 'g', 10, 64),
			strconv.FormatFloat(p.Var, 'g', 10, 64))
	}
	return writeOutput(path, w.Bytes(), stdout)
}
