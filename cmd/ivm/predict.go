package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/noise"
)

func cmdPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "ivm predict [flags] TEST MODEL [OUTPUT]", stderr)
	var df dataFlags
	df.register(fs)
	prob := fs.Bool("prob", false,
		"write each class's probability and the latent mean and variance to OUTPUT (regression: "+
			"predictive mean and variance)")
	quiet := fs.Bool("quiet", false, "do not print the accuracy or error")
	labels := fs.Bool("labels", false,
		"labels from the latent means alone, without variances or probabilities (as svm-predict "+
			"without -b):\n"+
			"on large models several times faster; binary and regression labels are the same, "+
			"one-vs-rest takes the class of the largest\n"+
			"latent mean and one-vs-one the pairs' votes, which can differ on near ties "+
			"(ivm.Predictor.PredictLabels)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *labels && *prob {
		return errors.New("-labels writes labels alone and -prob the probabilities: " +
			"give one of them")
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		fs.Usage()
		return errUsage
	}
	testPath, modelPath := fs.Arg(0), fs.Arg(1)
	outPath := ""
	if fs.NArg() == 3 {
		outPath = fs.Arg(2)
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	if err := checkOutputs([]string{testPath, modelPath}, outPath); err != nil {
		return err
	}
	report := stdout // the accuracy line; on stderr when the predictions go to stdout
	if outPath == stdoutPath {
		report = stderr
	}
	// a large model's file text and decoded numbers are garbage soon after loading
	df.maxMem.softLimit()
	mf, data, err := readModelAndRows(modelPath, testPath, opt, *df.maxMem, stderr)
	if err != nil {
		return err
	}
	if *labels && (mf.family != nil || mf.multi != nil) {
		return fmt.Errorf("%s: -labels is for single-task IVM models", modelPath)
	}
	if mf.family != nil {
		return mf.family.Predict(predictCall{
			TestPath: testPath, ModelPath: modelPath, OutPath: outPath, Read: opt,
			Prob: *prob, Quiet: *quiet, Report: report, Stdout: stdout, Stderr: stderr})
	}
	if mf.multi != nil {
		return predictTaskFile(testPath, modelPath, outPath, opt, mf.multi, *prob, *quiet, report,
			stdout, stderr)
	}
	p := mf.single
	for c, sm := range p.Submodels() {
		if m := sm.Model; m.Jitter != 0 {
			fmt.Fprintf(stderr,
				"ivm predict: warning: model %d of %s needed jitter %g to factorise its "+
					"active-set matrix; predictions may be inaccurate\n", c+1, modelPath, m.Jitter)
		}
	}
	if p.Task != ivm.Regression {
		warnUnknownLabels(stderr, testPath, data.Y, p.Classes)
	}
	predict := p.Predict
	if *labels {
		predict = p.PredictLabels
	}
	preds, err := predict(data.X)
	if err != nil {
		return fmt.Errorf("%s: %w", testPath, err)
	}
	if outPath != "" {
		if err := writePredictions(outPath, p, preds, *prob, stdout); err != nil {
			return err
		}
	}
	if !*quiet {
		printMetrics(report, p.Task == ivm.Regression, preds, data.Y)
	}
	return nil
}

// readTest reads the rows to predict for a model of dim inputs with the data flags'
// options opt. As svm-predict, it drops the features of a libsvm file the model never saw,
// but says so on stderr.
func readTest(path string, opt dataset.ReadOptions, dim int, stderr io.Writer) (*dataset.Data,
	error) {
	opt.Dim, opt.IgnoreExtra = dim, true
	data, err := readInput(path, opt, false)
	if err != nil {
		return nil, err
	}
	warnDropped(stderr, path, data, dim)
	return data, nil
}

// warnDropped says on stderr that a libsvm test file's features beyond the model's inputs
// were dropped (svm-predict drops them silently; a mixed-up file should not pass unseen).
func warnDropped(stderr io.Writer, path string, data *dataset.Data, dim int) {
	if data.MaxIndex > dim {
		fmt.Fprintf(stderr,
			"ivm predict: warning: %s has features up to index %d, the model takes %d inputs: "+
				"%d dropped, as svm-predict does\n",
			path, data.MaxIndex, dim, data.MaxIndex-dim)
	}
}

