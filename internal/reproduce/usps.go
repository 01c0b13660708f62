package reproduce

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/data"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
)

func init() {
	register(Experiment{Name: "usps-table1",
		Title: "IVM paper Table 1: USPS, ten one-vs-rest IVMs, rbf / mlp / rbf-ARD on the " +
			"base kernel",
		Run: runUSPSTable1})
}

// paperTable1 is the IVM paper's Table 1: % test error of each digit's binary classifier
// and of the combined ten-class classifier.
var paperTable1 = map[string][11]float64{
	"rbf":    {0.648, 0.698, 1.40, 1.05, 1.49, 1.25, 0.747, 0.598, 1.20, 0.747, 4.58},
	"mlp":    {0.548, 0.698, 1.49, 1.20, 1.64, 1.25, 0.797, 0.598, 1.20, 0.747, 4.78},
	"rbfard": {0.548, 0.598, 1.49, 1.10, 1.79, 1.20, 0.797, 0.498, 1.20, 0.847, 4.68},
}

// uspsKernels are the paper's three kernels: its base kernel lin + white + bias plus an
// rbf, an mlp or an rbf-ARD whose scales are shared within 16 blocks of 16 pixels (the
// image rows; paper footnote 4). The rbf's starting inverse width is 1/128 (libsvm's
// default scale for 256 inputs in our parameterisation) rather than the toolbox's 1, which
// makes every kernel value on these images about exp(−50) and leaves nothing to learn from.
var uspsKernels = []struct{ name, spec string }{
	{"rbf", "rbf(gamma=0.0078125)+lin(variance=0.01)+bias+white"},
	{"mlp", "mlp+lin(variance=0.01)+bias+white"},
	{"rbfard", "rbfard(gamma=0.0078125,groups=16)+lin(variance=0.01)+bias+white"},
}

// USPSRow is one kernel's line of Table 1.
type USPSRow struct {
	Kernel string
	// Errors holds each digit's binary test error and, last, the ten-class error (%).
	Errors [11]float64
	// ByMean is the ten-class error when each image goes to the classifier with the largest
	// latent mean instead of the largest predictive probability.
	ByMean  float64
	Seconds float64
	// PeakMB is the process's peak resident set size so far (MB, Linux; 0 elsewhere);
	// BoundMB the bound for the classifiers trained at once, 2 × (w·d·N·8 bytes +
	// the data), and LimitMB the soft memory limit the run set for Go's heap (0: none).
	PeakMB, BoundMB, LimitMB float64
}

// uspsMemoryLimit sets Go's soft memory limit for a usps-table1 run whose M matrices and
// data take core bytes, to the bound 2·core less 24 MB for what lies outside Go's
// heap (the binary's pages, thread stacks), unless GOMEMLIMIT says otherwise. Go's default
// collector lets the heap grow to twice the live data before collecting; the live data of
// this run are ten finished models plus two learning problems (about 110 MB at d = 500),
// so the default would peak near 300 MB, while collecting when the heap nears the bound
// costs a few collections and no measurable time. The limit is never below core + 48 MB:
// a limit under the live data would keep the collector running back to back (one classifier
// at a time has core ≈ 48 MB and about 90 MB live). Quick runs set none. It returns the limit
// set (0: none) and a function that restores the previous one.
func uspsMemoryLimit(core float64, quick bool) (float64, func()) {
	if os.Getenv("GOMEMLIMIT") != "" || quick {
		return 0, func() {}
	}
	limit := max(int64(2*core)-24<<20, int64(core)+48<<20)
	old := debug.SetMemoryLimit(limit)
	return float64(limit), func() { debug.SetMemoryLimit(old) }
}

