package reproduce

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// refOptRun is one of the reference toolbox's kernel-learning runs (testdata/ref/runs/*_opt_*).
type refOptRun struct {
	name, train, test, noise, kernel string
	d, noiseIters                    int
}

const refKernel = "rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)" +
	"+white(variance=0.1353352832366127)"

var refOptRuns = []refOptRun{
	{"class500_d100_opt", "class_train_500.csv", "class_test_2000.csv",
		"probit", refKernel, 100, 0},
	{"class500_d200_opt", "class_train_500.csv", "class_test_2000.csv",
		"probit", refKernel, 200, 0},
	{"class5000_d100_opt", "class_train_5000.csv", "class_test_2000.csv",
		"probit", refKernel, 100, 0},
	{"class5000_d200_opt", "class_train_5000.csv", "class_test_2000.csv",
		"probit", refKernel, 200, 0},
	{"reg2000_d100_opt", "reg_train_2000.csv", "reg_test_1000.csv",
		"gaussian", refKernel, 100, 0},
	{"ord500_d100_opt", "ord_train_500.csv", "ord_test_1000.csv",
		"ordinal", refKernel, 100, 100},
}

func init() {
	register(Experiment{Name: "ref-opt",
		Title: "Kernel learning on the reference toolbox's opt runs",
		Run:   runRefOpt, NeedsRef: true})
}

// RefOptResult is one row of the ref-opt table.
type RefOptResult struct {
	Run                 string
	Metric              string  // "error" or "RMSE"
	Ours, Reference     float64 // test error (fraction) or RMSE
	Seconds, RefSeconds float64
	Iterations          int // outer iterations run (accepted or not)
	Kernel              string
	// KernelParams are the learnt natural kernel parameters (rbf γ, rbf variance, bias, white).
	KernelParams []float64
}

// RefOpt runs Learn with the command line's defaults on each opt run of the reference and
// compares test error (RMSE for regression) and time.
func RefOpt(c Config) ([]RefOptResult, error) {
	var out []RefOptResult
	for _, r := range refOptRuns {
		if c.Quick && (strings.HasPrefix(r.name, "class5000") || r.name == "class500_d200_opt") {
			continue
		}
		res, err := runOne(c, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		out = append(out, res)
		if c.Log != nil {
			fmt.Fprintf(c.Log, "%s: %s %.4f (reference %.4f) in %.1f s\n",
				r.name, res.Metric, res.Ours, res.Reference, res.Seconds)
		}
	}
	return out, nil
}

func runOne(c Config, r refOptRun) (RefOptResult, error) {
	x, y, err := reftest.ReadXYFrom(c.RefDir, r.train)
	if err != nil {
		return RefOptResult{}, err
	}
	xt, yt, err := reftest.ReadXYFrom(c.RefDir, r.test)
	if err != nil {
		return RefOptResult{}, err
	}
	sum, err := reftest.ReadSummaryFrom(c.RefDir, r.name)
	if err != nil {
		return RefOptResult{}, err
	}
	_, dim := x.Dims()
	k, err := kern.Parse(r.kernel, dim)
	if err != nil {
		return RefOptResult{}, err
	}
	nm, err := noise.ByName(r.noise)
	if err != nil {
		return RefOptResult{}, err
	}
	// The command line's default criterion: expected entropy for binary probit, entropy
	// otherwise (cmd/ivm, -criterion auto).
	crit := engine.Entropy
	if r.noise == "probit" {
		crit = engine.ExpectedEntropy
	}
	start := time.Now()
	m, lr, err := engine.Learn(x, y, k, nm, engine.LearnOptions{ActiveSize: r.d,
		NoiseIters: r.noiseIters,
		Criterion:  crit, Workers: c.Workers})
	if err != nil {
		return RefOptResult{}, err
	}
	res := RefOptResult{Run: r.name, Seconds: time.Since(start).Seconds(),
		Iterations: len(lr.Trace) - 1, Kernel: k.String(),
		KernelParams: make([]float64, k.NumParams())}
	k.Params(res.KernelParams)
	if t, err := reftest.Floats(sum["time_total_s"]); err == nil && len(t) > 0 {
		res.RefSeconds = t[0]
	}
	preds := m.Predict(xt)
	if r.noise == "gaussian" {
		se := 0.0
		for i, p := range preds {
			se += (p.Mean - yt[i]) * (p.Mean - yt[i])
		}
		res.Metric, res.Ours = "RMSE", math.Sqrt(se/float64(len(yt)))
		v, _ := reftest.Floats(sum["test_rmse"])
		res.Reference = v[0]
		return res, nil
	}
	wrong := 0
	for i, p := range preds {
		if p.Label != yt[i] {
			wrong++
		}
	}
	res.Metric, res.Ours = "error", float64(wrong)/float64(len(yt))
	v, _ := reftest.Floats(sum["test_error"])
	res.Reference = v[0]
	return res, nil
}

func runRefOpt(w io.Writer, c Config) error {
	rows, err := RefOpt(c)
	if err != nil {
		return err
	}
	fmt.Fprintln(w,
		"Kernel learning (Algorithm 2, ivm train's defaults) on the reference toolbox's opt runs")
	fmt.Fprintf(w, "%-20s %-6s %10s %10s %9s %9s  %s\n",
		"run", "metric", "ivm", "reference", "ivm s", "ref s", "learnt kernel")
	for _, r := range rows {
		fmt.Fprintf(w, "%-20s %-6s %10.4f %10.4f %9.2f %9.2f  %s\n",
			r.Run, r.Metric, r.Ours, r.Reference, r.Seconds, r.RefSeconds, r.Kernel)
	}
	return nil
}
