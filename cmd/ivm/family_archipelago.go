package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
	ivmplot "github.com/ivmlab/ivm/plot"
)

// Archipelago (Adams & Ghahramani 2009) and its softmax GP comparator as a model family:
// "ivm train -method archipelago|softmax TRAIN MODEL" samples the chain and writes its
// thinned posterior samples (ivm-archipelago/1); predict, info and plot read that file.
// "ivm archipelago TRAIN TEST" (archipelago.go) is the one-shot shorthand on the same
// functions.
func init() {
	registerFamily(modelFamily{
		Methods: []string{"archipelago", "softmax"},
		Train:   trainArchipelago,
		Open:    openArchipelago,
	})
}

const archTrainSynopsis = `ivm train -method archipelago|softmax [flags] TRAIN MODEL

Samples Archipelago, the semi-supervised GP classifier of Adams & Ghahramani (2009), or
with -method softmax the softmax GP classifier on the labelled rows alone, by MCMC, and
writes MODEL (ivm-archipelago/1): thinned posterior samples of the chain, from which
"ivm predict" gives the posterior predictive class probabilities of new rows. TRAIN holds
labelled rows and unlabelled rows (CSV label "?" or empty, libsvm "?"); the classes are
the distinct labels. Progress goes to stderr every 5 % of the sweeps unless -quiet.`

// archFlags are the sampler's flags, shared by train and the shorthand.
type archFlags struct {
	sweeps, burn, anneal, ampMoves, samples *int
	seed                                    *uint64
	ard                                     *bool
	scale                                   *string
}

func (a *archFlags) register(fs *flag.FlagSet) {
	a.sweeps = fs.Int("sweeps", 600, "MCMC sweeps")
	a.burn = fs.Int("burn", 0, "burn-in sweeps (0: a third of -sweeps)")
	a.anneal = fs.Int("anneal", 0,
		"burn-in sweeps over which the unlabelled rows' likelihood is phased in "+
			"(0: 3/4 of -burn, -1: none)")
	a.seed = fs.Uint64("seed", 1, "random seed of the chain and of the predictive draws")
	a.ampMoves = fs.Int("amp-moves", 0,
		"Metropolis moves per sweep on the log amplitude with the whitened functions fixed "+
			"(0: 20, -1: none)")
	a.ard = fs.Bool("ard", false, "one length-scale per input (ARD)")
	a.samples = fs.Int("samples", 0,
		fmt.Sprintf("posterior samples kept for prediction, evenly thinned after the burn-in "+
			"(0: %d)", archipelago.DefaultSamples))
	a.scale = fs.String("scale", "auto",
		"input scaling, stored in the model: std (zero mean, unit variance), minmax ([-1, 1]), "+
			"none;\nauto: none (the kernel and the base density start from the data's own spread)")
}

// config checks the flags and returns the Config of method.
func (a *archFlags) config(method archipelago.Method) (archipelago.Config, error) {
	if err := checkSampler(*a.sweeps, *a.burn, *a.ampMoves); err != nil {
		return archipelago.Config{}, err
	}
	if *a.samples < 0 {
		return archipelago.Config{}, fmt.Errorf("-samples %d: want 0 (the default, %d) or more",
			*a.samples, archipelago.DefaultSamples)
	}
	scaling, err := dataset.ParseScaling(*a.scale)
	if err != nil {
		return archipelago.Config{}, fmt.Errorf("-scale %q: want std, minmax, none or auto",
			*a.scale)
	}
	return archipelago.Config{Method: method, Sweeps: *a.sweeps, Burn: *a.burn, Anneal: *a.anneal,
		Seed: *a.seed,
		ARD:  *a.ard, AmpMoves: *a.ampMoves, Samples: *a.samples, Scaling: scaling}, nil
}

