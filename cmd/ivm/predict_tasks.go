package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
)

// taskModelDim is the input dimension of a multi-task model (for dataset.ReadOptions.Dim).
func taskModelDim(m *multitask.Model) int {
	if m.InputDim > 0 {
		return m.InputDim
	}
	for _, t := range m.Tasks {
		if t.Model != nil {
			_, d := t.Model.X.Dims()
			return d
		}
	}
	if s, ok := m.Kernel.(interface{ Dim() int }); ok {
		return s.Dim()
	}
	return 0
}

// predictTasks predicts every row of data (data.Task must name a task of the model) with
// its task's model, writes the predictions to outPath when it is not "" (the format of
// `ivm predict`: the label, or with prob the label, p(y=+1) or the categories'
// probabilities, the latent mean and variance; regression: the mean, or mean and variance)
// and, unless quiet, prints the accuracy or mean squared error.
//
// The metrics go to report, a "-" OUTPUT to stdout.
func predictTasks(data *dataset.Data, m *multitask.Model, meta *multitask.ModelMeta, outPath string, prob, quiet bool, report, stdout io.Writer) error {
	if data.Task == nil {
		return errors.New("a multi-task model needs the task of every test row (-task-col for CSV, task:NAME tokens for libsvm)")
	}
	preds, mu, vs, err := predictTaskRows(m, meta, data.X, data.Task)
	if err != nil {
		return err
	}
	classes := m.Tasks[0].Noise.Classes()
	if outPath != "" {
		if err := writeTaskPredictions(outPath, classes, preds, mu, vs, meta.Labels, prob, stdout); err != nil {
			return err
		}
	}
	if !quiet {
		mtPrintMetrics(report, classes == nil, preds, data.Y)
	}
	return nil
}

// predictTaskRows predicts row i of x with the model of task tasks[i]: the noise model's
// prediction, its label in the training file's labels, and the latent mean and variance.
func predictTaskRows(m *multitask.Model, meta *multitask.ModelMeta, x *mat.Dense, tasks []string) (preds []noise.Prediction, mu, vs []float64, err error) {
	n, _ := x.Dims()
	byTask := map[int][]int{}
	for i, name := range tasks {
		ti := m.TaskIndex(name)
		if ti < 0 {
			return nil, nil, nil, fmt.Errorf("row %d: task %q is not in the model", i+1, name)
		}
		byTask[ti] = append(byTask[ti], i)
	}
	preds = make([]noise.Prediction, n)
	mu, vs = make([]float64, n), make([]float64, n)
	for ti, rows := range byTask {
		tm, tv, err := m.Latent(ti, denseRowsOf(x, rows))
		if err != nil {
			return nil, nil, nil, err
		}
		for k, i := range rows {
			mu[i], vs[i] = tm[k], tv[k]
			m.Tasks[ti].Noise.Predict(&preds[i], tm[k], tv[k])
			preds[i].Label = mtDecodeLabel(preds[i].Label, meta.Labels)
		}
	}
	return preds, mu, vs, nil
}

func rowsOf(data *dataset.Data, rows []int) *mat.Dense { return denseRowsOf(data.X, rows) }

func denseRowsOf(src *mat.Dense, rows []int) *mat.Dense {
	_, dim := src.Dims()
	x := mat.NewDense(len(rows), dim, nil)
	for k, i := range rows {
		x.SetRow(k, src.RawRowView(i))
	}
	return x
}

// writeTaskPredictions writes one line per test row, as `ivm predict` does.
func writeTaskPredictions(path string, classes []float64, preds []noise.Prediction, mu, vs, labels []float64, prob bool, stdout io.Writer) error {
	w := new(bytes.Buffer)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if prob {
		if classes == nil {
			fmt.Fprintln(w, "mean variance")
		} else {
			if len(classes) == 2 {
				classes = classes[1:]
			}
			fmt.Fprint(w, "label")
			for _, c := range classes {
				fmt.Fprintf(w, " p(%s)", g(mtDecodeLabel(c, labels)))
			}
			fmt.Fprintln(w, " latent_mean latent_variance")
		}
	}
	for i, p := range preds {
		switch {
		case !prob:
			fmt.Fprintln(w, g(p.Label))
		case classes == nil:
			fmt.Fprintln(w, g(p.Mean), g(p.Var))
		default:
			fmt.Fprint(w, g(p.Label))
			for _, q := range p.Prob[len(p.Prob)-len(classes):] {
				fmt.Fprint(w, " ", g(q))
			}
			fmt.Fprintln(w, " "+g(mu[i]), g(vs[i]))
		}
	}
	return writeOutput(path, w.Bytes(), stdout)
}

// mtDecodeLabel maps a predicted ±1 back to the training file's labels.
func mtDecodeLabel(v float64, labels []float64) float64 {
	if len(labels) != 2 {
		return v
	}
	if v > 0 {
		return labels[1]
	}
	return labels[0]
}

// mtPrintMetrics prints svm-predict's summary over the rows with a target: the accuracy for
// classification, the mean squared error for regression.
func mtPrintMetrics(w io.Writer, regression bool, preds []noise.Prediction, y []float64) {
	if regression {
		means := make([]float64, len(preds))
		for i, p := range preds {
			means[i] = p.Mean
		}
		if mse, n := meanSquaredError(means, y); n > 0 {
			fmt.Fprintf(w, "Mean squared error = %s (regression)\n", mse)
		}
		return
	}
	var n float64
	correct := 0
	for i, p := range preds {
		if math.IsNaN(y[i]) {
			continue
		}
		n++
		if p.Label == y[i] {
			correct++
		}
	}
	switch {
	case n == 0:
	default:
		fmt.Fprintf(w, "Accuracy = %.6g%% (%d/%d) (classification)\n", 100*float64(correct)/n, correct, int(n))
	}
}
