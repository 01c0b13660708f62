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
	ivmplot "github.com/ivmlab/ivm/plot"
)

func cmdDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "ivm demo [flags]", stderr)
	digit := fs.Int("digit", 3, "the USPS digit to tell from the others")
	d := fs.Int("d", 0, "active set size (0: ivm train's default)")
	iters := fs.Int("iters", -1,
		"-1: choose the kernel as ivm train does by default (the held-out search);\nN > 0: N outer "+
			"iterations of Algorithm 2; 0 keeps the default kernel fixed")
	figure := fs.String("figure", "ivm-demo.png",
		"also write a figure of an IVM on the IVM paper's 2-D toy (.png, .svg or .pdf; empty: none)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	if *digit < 0 || *digit > 9 {
		return fmt.Errorf("-digit %d: USPS digits are 0 to 9", *digit)
	}
	if *d < 0 || *iters < -1 {
		return fmt.Errorf(
			"-d %d, -iters %d: want a positive d (or 0: the default) and -iters -1 (the search), 0 "+
				"(fixed) or more", *d, *iters)
	}
	if err := checkIters("-iters", *iters); err != nil {
		return err
	}
	if *figure != "" {
		if err := checkFigurePath(*figure); err != nil {
			return err
		}
		if err := checkOutputs(nil, *figure); err != nil {
			return err
		}
	}
	figStdout := stdout
	if *figure == stdoutPath {
		stdout = stderr // the figure goes to standard output, the report beside it
	}
	train, test, err := data.USPS()
	if err != nil {
		return err
	}
	n, dim := train.X.Dims()
	nt, _ := test.X.Dims()
	// Label the chosen digit 1 and the others 0, as a user's file would.
	oneVsRest := func(y []float64) []float64 {
		out := make([]float64, len(y))
		for i, v := range y {
			if v == float64(*digit) {
				out[i] = 1
			}
		}
		return out
	}
	cfg := ivm.Config{Task: ivm.Binary, ActiveSize: *d, FixedKernel: *iters == 0,
		Learn: ivm.LearnOptions{Iters: max(*iters, 0)}}
	cfg.SearchTrace = searchTrace()
	fmt.Fprintf(stdout,
		"USPS digits (shipped in data/usps): %d training and %d test images of %d pixels\n", n, nt, dim)
	how := "kernel chosen by the held-out search"
	switch {
	case *iters == 0:
		how = "fixed kernel " + ivm.DefaultKernel(dim)
	case *iters > 0:
		how = fmt.Sprintf("%d iterations of Algorithm 2 from %s", *iters, ivm.DefaultKernel(dim))
	}
	fmt.Fprintf(stdout, "Task: digit %d (label 1) against the rest (label 0); %s\n", *digit, how)
	var prog *progress
	if !*quiet {
		prog = newProgress(stderr, "ivm demo")
		cfg.Progress = prog.report
	}
	start := time.Now()
	p, err := ivm.Fit(train.X, oneVsRest(train.Y), cfg)
	prog.finish()
	if err != nil {
		return err
	}
	trainTime := time.Since(start)
	start = time.Now()
	preds, err := p.Predict(test.X)
	if err != nil {
		return err
	}
	predTime := time.Since(start)
	yt := oneVsRest(test.Y)
	correct, logp := 0, 0.0
	for i, q := range preds {
		if q.Label == yt[i] {
			correct++
		}
		logp += math.Log(math.Max(q.Prob[int(yt[i])], math.SmallestNonzeroFloat64))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := p.Models[0]
	fmt.Fprintf(stdout,
		"Kernel: %s; inputs scaled (%v); probabilities tempered by a = %.3g, label noise ε = %.3g\n",
		m.Kernel, p.Scaler.Method(), p.Sharpness, p.LabelNoise)
	fmt.Fprintf(stdout,
		"Training (%d active points): %.1f s; prediction of %d images: %.2f s; Go heap in use %.0f MB\n",
		m.Size(), trainTime.Seconds(), nt, predTime.Seconds(), float64(ms.HeapAlloc)/(1<<20))
	fmt.Fprintf(stdout, "Accuracy = %.2f%% (%d/%d) (classification); mean test log probability %.4f\n",
		100*float64(correct)/float64(nt), correct, nt, logp/float64(nt))
	fmt.Fprintf(stdout,
		"The same from the command line: ivm train %sTRAIN MODEL; ivm predict -prob TEST MODEL OUT\n",
		demoFlags(*d, *iters))
	if *figure != "" {
		fig, err := ivmplot.Demo(1)
		if err != nil {
			return err
		}
		if err := saveFigure(*figure, figStdout, fig, 14*vg.Centimeter, 12*vg.Centimeter); err != nil {
			return err
		}
		fmt.Fprintf(stdout,
			"Figure of an IVM on the IVM paper's 2-D classification toy (Fig. 3 right) written to %s\n",
			*figure)
	}
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