// archProgress prints the chain's state after every sweep-th sweep (and the last) to w.
func archProgress(w io.Writer, prefix string, every, sweeps int) func(archipelago.SweepInfo) {
	return func(s archipelago.SweepInfo) {
		if (s.Sweep+1)%every != 0 && s.Sweep+1 != sweeps {
			return
		}
		st := s.Stats
		fmt.Fprintf(w,
			"%ssweep %4d  M %4d  loglik %9.2f  β %.2f  θ %.2f  "+
				"acc ins %.2f del %.2f move %.2f g %.2f θ %.2f σ² %.2f  %s\n",
			prefix, s.Sweep, s.Rejections, s.LogLik, s.Beta, s.Theta,
			archipelago.Rate(st.InsertAccepted, st.InsertTried),
			archipelago.Rate(st.DeleteAccepted, st.DeleteTried),
			archipelago.Rate(st.MoveAccepted, st.MoveTried),
			archipelago.Rate(st.GAccepted, st.GTried),
			archipelago.Rate(st.HyperAccepted, st.HyperTried),
			archipelago.Rate(st.AmpAccepted, st.AmpTried),
			s.Elapsed.Round(1e6))
	}
}

// checkArchMemory refuses training sets whose chain would not fit: the sampler's
// covariances over the training rows and the rejections (about as many) grow as N², and
// 256·N² bytes covers them with a margin (bench/RESULTS.md records the peak).
func checkArchMemory(limit memLimit, n int) error {
	return limit.check(256*float64(n)*float64(n), fmt.Sprintf("sampling over %d training rows", n))
}