// USPSTable1 runs the IVM paper's §4.2 protocol: d = 500, five iterations of Algorithm 2 with
// noise parameter updates, the paper's kernel objective (eq. 32, FixedSites) and every iteration
// accepted as the paper's Algorithm 2 does (no held-out safeguard, which cost test errors on
// some digits), ten one-vs-rest classifiers (trained side by side on the available cores), the
// papers' entropy criterion (fewer errors on the rbf row than the expected-entropy default),
// inputs as given ([−1, 1] pixels, no scaling). Quick: the rbf kernel only, the first 1000
// training images, d = 100, one short iteration.
func USPSTable1(c Config) ([]USPSRow, error) { return uspsTable1(c, nil) }

// uspsTable1 runs USPSTable1, calling done (when set) with each kernel's row as it ends.
func uspsTable1(c Config, done func(USPSRow)) ([]USPSRow, error) {
	train, test, err := data.USPS()
	if err != nil {
		return nil, err
	}
	x, y := train.X, train.Y
	d, iters, kIters, nIters, kernels := 500, 5, 100, 20, uspsKernels
	if c.Quick {
		// Not smaller: with fewer images and active points the eq. 32 objective drives γ
		// far past its start in one iteration for digit 8 and its classifier says "8" to
		// everything (the fixed-site objective's collapse on small active sets, as in the
		// reference's class500_d100 run); the paper's protocol has no safeguard against it.
		x, y = x.Slice(0, 1000, 0, 256).(*mat.Dense), y[:1000]
		d, iters, kIters, nIters, kernels = 100, 1, 20, 5, uspsKernels[:1]
	}
	if c.Only != "" {
		var sel []struct{ name, spec string }
		for _, k := range kernels {
			if slices.Contains(strings.Split(c.Only, ","), k.name) {
				sel = append(sel, k)
			}
		}
		if len(sel) == 0 {
			return nil, fmt.Errorf("usps-table1: -only %q names none of the kernels "+
				"rbf, mlp, rbfard", c.Only)
		}
		kernels = sel
	}
	n, dim := x.Dims()
	nt, _ := test.X.Dims()
	atOnce := c.Workers
	if atOnce <= 0 {
		atOnce = runtime.GOMAXPROCS(0)
	}
	atOnce = min(atOnce, 10)
	core := float64(atOnce*d*n*8 + (n+nt)*dim*8)
	limit, restore := uspsMemoryLimit(core, c.Quick)
	defer restore()
	var rows []USPSRow
	for _, k := range kernels {
		start := time.Now()
		cfg := table1Config(k.spec, d, iters, kIters, nIters, c.Workers)
		if c.Log != nil {
			cfg.Progress = func(p ivm.Progress) {
				if p.Trace != nil && !p.Trace.Final {
					fmt.Fprintf(c.Log, "usps-table1 %s: digit %g, iteration %d/%d, "+
						"held-out %.4f\n", k.name, p.Class, p.Trace.Iter+1, iters, p.Trace.HeldOut)
				}
			}
		}
		p, err := ivm.Fit(x, y, cfg)
		if err != nil {
			return nil, fmt.Errorf("usps-table1 %s: %w", k.name, err)
		}
		row := USPSRow{Kernel: k.name, Seconds: time.Since(start).Seconds()}
		preds, err := p.Predict(test.X)
		if err != nil {
			return nil, err
		}
		nt := float64(len(preds))
		for i, q := range preds {
			if q.Label != test.Y[i] {
				row.Errors[10] += 100 / nt
			}
			if p.Classes[floats.MaxIdx(q.Latent)] != test.Y[i] {
				row.ByMean += 100 / nt
			}
			// Each digit's binary decision: its own model's p(y=+1) > ½, that is, its
			// latent mean with the bias added is positive.
			for c, m := range q.Latent {
				if (m > 0) != (test.Y[i] == p.Classes[c]) {
					row.Errors[c] += 100 / nt
				}
			}
		}
		row.PeakMB, row.BoundMB, row.LimitMB = peakRSS()/1e6, 2*core/1e6, limit/1e6
		rows = append(rows, row)
		if done != nil {
			done(row)
		}
	}
	return rows, nil
}

