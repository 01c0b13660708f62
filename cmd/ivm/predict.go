package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/noise"
)

func cmdPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "ivm predict [flags] TEST MODEL [OUTPUT]", stderr)
	var df dataFlags
	df.register(fs)
	prob := fs.Bool("prob", false, "write probabilities and the latent mean and variance to OUTPUT")
	quiet := fs.Bool("quiet", false, "do not print the accuracy or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		fs.Usage()
		return errUsage
	}
	testPath, modelPath := fs.Arg(0), fs.Arg(1)
	model, meta, err := readModelFile(modelPath)
	if err != nil {
		return err
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	_, opt.Dim = model.XActive.Dims()
	opt.IgnoreExtra = true // as svm-predict: features the model never saw are dropped
	data, err := dataset.ReadFile(testPath, opt)
	if err != nil {
		return err
	}
	mu, vs := model.Latent(data.X, nil, nil)
	preds := make([]noise.Prediction, len(mu))
	for i := range preds {
		model.Noise.Predict(&preds[i], mu[i], vs[i])
		preds[i].Label = decodeLabel(preds[i].Label, meta.Labels)
	}
	if fs.NArg() == 3 {
		if err := writePredictions(fs.Arg(2), model, preds, mu, vs, meta.Labels, *prob); err != nil {
			return err
		}
	}
	if !*quiet {
		printMetrics(stdout, model.Noise.Classes() == nil, preds, data.Y)
	}
	return nil
}

func readModelFile(path string) (*ivm.Model, *ivm.ModelMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	m, meta, err := ivm.ReadModel(bufio.NewReader(f))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

// decodeLabel maps a predicted ±1 back to the training file's labels.
func decodeLabel(v float64, labels []float64) float64 {
	if len(labels) != 2 {
		return v
	}
	if v > 0 {
		return labels[1]
	}
	return labels[0]
}

// printMetrics prints svm-predict's summary: accuracy for classification, mean squared error
// and squared correlation for regression, over the rows that have a target.
func printMetrics(w io.Writer, regression bool, preds []noise.Prediction, y []float64) {
	if regression {
		var n, se, sp, st, spp, stt, spt float64
		for i, p := range preds {
			if math.IsNaN(y[i]) {
				continue
			}
			e := p.Mean - y[i]
			n++
			se += e * e
			sp += p.Mean
			st += y[i]
			spp += p.Mean * p.Mean
			stt += y[i] * y[i]
			spt += p.Mean * y[i]
		}
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "Mean squared error = %g (regression)\n", se/n)
		num := n*spt - sp*st
		fmt.Fprintf(w, "Squared correlation coefficient = %g (regression)\n", num*num/((n*spp-sp*sp)*(n*stt-st*st)))
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
		fmt.Fprintf(w, "Accuracy = %g%% (%d/%d) (classification)\n", 100*float64(correct)/float64(total), correct, total)
	}
}

// writePredictions writes one line per test row: the predicted label (regression: the mean);
// with prob, a binary model adds p(y=+1), an ordinal one p(y=c) for every category (in the
// header's order), both followed by the latent mean and variance, and regression writes mean and variance.
func writePredictions(path string, m *ivm.Model, preds []noise.Prediction, mu, vs, labels []float64, prob bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	classes := m.Noise.Classes()
	if prob {
		if classes == nil {
			fmt.Fprintln(w, "mean variance")
		} else {
			fmt.Fprint(w, "label")
			if len(classes) == 2 { // binary: p(y=+1) alone, as the contract says
				classes = classes[1:]
			}
			for _, c := range classes {
				fmt.Fprintf(w, " p(%s)", g(decodeLabel(c, labels)))
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
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