func trainArchipelago(method string, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train", archTrainSynopsis, stderr)
	fs.String("method", method, "archipelago or softmax (the softmax GP on the labelled rows)")
	var df dataFlags
	df.register(fs)
	var af archFlags
	af.register(fs)
	quiet := fs.Bool("quiet", false, "print nothing on success (no progress either)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	m, err := archipelago.ParseMethod(method)
	if err != nil {
		return err
	}
	cfg, err := af.config(m)
	if err != nil {
		return err
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	trainPath, modelPath := fs.Arg(0), fs.Arg(1)
	run, err := startTraining([]string{trainPath}, modelPath, args, stdout, stderr)
	if err != nil {
		return err
	}
	defer run.discard()
	data, err := readTraining(trainPath, opt, "-method "+method+" ignores them", stderr)
	if err != nil {
		return err
	}
	n, dim := data.X.Dims()
	if err := checkArchMemory(*df.maxMem, n); err != nil {
		return err
	}
	if !*quiet {
		cfg.Progress = archProgress(stderr, "ivm train: ", max(1, *af.sweeps/20), *af.sweeps)
	}
	model, err := archipelago.Fit(data.X, data.Y, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", trainPath, err)
	}
	if j := model.Chain.Stats.Jitter; j > 0 {
		fmt.Fprintf(stderr,
			"ivm train: warning: jitter up to %g added %d times to factorise "+
				"the chain's covariance\n",
			model.Chain.Stats.MaxJitter, j)
	}
	if err := run.save(model, &model.Training, n); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(run.summary, "%s: %s\n", modelPath, archSummary(model))
		run.printTrained(model.Training, dim)
	}
	return nil
}

// archSummary describes a model in one line.
func archSummary(m *archipelago.Model) string {
	return fmt.Sprintf(
		"%s, classes %s, %d posterior samples of %d sweeps (%d burn-in), "+
			"%d labelled and %d unlabelled rows",
		m.Method, floats(m.Classes), len(m.Samples), m.Chain.Sweeps, m.Chain.Burn, m.Chain.Labelled,
		m.Chain.Unlabelled)
}

// archModel is an ivm-archipelago/1 file read for predict, info and plot.
type archModel struct{ m *archipelago.Model }

// openArchipelago opens an Archipelago model for predict, info and plot.
func openArchipelago(m family.Model) familyModel {
	if am, ok := m.Unwrap().(*archipelago.Model); ok {
		return archModel{am}
	}
	return nil
}

// largestSample is the most points any sample of m conditions on.
func largestSample(m *archipelago.Model) int {
	n := 0
	for _, s := range m.Samples {
		n = max(n, s.Points(m.Rows))
	}
	return n
}

// predictBytes estimates what predicting rows allocates: a sample's covariance and its
// factor, and the cross-covariances of a chunk of rows, with the probabilities.
func predictBytes(m *archipelago.Model, rows int) float64 {
	n := float64(largestSample(m))
	return 8 * (3*n*n + n*float64(min(rows, 512)) +
		float64(rows)*float64(len(m.Classes)+m.Inputs+8))
}

func (a archModel) Predict(c predictCall) error {
	m := a.m
	data, err := readTest(c.TestPath, c.Read, m.Inputs, c.Stderr)
	if err != nil {
		return err
	}
	warnUnknownLabels(c.Stderr, c.TestPath, data.Y, m.Classes)
	rows, _ := data.X.Dims()
	if err := memLimit(c.Read.MaxBytes/4).check(predictBytes(m, rows),
		fmt.Sprintf("predicting %d rows with %s", rows, c.ModelPath)); err != nil {
		return err
	}
	preds, err := m.Predict(data.X)
	if err != nil {
		return fmt.Errorf("%s: %w", c.TestPath, err)
	}
	if c.OutPath != "" {
		if err := writeArchPredictions(c.OutPath, m.Classes, preds, c.Prob, c.Stdout); err != nil {
			return err
		}
	}
	if !c.Quiet {
		printMetrics(c.Report, false, preds, data.Y)
		if perp, n := perplexity(m.Classes, preds, data.Y); n > 0 {
			fmt.Fprintf(c.Report, "Perplexity = %.6g (posterior predictive, %d rows)\n", perp, n)
		}
	}
	return nil
}

// perplexity returns exp(−mean ln p(true class)) over the rows whose label is one of the
// classes (a zero probability floored at 1e-300, as archipelago.Evaluate), and their number.
func perplexity(classes []float64, preds []noise.Prediction, y []float64) (float64, int) {
	var nll float64
	n := 0
	for i, p := range preds {
		for k, c := range classes {
			if y[i] == c {
				nll -= math.Log(math.Max(p.Prob[k], 1e-300))
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(nll / float64(n)), n
}

// writeArchPredictions writes one predicted label per row; with prob a header line
// "label p(c1) p(c2) …" first and each class's probability after the label.
func writeArchPredictions(path string, classes []float64, preds []noise.Prediction, prob bool,
	stdout io.Writer) error {
	var b strings.Builder
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if prob {
		b.WriteString("label")
		for _, c := range classes {
			fmt.Fprintf(&b, " p(%s)", g(c))
		}
		b.WriteByte('\n')
	}
	for _, p := range preds {
		b.WriteString(g(p.Label))
		if prob {
			for _, v := range p.Prob {
				b.WriteString(" " + g(v))
			}
		}
		b.WriteByte('\n')
	}
	return writeOutput(path, []byte(b.String()), stdout)
}

func (a archModel) WriteInfo(w io.Writer, path string) {
	m := a.m
	what := map[archipelago.Method]string{
		archipelago.Archipelago: "Archipelago, semi-supervised GP classifier by MCMC (Adams & " +
			"Ghahramani 2009)",
		archipelago.SoftmaxGP: "softmax GP classifier by MCMC on the labelled rows " +
			"(Archipelago's comparator)"}[m.Method]
	fmt.Fprintf(w, "model file:  %s (%s)\n", path, archipelago.ModelFormat)
	fmt.Fprintf(w, "method:      %s: %s\n", m.Method, what)
	fmt.Fprintf(w, "classes:     %s\n", floats(m.Classes))
	fmt.Fprintf(w, "inputs:      %d", m.Inputs)
	if m.Scaler != nil {
		fmt.Fprintf(w, ", scaled (%v) as at training\n", m.Scaler.Kind)
	} else {
		fmt.Fprint(w, ", not scaled\n")
	}
	scales := "one length-scale"
	if m.ARD {
		scales = "one length-scale per input (ARD)"
	}
	fmt.Fprintf(w, "kernel:      squared exponential, %s, nugget %g·σ²\n", scales, m.Nugget)
	ch := m.Chain
	fmt.Fprintf(w,
		"chain:       %d sweeps, %d burn-in, thinned by %d: %d posterior samples over "+
			"%d labelled and %d unlabelled rows\n",
		ch.Sweeps, ch.Burn, ch.Thin, len(m.Samples), ch.Labelled, ch.Unlabelled)
	lo, hi := math.Inf(1), math.Inf(-1)
	pts := 0
	for _, s := range m.Samples {
		lo, hi = math.Min(lo, s.Theta[0]), math.Max(hi, s.Theta[0])
		pts = max(pts, s.Points(m.Rows))
	}
	fmt.Fprintf(w, "posterior:   ln σ² from %.3g to %.3g; up to %d points per sample",
		lo, hi, pts)
	if m.Method == archipelago.Archipelago {
		fmt.Fprintf(w, "; rejections %.1f ± %.1f (ESS %.0f of %d sweeps)", ch.RejectionsMean,
			ch.RejectionsSD, ch.RejectionsESS, ch.Sweeps-ch.Burn)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "acceptance:  %s\n", ch.Stats.Acceptance())
	fmt.Fprintf(w, "predictions: seed %d (each row's draws seeded by the row)\n", m.Seed)
	writeProvenance(w, m.Training)
}

// classProbs adapts a model's Predict to the class-map plots.
func classProbs(m *archipelago.Model) ivmplot.ClassProbs {
	return func(x *mat.Dense) ([][]float64, error) {
		preds, err := m.Predict(x)
		if err != nil {
			return nil, err
		}
		out := make([][]float64, len(preds))
		for i, p := range preds {
			out[i] = p.Prob
		}
		return out, nil
	}
}

// classIndices maps labels to the model's class indices, −1 for unlabelled rows and
// labels that are not a class.
func classIndices(classes, y []float64) []int {
	out := make([]int, len(y))
	for i, v := range y {
		out[i] = -1
		for k, c := range classes {
			if v == c {
				out[i] = k
			}
		}
	}
	return out
}

// Plot draws the predictive mode and entropy maps (the paper's Fig. 3) of a model of 2-D
// inputs, or each class's predictive probability along the input of a model of 1-D
// inputs, over DATA's rows when given (labelled rows marked by class), else over the
// training rows the samples hold.
func (a archModel) Plot(c plotCall) (*ivmplot.Figure, error) {
	m := a.m
	if m.Inputs != 1 && m.Inputs != 2 {
		return nil, fmt.Errorf("%s has %d inputs; ivm plot draws models of 1 or 2 inputs",
			c.ModelPath, m.Inputs)
	}
	grid := c.Grid
	if grid == 0 {
		grid = map[int]int{1: 300, 2: 50}[m.Inputs]
	}
	if err := c.Data.maxMem.check(predictBytes(m, int(math.Pow(float64(grid), float64(m.Inputs)))),
		fmt.Sprintf("drawing %s", c.ModelPath)); err != nil {
		return nil, err
	}
	x, labels, err := plotRows(m, c)
	if err != nil {
		return nil, err
	}
	opt := c.Options
	opt.Grid = grid
	if m.Inputs == 2 {
		name := opt.Title
		if name == "" {
			name = m.Method.String()
		}
		return ivmplot.ClassMap(classProbs(m), name, x, labels, len(m.Classes), opt)
	}
	if opt.Title == "" {
		opt.Title = m.Method.String() + ": posterior predictive class probabilities"
	}
	return ivmplot.ClassCurves(classProbs(m), m.Classes, x, opt)
}

// plotRows returns the rows to draw: DATA's, or the training rows the model holds (in the
// data's coordinates, unlabelled as far as the figure knows).
func plotRows(m *archipelago.Model, c plotCall) (*mat.Dense, []int, error) {
	if c.DataPath != "" {
		data, err := readPlotData(c.DataPath, c.Data, m.Inputs)
		if err != nil {
			return nil, nil, err
		}
		return data.X, classIndices(m.Classes, data.Y), nil
	}
	x := mat.NewDense(m.Rows, m.Inputs, append([]float64(nil), m.Data...))
	if sc := m.Scaler; sc != nil {
		for i := 0; i < m.Rows; i++ {
			row := x.RawRowView(i)
			for j := range row {
				row[j] = row[j]/sc.Factor[j] + sc.Shift[j]
			}
		}
	}
	labels := make([]int, m.Rows)
	for i := range labels {
		labels[i] = -1
	}
	return x, labels, nil
}
