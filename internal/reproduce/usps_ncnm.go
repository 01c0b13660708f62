package reproduce

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/data"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
)

func init() {
	register(Experiment{Name: "usps-ncnm",
		Title: "Extensions paper Tables 1–2: semi-supervised USPS with the null category " +
			"noise model",
		Run: runUSPSNCNM})
}

// ncnmFractions are the labelled fractions r of the extensions paper's Tables 1 and 2.
var ncnmFractions = []float64{0.01, 0.025, 0.05, 0.1, 0.25}

// paperNCNM holds the extensions paper's Tables 1 (kernel learnt) and 2 (kernel from a
// fully supervised IVM): mean and sd of the % test error per digit and overall, one row per
// fraction. NaN marks figures the paper's printed table does not legibly give (Table 1,
// digits 5–9 and overall at r = 0.1 and 0.25). Table 2's overall at r = 0.025 is printed
// "140 ± 6.06"; 14.0 is meant (it lies between 42.3 and 8.43).
var paperNCNM = map[string][5][2][11]float64{
	"learnt": {
		{{17.9, 7.99, 9.87, 8.27, 9.97, 7.97, 8.47, 7.32, 8.27, 8.82, 83.3}, {
			0, 6.48, 0, 0, 0, 0, 0, 0, 0, 0, 7.30}},
		{{11.4, 0.977, 9.87, 6.51, 9.97, 7.97, 8.47, 7.32, 8.27, 8.82, 64.2}, {
			8.81, 0.10, 0, 2.43, 0, 0, 0, 0, 0, 0, 5.08}},
		{{1.72, 1.01, 3.66, 5.35, 7.41, 7.11, 8.47, 7.32, 7.42, 7.60, 33.3}, {
			0.21, 0.10, 0.40, 2.67, 3.50, 1.94, 0, 0, 1.89, 2.72, 7.15}},
		{{1.73, 0.947, 3.17, 3.24, 3.33, nan, nan, nan, nan, nan, nan}, {
			0.14, 0.14, 0.23, 0.30, 0.30, nan, nan, nan, nan, nan, nan}},
		{{1.63, 0.967, 2.50, 2.90, 2.77, nan, nan, nan, nan, nan, nan}, {
			0.16, 0.09, 0.18, 0.20, 0.08, nan, nan, nan, nan, nan, nan}},
	},
	"fixed": {
		{{3.17, 13.3, 9.87, 3.09, 8.32, 7.50, 7.70, 12.3, 7.48, 35.2, 42.3}, {
			5.17, 14.18, 0, 0.22, 2.63, 0.99, 8.48, 16.91, 1.23, 22.90, 10.05}},
		{{1.50, 1.52, 5.18, 2.90, 4.36, 5.03, 1.60, 1.93, 4.32, 9.93, 14.0}, {
			0.18, 0.87, 1.95, 0.19, 2.08, 1.30, 0.15, 1.90, 0.45, 8.51, 6.06}},
		{{1.50, 1.24, 3.37, 2.85, 3.27, 3.63, 1.49, 1.28, 4.07, 2.59, 8.43}, {
			0.15, 0.22, 0.35, 0.14, 0.19, 0.56, 0.11, 0.09, 0.43, 1.33, 0.66}},
		{{1.46, 1.24, 2.82, 2.75, 3.07, 2.75, 1.30, 1.30, 3.48, 1.97, 7.24}, {
			0.09, 0.13, 0.16, 0.19, 0.22, 0.22, 0.10, 0.14, 0.26, 0.24, 0.51}},
		{{1.40, 1.31, 2.44, 2.61, 2.80, 2.32, 1.15, 1.15, 2.74, 1.62, 6.10}, {
			0.15, 0.16, 0.21, 0.19, 0.16, 0.19, 0.10, 0.05, 0.19, 0.16, 0.41}},
	},
}

var nan = math.NaN()

// NCNMResult is one experiment of usps-ncnm: for every labelled fraction, every run's
// twelve errors: ten binary, the ten-class error (largest p(y = +1)), and the ten-class
// error by the largest latent mean.
type NCNMResult struct {
	Kernel    string // "learnt" (Table 1) or "fixed" (Table 2)
	Fractions []float64
	Errors    [][][12]float64 // [fraction][run]
	Seconds   float64
}

// ncnmKernel is the extensions paper's USPS kernel, rbf with a linear component (plus bias
// and white), starting from the inverse width 1/128 as usps-table1 does.
const ncnmKernel = "rbf(gamma=0.0078125)+lin(variance=0.01)+bias+white"

// ncnmOnly parses usps-ncnm's -only: "learnt" (Table 1), "fixed" (Table 2) and labelled
// fractions among the paper's r (e.g. "learnt,0.25"); no kind means both, no fraction all.
func ncnmOnly(only string) (kinds []string, fractions []float64, err error) {
	if only == "" {
		return []string{"learnt", "fixed"}, nil, nil
	}
	for _, f := range strings.Split(only, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "learnt", "fixed":
			kinds = append(kinds, f)
			continue
		}
		r, perr := strconv.ParseFloat(f, 64)
		if perr != nil || !slices.Contains(ncnmFractions, r) {
			return nil, nil, fmt.Errorf("usps-ncnm: -only %q: %q is neither learnt (Table 1), "+
				"fixed (Table 2) nor one of the paper's fractions %v", only, f, ncnmFractions)
		}
		fractions = append(fractions, r)
	}
	if kinds == nil {
		kinds = []string{"learnt", "fixed"}
	}
	return kinds, fractions, nil
}