// table1Config is the IVM paper's §4.2 learning protocol for the ten one-vs-rest
// classifiers: d active points, iters outer iterations of Algorithm 2 with at most kIters
// kernel and nIters noise steps, the eq. 32 objective, every iteration accepted, the
// entropy criterion, inputs as given.
func table1Config(spec string, d, iters, kIters, nIters, workers int) ivm.Config {
	return ivm.Config{Task: ivm.MultiClass, Kernel: spec, ActiveSize: d, Scale: dataset.ScaleNone,
		Workers: workers, Criterion: engine.CriterionEntropy,
		Learn: engine.LearnOptions{Iters: iters, KernelIters: kIters, NoiseIters: nIters,
			Objective: engine.FixedSites, LastIterate: true}}
}

func runUSPSTable1(w io.Writer, c Config) error {
	// Each kernel's rows are printed as soon as they are done: the full run takes long.
	_, err := uspsTable1(c, func(r USPSRow) { writeUSPSTable1(w, []USPSRow{r}, c.Quick) })
	return err
}

func writeUSPSTable1(w io.Writer, rows []USPSRow, quick bool) {
	fmt.Fprintln(w,
		"USPS (IVM paper Table 1): % test error of each digit against the rest, and of the "+
			"ten-class classifier")
	fmt.Fprintf(w, "%-14s", "kernel")
	for k := 0; k < 10; k++ {
		fmt.Fprintf(w, " %6d", k)
	}
	fmt.Fprintf(w, " %8s %8s %8s\n", "overall", "seconds", "peak MB")
	for _, r := range rows {
		fmt.Fprintf(w, "%-14s", r.Kernel+" (ivm)")
		for _, e := range r.Errors[:10] {
			fmt.Fprintf(w, " %6.3f", e)
		}
		fmt.Fprintf(w, " %8.2f %8.0f %8.0f\n", r.Errors[10], r.Seconds, r.PeakMB)
		paper := paperTable1[r.Kernel]
		fmt.Fprintf(w, "%-14s", r.Kernel+" (paper)")
		for _, e := range paper[:10] {
			fmt.Fprintf(w, " %6.3f", e)
		}
		fmt.Fprintf(w, " %8.2f\n", paper[10])
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s: ten-class error %.2f %% by the largest probability (above), "+
			"%.2f %% by the largest latent mean\n", r.Kernel, r.Errors[10], r.ByMean)
		limit := "GOMEMLIMIT as set"
		if r.LimitMB > 0 {
			limit = fmt.Sprintf("Go's soft memory limit %.0f MB", r.LimitMB)
		}
		fmt.Fprintf(w,
			"%s: peak RSS so far %.0f MB; bound for the classifiers trained at once %.0f MB (%s)\n",
			r.Kernel, r.PeakMB, r.BoundMB, limit)
	}
	if quick {
		fmt.Fprintln(w,
			"(quick: 1000 training images, d = 100, one short iteration; the paper's figures "+
				"are for the full protocol)")
	}
}

// oneVsRestError is the % error of the ten-class decision that gives each test point i the
// class c with the largest p(y = +1) of its one-vs-rest classifier, prob(i, c).
func oneVsRestError(prob func(i, c int) float64, classes, y []float64) float64 {
	e := 0.0
	for i, yi := range y {
		best := 0
		for c := range classes {
			if prob(i, c) > prob(i, best) {
				best = c
			}
		}
		if classes[best] != yi {
			e += 100 / float64(len(y))
		}
	}
	return e
}

// ivmModels returns p's one-vs-rest models, or its single model; nil for other kinds.
func ivmModels(p *ivm.Predictor) []*engine.Model {
	switch k := p.Kind.(type) {
	case *ivm.OneVsRestKind:
		return k.Models
	case *ivm.SingleKind:
		return []*engine.Model{k.Model}
	}
	return nil
}
