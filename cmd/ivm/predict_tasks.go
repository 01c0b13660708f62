package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
)

// predictTaskFile applies a multi-task model to the rows of testPath for ivm predict (opt
// holds the data flags' reading options).
func predictTaskFile(testPath, modelPath, outPath string, opt dataset.ReadOptions,
	m *multitask.Model, prob, quiet bool, report, stdout, stderr io.Writer) error {
	data, err := readTest(testPath, opt, m.Dim(), stderr)
	if errors.Is(err, dataset.ErrDim) && opt.TaskCol == dataset.TaskNone {
		return fmt.Errorf("%w (%s is a multi-task model: name the task column with -task-col)", err,
			modelPath)
	}
	if err != nil {
		return err
	}
	if classes := m.Classes(); classes != nil {
		warnUnknownLabels(stderr, testPath, data.Y, classes)
	}
	if err := predictTasks(data, m, outPath, prob, quiet, report, stdout); err != nil {
		return fmt.Errorf("%s: %w", testPath, err)
	}
	return nil
}

// predictTasks predicts every row of data (data.Task must name a task of the model) with
// its task's model, writes the predictions to outPath when it is not "" (the format of
// `ivm predict`: the label, or with prob the label, p(y=+1) or the categories'
// probabilities, the latent mean and variance; regression: the mean, or mean and variance)
// and, unless quiet, prints the accuracy or mean squared error.
//
// The metrics go to report, a "-" OUTPUT to stdout.
func predictTasks(data *dataset.Data, m *multitask.Model, outPath string, prob, quiet bool, report,
	stdout io.Writer) error {
	if data.Task == nil {
		return errors.New("a multi-task model needs the task of every test row " +
			"(-task-col for CSV, task:NAME tokens for libsvm)")
	}
	preds, mu, vs, err := m.PredictLatent(data.X, data.Task)
	if err != nil {
		return err
	}
	classes := m.Classes()
	if outPath != "" {
		if err := writeTaskPredictions(outPath, classes, preds, mu, vs, prob, stdout); err != nil {
			return err
		}
	}
	if !quiet {
		mtPrintMetrics(report, classes == nil, preds, data.Y)
	}
	return nil
}

// writeTaskPredictions writes one line per test row, as `ivm predict` does; classes are the
// model's, in the training data's labels.
func writeTaskPredictions(path string, classes []float64, preds []noise.Prediction, mu,
	vs []float64, prob bool, stdout io.Writer) error {
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
				fmt.Fprintf(w, " p(%s)", g(c))
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

// mtPrintMetrics prints the metrics of ivm predict (printMetrics) over the rows with a
// target.
func mtPrintMetrics(w io.Writer, regression bool, preds []noise.Prediction, y []float64) {
	printMetrics(w, regression, preds, y)
}
