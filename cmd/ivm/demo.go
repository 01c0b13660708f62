package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/data"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
	ivmplot "github.com/ivmlab/ivm/plot"
)

// cmdDemo runs ivm demo: it trains an IVM to tell one USPS digit from the others, reports
// its accuracy on the test images and how long it took, and draws a figure of an IVM on a toy.
func cmdDemo(args []string, stdout, stderr io.Writer) error {
	o, err := parseDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	figStdout := stdout
	if o.figure == stdoutPath {
		stdout = stderr // the figure goes to standard output, the report beside it
	}
	train, test, err := data.USPS()
	if err != nil {
		return err
	}
	n, dim := train.X.Dims()
	nt, _ := test.X.Dims()
	cfg := ivm.Config{Task: ivm.Binary, ActiveSize: o.d, FixedKernel: o.iters == 0,
		Learn: engine.LearnOptions{Iters: max(o.iters, 0)}}
	cfg.SearchTrace = searchTrace()
	fmt.Fprintf(stdout,
		"USPS digits (shipped in data/usps): %d training and %d test images of %d pixels\n",
		n, nt, dim)
	fmt.Fprintf(stdout, "Task: digit %d (label 1) against the rest (label 0); %s\n", o.digit,
		demoKernel(dim, o.iters))
	var prog *progress
	if !o.quiet {
		prog = newProgress(stderr, "ivm demo")
		cfg.Progress = prog.report
	}
	start := time.Now()
	p, err := ivm.Fit(train.X, oneVsRest(train.Y, o.digit), cfg)
	prog.finish()
	if err != nil {
		return err
	}
	sc := demoScore{train: time.Since(start), n: nt}
	start = time.Now()
	preds, err := p.Predict(test.X)
	if err != nil {
		return err
	}
	sc.predict = time.Since(start)
	sc.correct, sc.logp = scoreDemo(preds, oneVsRest(test.Y, o.digit))
	reportDemo(stdout, p, sc, o)
	if o.figure != "" {
		return writeDemoFigure(o.figure, figStdout, stdout)
	}
	return nil
}

// demoOptions are ivm demo's flags.
type demoOptions struct {
	digit, d, iters int
	figure          string // the figure's path, or empty for none
	quiet           bool
}

// parseDemoFlags parses and checks ivm demo's flags, the figure's path included, before
// the training that would otherwise be spent on a mistyped flag.
func parseDemoFlags(args []string, stderr io.Writer) (demoOptions, error) {
	fs := newFlags("demo", "ivm demo [flags]", stderr)
	digit := fs.Int("digit", 3, "the USPS digit to tell from the others")
	d := fs.Int("d", 0, "active set size (0: ivm train's default)")
	iters := fs.Int("iters", -1,
		"-1: choose the kernel as ivm train does by default (the held-out search);\n"+
			"N > 0: N outer iterations of Algorithm 2; 0 keeps the default kernel fixed")
	figure := fs.String("figure", "ivm-demo.png",
		"also write a figure of an IVM on the IVM paper's 2-D toy "+
			"(.png, .svg or .pdf; empty: none)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return demoOptions{}, err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return demoOptions{}, errUsage
	}
	if *digit < 0 || *digit > 9 {
		return demoOptions{}, fmt.Errorf("-digit %d: USPS digits are 0 to 9", *digit)
	}
	if *d < 0 || *iters < -1 {
		return demoOptions{}, fmt.Errorf(
			"-d %d, -iters %d: want a positive d (or 0: the default) and -iters -1 "+
				"(the search), 0 (fixed) or more", *d, *iters)
	}
	if err := checkIters("-iters", *iters); err != nil {
		return demoOptions{}, err
	}
	if *figure != "" {
		if err := checkFigurePath(*figure); err != nil {
			return demoOptions{}, err
		}
		if err := checkOutputs(nil, *figure); err != nil {
			return demoOptions{}, err
		}
	}
	return demoOptions{digit: *digit, d: *d, iters: *iters, figure: *figure, quiet: *quiet}, nil
}

// demoKernel says how the demo chooses its kernel on inputs of dim pixels with -iters iters.
func demoKernel(dim, iters int) string {
	switch {
	case iters == 0:
		return "fixed kernel " + ivm.DefaultKernel(dim)
	case iters > 0:
		return fmt.Sprintf("%d iterations of Algorithm 2 from %s", iters, ivm.DefaultKernel(dim))
	}
	return "kernel chosen by the held-out search"
}

// oneVsRest labels the chosen digit 1 and the others 0, as a user's file would.
func oneVsRest(y []float64, digit int) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		if v == float64(digit) {
			out[i] = 1
		}
	}
	return out
}

// demoScore is what the demo measured of its predictor.
type demoScore struct {
	train, predict time.Duration // the time spent training and predicting the test images
	n, correct     int           // test images, and those labelled correctly
	logp           float64       // the summed log probability of the test images' labels
}

// scoreDemo counts the predictions whose label is the true label yt[i] and sums the log
// probability of the true labels, floored so that a zero probability stays finite.
func scoreDemo(preds []noise.Prediction, yt []float64) (correct int, logp float64) {
	for i, q := range preds {
		if q.Label == yt[i] {
			correct++
		}
		logp += math.Log(math.Max(q.Prob[int(yt[i])], math.SmallestNonzeroFloat64))
	}
	return correct, logp
}

// reportDemo writes the demo's report: the kernel learnt, the times and memory spent, the
// test accuracy, and the ivm train and predict commands that do the same.
func reportDemo(w io.Writer, p *ivm.Predictor, sc demoScore, o demoOptions) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	models, _ := modelsOf(p)
	m, cal := models[0], calibrationOf(p)
	nt := sc.n
	fmt.Fprintf(w,
		"Kernel: %s; inputs scaled (%v); probabilities tempered by a = %.3g, "+
			"label noise ε = %.3g\n",
		m.Kernel, cal.scaler.Method(), cal.sharpness, cal.labelNoise)
	fmt.Fprintf(w,
		"Training (%d active points): %.1f s; prediction of %d images: %.2f s; "+
			"Go heap in use %.0f MB\n",
		m.Size(), sc.train.Seconds(), nt, sc.predict.Seconds(), float64(ms.HeapAlloc)/(1<<20))
	fmt.Fprintf(w, "Accuracy = %.2f%% (%d/%d) (classification); mean test log probability %.4f\n",
		100*float64(sc.correct)/float64(nt), sc.correct, nt, sc.logp/float64(nt))
	fmt.Fprintf(w,
		"The same from the command line: ivm train %sTRAIN MODEL; "+
			"ivm predict -prob TEST MODEL OUT\n",
		demoFlags(o.d, o.iters))
}

// writeDemoFigure writes the figure of an IVM on the IVM paper's 2-D toy to path
// (figStdout for "-") and says so on stdout.
func writeDemoFigure(path string, figStdout, stdout io.Writer) error {
	fig, err := ivmplot.Demo(1)
	if err != nil {
		return err
	}
	if err := saveFigure(path, figStdout, fig, 14*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return err
	}
	fmt.Fprintf(stdout,
		"Figure of an IVM on the IVM paper's 2-D classification toy (Fig. 3 right) written to %s\n",
		path)
	return nil
}

// demoFlags are the ivm train flags that do what the demo did.
func demoFlags(d, iters int) string {
	f := ""
	if d > 0 {
		f += fmt.Sprintf("-d %d ", d)
	}
	if iters >= 0 {
		f += fmt.Sprintf("-iters %d ", iters)
	}
	return f
}