// ncnmSeedIndex is r's index in ncnmFractions (fi, its index in the run's own list, when r
// is not one of them).
func ncnmSeedIndex(r float64, fi int) int {
	if k := slices.Index(ncnmFractions, r); k >= 0 {
		return k
	}
	return fi
}

// USPSNCNM runs the extensions paper's §4.5 protocol. For each labelled fraction r and each of ten
// runs, a random r of the training images keep their labels (seeded by run and r, the same
// labelling for every digit); each digit against the rest is then a semi-supervised problem for the
// null category noise model with d = 500 (the paper does not state d; 500 is the IVM paper's USPS
// choice). "learnt" (Table 1) learns the kernel by 8 iterations of the paper's Algorithm 2 (eq. 32,
// every iteration accepted); "fixed" (Table 2) keeps the kernel learnt by a fully supervised IVM on
// all labels (the usps-table1 protocol, once per digit). The ten-class error combines the ten
// classifiers by their largest p(y = +1). Quick: the first 1000 images, r = 0.25 only, one run, d =
// 100, one iteration, a check that the experiment runs rather than a reproduction (its errors lie
// well above the paper's; at smaller r some digits find no boundary, as in the paper).
func USPSNCNM(c Config) ([]NCNMResult, error) {
	train, test, err := data.USPS()
	if err != nil {
		return nil, err
	}
	x, y := train.X, train.Y
	fractions, runs, d, iters, supIters := ncnmFractions, 10, 500, 8, 5
	if c.Quick {
		x, y = x.Slice(0, 1000, 0, 256).(*mat.Dense), y[:1000]
		fractions, runs, d, iters, supIters = []float64{0.25}, 1, 100, 1, 1
	}
	if c.Runs > 0 {
		runs = c.Runs
	}
	seed := uint64(c.Seed)
	if seed == 0 {
		seed = 1
	}
	workers := workersOr(c, 2)
	logf := func(format string, a ...any) {
		if c.Log != nil {
			fmt.Fprintf(c.Log, format, a...)
		}
	}

	kinds, only, err := ncnmOnly(c.Only)
	if err != nil {
		return nil, err
	}
	if only != nil {
		fractions = only
	}
	// Table 2's kernels: a fully supervised IVM per digit.
	classes := slices.Compact(slices.Sorted(slices.Values(y)))
	supervised := make([]string, len(classes))
	if slices.Contains(kinds, "fixed") {
		start := time.Now()
		sup, err := ivm.Fit(x, y, ivm.Config{Task: ivm.MultiClass, Kernel: ncnmKernel,
			ActiveSize: d, Scale: dataset.ScaleNone, Criterion: engine.CriterionEntropy,
			Workers: c.Workers,
			Learn: engine.LearnOptions{Iters: supIters, NoiseIters: 20,
				Objective: engine.FixedSites, LastIterate: true}})
		if err != nil {
			return nil, fmt.Errorf("usps-ncnm: supervised kernels: %w", err)
		}
		for k, m := range ivmModels(sup) {
			s, ok := m.Kernel.(fmt.Stringer)
			if !ok {
				return nil, fmt.Errorf("usps-ncnm: supervised kernel %s cannot be written "+
					"as a spec", m.Kernel.Name())
			}
			supervised[k] = s.String()
		}
		logf("usps-ncnm: supervised kernels learnt in %.0f s\n", time.Since(start).Seconds())
	}

	var out []NCNMResult
	for _, kind := range kinds {
		res := NCNMResult{Kernel: kind, Fractions: fractions}
		start := time.Now()
		for fi, r := range fractions {
			var perRun [][12]float64
			for run := 0; run < runs; run++ {
				// Seeded by r's place in the paper's list, so that -only 0.25 draws the
				// labellings a full run draws.
				rng := rand.New(rand.NewPCG(seed, uint64(ncnmSeedIndex(r, fi)*1000+run)))
				labelled := make([]bool, len(y))
				for i := range labelled {
					labelled[i] = rng.Float64() < r
				}
				errs, err := ncnmRun(x, y, test.X, test.Y, labelled, classes, kind, supervised,
					d, iters, workers)
				if err != nil {
					return nil, fmt.Errorf("usps-ncnm %s r = %g run %d: %w", kind, r, run+1, err)
				}
				logf("usps-ncnm %s: r = %g, run %d: overall %.2f %%\n", kind, r, run+1, errs[10])
				perRun = append(perRun, errs)
			}
			res.Errors = append(res.Errors, perRun)
		}
		res.Seconds = time.Since(start).Seconds()
		out = append(out, res)
	}
	return out, nil
}

