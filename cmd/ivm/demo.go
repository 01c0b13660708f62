package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/data"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// demoKernel is a fixed kernel for USPS: the rbf's γ = 2/256 makes exp(−‖x−x'‖²/256), the
// scale libsvm uses by default for 256 inputs; lin, bias and white make the IVM paper's
// base kernel.
const demoKernel = "rbf(gamma=0.0078125,variance=1)+lin(variance=0.01)+bias+white(variance=0.01)"

// readEmbedded reads a gzipped CSV shipped in package data.
func readEmbedded(name string, opt dataset.ReadOptions) (*dataset.Data, error) {
	f, err := data.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return dataset.Read(gz, opt)
}

func cmdDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "ivm demo [flags]", stderr)
	digit := fs.Int("digit", 3, "the USPS digit to tell from the others")
	d := fs.Int("d", 500, "active set size")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *digit < 0 || *digit > 9 {
		return fmt.Errorf("-digit %d: USPS digits are 0 to 9", *digit)
	}
	opt := dataset.ReadOptions{Format: dataset.CSV, LabelCol: dataset.LabelFirst}
	train, err := readEmbedded("usps/usps_train.csv.gz", opt)
	if err != nil {
		return err
	}
	test, err := readEmbedded("usps/usps_test.csv.gz", opt)
	if err != nil {
		return err
	}
	n, dim := train.X.Dims()
	nt, _ := test.X.Dims()
	fmt.Fprintf(stdout, "USPS digits (shipped in data/usps): %d training and %d test images of %d pixels\n", n, nt, dim)
	fmt.Fprintf(stdout, "Task: digit %d against the rest, probit noise, kernel %s, d = %d\n", *digit, demoKernel, *d)
	oneVsRest := func(y []float64) []float64 {
		out := make([]float64, len(y))
		for i, v := range y {
			out[i] = -1
			if v == float64(*digit) {
				out[i] = 1
			}
		}
		return out
	}
	k, err := kern.Parse(demoKernel, dim)
	if err != nil {
		return err
	}
	start := time.Now()
	model, err := ivm.FitFixed(train.X, oneVsRest(train.Y), k, noise.NewProbit(), *d, ivm.Options{})
	if err != nil {
		return err
	}
	trainTime := time.Since(start)
	start = time.Now()
	preds := model.Predict(test.X)
	predTime := time.Since(start)
	yt := oneVsRest(test.Y)
	correct, logp := 0, 0.0
	for i, p := range preds {
		if p.Label == yt[i] {
			correct++
		}
		q := p.Prob[1]
		if yt[i] < 0 {
			q = p.Prob[0]
		}
		logp += math.Log(math.Max(q, math.SmallestNonzeroFloat64))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(stdout, "Selection of %d active points: %.2f s; prediction of %d images: %.2f s\n",
		model.Size(), trainTime.Seconds(), nt, predTime.Seconds())
	fmt.Fprintf(stdout, "Accuracy = %.2f%% (%d/%d); mean test log probability %.4f; Go heap in use at the end %.0f MB\n",
		100*float64(correct)/float64(nt), correct, nt, logp/float64(nt), float64(ms.HeapAlloc)/(1<<20))
	fmt.Fprintf(stdout, "The same from the command line: ivm train -iters 0 -kernel '%s' -d %d TRAIN MODEL; ivm predict TEST MODEL\n", demoKernel, *d)
	return nil
}