// warnUnknownLabels says on stderr when test labels are not among the model's classes:
// none of them (a test file of another problem), or some.
func warnUnknownLabels(stderr io.Writer, path string, y, classes []float64) {
	known := map[float64]bool{}
	for _, c := range classes {
		known[c] = true
	}
	labelled, unknown := 0, map[float64]int{}
	for _, v := range y {
		if math.IsNaN(v) {
			continue
		}
		labelled++
		if !known[v] {
			unknown[v]++
		}
	}
	n := 0
	for _, k := range unknown {
		n += k
	}
	switch {
	case n == 0:
	case n == labelled:
		fmt.Fprintf(stderr,
			"ivm predict: warning: no label of %s is one of the model's classes (%s): "+
				"is it the right test file?\n", path, floats(classes))
	default:
		fmt.Fprintf(stderr,
			"ivm predict: warning: %d of the %d labelled rows of %s have a label that is not "+
				"one of the model's classes (%s)\n", n, labelled, path, floats(classes))
	}
}

// printMetrics prints svm-predict's summary: accuracy for classification, mean squared error
// and squared correlation for regression, over the rows that have a target.
func printMetrics(w io.Writer, regression bool, preds []noise.Prediction, y []float64) {
	if regression {
		labels := make([]float64, len(preds))
		for i, p := range preds {
			labels[i] = p.Label
		}
		mse, n := meanSquaredError(labels, y)
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "Mean squared error = %s (regression)\n", mse)
		fmt.Fprintf(w, "Squared correlation coefficient = %.6g (regression)\n",
			squaredCorrelation(labels, y))
		return
	}
	correct, total := 0, 0
	for i, p := range preds {
		if math.IsNaN(y[i]) {
			continue
		}
		total++
		if p.Label == y[i] {
			correct++
		}
	}
	if total > 0 {
		fmt.Fprintf(w, "Accuracy = %.6g%% (%d/%d) (classification)\n",
			100*float64(correct)/float64(total), correct, total)
	}
}

// writePredictions writes one line per test row: the predicted label (regression: the
// predictive mean). With prob a header line comes first and each row holds the label, the
// probability of every class (in the header's order), and the latent mean and variance
// of each model (multi-class: one pair per class's one-vs-rest model, or per one-vs-one pair
// of classes a,b, positive for b, a blended pair's probit model's; a blended binary model:
// each member's); regression writes
// the predictive mean and variance. The file is written atomically.
func writePredictions(path string, p *ivm.Predictor, preds []noise.Prediction, prob bool,
	stdout io.Writer) error {
	var b strings.Builder
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if prob {
		if p.Task == ivm.Regression {
			b.WriteString("mean variance\n")
		} else {
			b.WriteString("label")
			for _, c := range p.Classes {
				fmt.Fprintf(&b, " p(%s)", g(c))
			}
			switch k := p.Kind.(type) {
			case *ivm.OneVsOneKind:
				for _, pp := range k.Pairs {
					ab := g(pp.Classes[0]) + "," + g(pp.Classes[1])
					fmt.Fprintf(&b, " latent_mean(%s) latent_variance(%s)", ab, ab)
				}
			case *ivm.BlendKind:
				for _, sm := range p.Submodels() {
					fmt.Fprintf(&b, " latent_mean(%s) latent_variance(%s)", sm.Name, sm.Name)
				}
			case *ivm.ProjectedKind:
				for _, c := range p.Classes {
					fmt.Fprintf(&b, " latent(%s)", g(c))
				}
			case *ivm.SingleKind:
				b.WriteString(" latent_mean latent_variance")
			default:
				for _, c := range p.Classes {
					fmt.Fprintf(&b, " latent_mean(%s) latent_variance(%s)", g(c), g(c))
				}
			}
			b.WriteByte('\n')
		}
	}
	for _, q := range preds {
		switch {
		case !prob:
			b.WriteString(g(q.Label))
		case p.Task == ivm.Regression:
			b.WriteString(g(q.Mean) + " " + g(q.Var))
		default:
			b.WriteString(g(q.Label))
			for _, v := range q.Prob {
				b.WriteString(" " + g(v))
			}
			for c := range q.Latent {
				b.WriteString(" " + g(q.Latent[c]))
				if q.LatentVar != nil { // a projected model's latents have none
					b.WriteString(" " + g(q.LatentVar[c]))
				}
			}
		}
		b.WriteByte('\n')
	}
	return writeOutput(path, []byte(b.String()), stdout)
}