// ncnmRun trains the ten one-vs-rest null category models of one labelling and returns
// their binary test errors and the ten-class error.
func ncnmRun(x *mat.Dense, y []float64, xt *mat.Dense, yt []float64, labelled []bool,
	classes []float64, kind string, supervised []string,
	d, iters, workers int) ([12]float64, error) {
	var errs [12]float64
	nt := len(yt)
	probs := make([][]float64, len(classes))
	means := make([][]float64, len(classes))
	err := pool.ForEachErr(len(classes), workers, func(ci int) error {
		cl := classes[ci]
		yc := make([]float64, len(y))
		for i, v := range y {
			switch {
			case !labelled[i]:
				yc[i] = math.NaN()
			case v == cl:
				yc[i] = 1
			default:
				yc[i] = -1
			}
		}
		// ZeroBias: the paper's null category likelihood (§4.1) has no bias, and the
		// authors' toolbox demos set it to 0 for this model. The reference toolbox's start
		// Φ⁻¹(labelled positive fraction) gives ten-class errors within the labellings'
		// spread of these either way, so the paper's model is kept (bench/RESULTS.md
		// records the runs).
		// Learn: the paper's Algorithm 2 — the eq. 32 objective with the sites of the
		// last selection held fixed, every outer iteration accepted — as usps-table1
		// uses. The library's default (the EP objective over active and held-out
		// points, held-out safeguard) gives a higher ten-class error here and takes
		// longer.
		cfg := ivm.Config{Task: ivm.SemiSupervised, Kernel: ncnmKernel, ActiveSize: d,
			Scale: dataset.ScaleNone, Workers: 1,
			ZeroBias: true, Learn: engine.LearnOptions{Iters: iters, Objective: engine.FixedSites,
				LastIterate: true}}
		if kind == "fixed" {
			cfg.Kernel, cfg.FixedKernel = supervised[ci], true
		}
		p, err := ivm.Fit(x, yc, cfg)
		if err != nil {
			return err
		}
		preds, err := p.Predict(xt)
		if err != nil {
			return err
		}
		pos := len(p.Classes) - 1 // classes sorted: −1, +1
		probs[ci], means[ci] = make([]float64, nt), make([]float64, nt)
		for i, q := range preds {
			probs[ci][i], means[ci][i] = q.Prob[pos], q.Latent[0]
			if (q.Label > 0) != (yt[i] == cl) {
				errs[ci] += 100 / float64(nt)
			}
		}
		return nil
	})
	if err != nil {
		return errs, err
	}
	errs[10] = oneVsRestError(func(i, c int) float64 { return probs[c][i] }, classes, yt)
	errs[11] = oneVsRestError(func(i, c int) float64 { return means[c][i] }, classes, yt)
	return errs, nil
}

func runUSPSNCNM(w io.Writer, c Config) error {
	res, err := USPSNCNM(c)
	if err != nil {
		return err
	}
	writeUSPSNCNM(w, res, c.Quick)
	return nil
}

func writeUSPSNCNM(w io.Writer, res []NCNMResult, quick bool) {
	for _, r := range res {
		table := 1
		what := "kernel learnt by 8 iterations of Algorithm 2"
		if r.Kernel == "fixed" {
			table, what = 2, "kernel from a fully supervised IVM"
		}
		fmt.Fprintf(w, "Semi-supervised USPS, null category noise model "+
			"(extensions paper Table %d: %s)\n", table, what)
		fmt.Fprintf(w, "%% test error, mean ± sd over the runs; %.0f s\n", r.Seconds)
		fmt.Fprintf(w, "%-13s", "r")
		for k := 0; k < 10; k++ {
			fmt.Fprintf(w, " %12d", k)
		}
		fmt.Fprintf(w, " %12s %12s\n", "overall", "by mean")
		for fi, frac := range r.Fractions {
			fmt.Fprintf(w, "%-13s", fmt.Sprintf("%g (ivm)", frac))
			for j := 0; j < 12; j++ {
				col := make([]float64, len(r.Errors[fi]))
				for k := range col {
					col[k] = r.Errors[fi][k][j]
				}
				mean := stat.Mean(col, nil)
				if len(col) < 2 {
					// One run has no spread to report.
					fmt.Fprintf(w, " %5.2f ±    -", mean)
					continue
				}
				fmt.Fprintf(w, " %5.2f ± %4.2f", mean, math.Sqrt(stat.Variance(col, nil)))
			}
			fmt.Fprintln(w)
			pi := -1
			for k, f := range ncnmFractions {
				if f == frac {
					pi = k
				}
			}
			if pi < 0 {
				continue
			}
			p := paperNCNM[r.Kernel][pi]
			fmt.Fprintf(w, "%-13s", fmt.Sprintf("%g (paper)", frac))
			for j := 0; j < 11; j++ {
				if math.IsNaN(p[0][j]) {
					fmt.Fprintf(w, " %12s", "—")
					continue
				}
				fmt.Fprintf(w, " %5.2f ± %4.2f", p[0][j], p[1][j])
			}
			fmt.Fprintln(w)
		}
	}
	if quick {
		fmt.Fprintln(w,
			"(quick: 1000 training images, r = 0.25, one run, d = 100, one iteration; the "+
				"paper's figures are for the full protocol)")
	}
}
