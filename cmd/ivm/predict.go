package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
)

func cmdPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "ivm predict [flags] TEST MODEL [OUTPUT]", stderr)
	var df dataFlags
	df.register(fs)
	prob := fs.Bool("prob", false, "write each class's probability and the latent mean and variance to OUTPUT (regression: predictive mean and variance)")
	quiet := fs.Bool("quiet", false, "do not print the accuracy or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		fs.Usage()
		return errUsage
	}
	testPath, modelPath := fs.Arg(0), fs.Arg(1)
	opt, err := df.options()
	if err != nil {
		return err
	}
	if tm, tmeta, ok, err := readTaskModelFile(modelPath); err != nil {
		return err
	} else if ok {
		opt.Dim, opt.IgnoreExtra = taskModelDim(tm), true
		data, err := dataset.ReadFile(testPath, opt)
		if err != nil {
			return err
		}
		out := ""
		if fs.NArg() == 3 {
			out = fs.Arg(2)
		}
		return predictTasks(data, tm, tmeta, out, *prob, *quiet, stdout)
	}
	p, err := readModelFile(modelPath)
	if err != nil {
		return err
	}
	opt.Dim = p.InputDim()
	opt.IgnoreExtra = true // as svm-predict: features the model never saw are dropped
	data, err := dataset.ReadFile(testPath, opt)
	if err != nil {
		return err
	}
	if _, dim := data.X.Dims(); dim != p.InputDim() {
		return fmt.Errorf("%s: %d input columns, the model %s has %d", testPath, dim, modelPath, p.InputDim())
	}
	preds, err := p.Predict(data.X)
	if err != nil {
		return fmt.Errorf("%s: %w", testPath, err)
	}
	if fs.NArg() == 3 {
		if err := writePredictions(fs.Arg(2), p, preds, *prob); err != nil {
			return err
		}
	}
	if !*quiet {
		printMetrics(stdout, p.Task == ivm.Regression, preds, data.Y)
	}
	return nil
}

func readModelFile(path string) (*ivm.Predictor, error) { return readFileWith(path, ivm.Load) }

// printMetrics prints svm-predict's summary: accuracy for classification, mean squared error
// and squared correlation for regression, over the rows that have a target.
func printMetrics(w io.Writer, regression bool, preds []ivm.Prediction, y []float64) {
	if regression {
		var n, se, sp, st, spp, stt, spt float64
		for i, p := range preds {
			if math.IsNaN(y[i]) {
				continue
			}
			e := p.Label - y[i]
			n++
			se += e * e
			sp += p.Label
			st += y[i]
			spp += p.Label * p.Label
			stt += y[i] * y[i]
			spt += p.Label * y[i]
		}
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "Mean squared error = %.6g (regression)\n", se/n)
		num := n*spt - sp*st
		fmt.Fprintf(w, "Squared correlation coefficient = %.6g (regression)\n", num*num/((n*spp-sp*sp)*(n*stt-st*st)))
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
		fmt.Fprintf(w, "Accuracy = %.6g%% (%d/%d) (classification)\n", 100*float64(correct)/float64(total), correct, total)
	}
}

// writePredictions writes one line per test row: the predicted label (regression: the
// predictive mean). With prob a header line comes first and each row holds the label, the
// probability of every class (in the header's order), and the latent mean and variance
// of each model (multi-class: one pair per class's one-vs-rest model); regression writes
// the predictive mean and variance. The file is written atomically.
func writePredictions(path string, p *ivm.Predictor, preds []ivm.Prediction, prob bool) error {
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
			if len(p.Models) == 1 {
				b.WriteString(" latent_mean latent_variance")
			} else {
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
			b.WriteString(g(q.Mean[0]) + " " + g(q.Var[0]))
		default:
			b.WriteString(g(q.Label))
			for _, v := range q.Prob {
				b.WriteString(" " + g(v))
			}
			for c := range q.Mean {
				b.WriteString(" " + g(q.Mean[c]) + " " + g(q.Var[c]))
			}
		}
		b.WriteByte('\n')
	}
	return writeFileAtomic(path, []byte(b.String()))
}

// writeFileAtomic writes data to a temporary file beside path and renames it into place.
func writeFileAtomic(path string, data []byte) error {
	out, err := newAtomicFile(path)
	if err != nil {
		return err
	}
	defer out.discard()
	if _, err := out.f.Write(data); err != nil {
		return err
	}
	return out.commit()
}
