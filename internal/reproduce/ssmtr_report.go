package reproduce

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/ivmlab/ivm/internal/safestat"
	"github.com/ivmlab/ivm/ssmtr"
)

// PaperFigure is a published mean ± sd.
type PaperFigure struct{ Mean, SD float64 }

// PaperTable holds a table of the paper: transductive and inductive nMSE per method.
type PaperTable map[ssmtr.Method][2]PaperFigure

// PaperSARCOS is Table 1 of the paper.
var PaperSARCOS = PaperTable{
	ssmtr.SSTR:    {{1.0228, 0.1318}, {1.0270, 0.1450}},
	ssmtr.SMTR:    {{0.4149, 0.1109}, {0.4368, 0.1020}},
	ssmtr.SSMTR:   {{0.3810, 0.1080}, {0.3905, 0.1123}},
	ssmtr.SSMTRPI: {{0.3500, 0.1088}, {0.3486, 0.1010}},
}

// PaperSchool is Table 2 of the paper.
var PaperSchool = PaperTable{
	ssmtr.SSTR:    {{1.2914, 0.3146}, {1.3240, 0.3274}},
	ssmtr.SMTR:    {{1.1151, 0.3025}, {1.1535, 0.3128}},
	ssmtr.SSMTR:   {{1.0506, 0.2804}, {1.0612, 0.2813}},
	ssmtr.SSMTRPI: {{0.9817, 0.2809}, {0.9824, 0.2832}},
}

// ExperimentConfig configures RunExperiment.
type ExperimentConfig struct {
	// Data is "sarcos" or "school"; DataDir holds sarcos/ and school/.
	Data, DataDir string
	// Splits is the number of random splits; Seed seeds them (split s uses PCG(Seed, s)).
	Splits int
	Seed   uint64
	// PerTask is the number of SARCOS points drawn per task (2000 in the paper).
	PerTask int
	// Protocol overrides the data set's protocol when not nil.
	Protocol *Protocol
	// Options are the fitting options (Method and Targets are set per run).
	Options ssmtr.Config
	// Log receives a line per split (may be nil).
	Log io.Writer
}

// ExperimentResult holds every split's figures, methods in the paper's order.
type ExperimentResult struct {
	Config  ExperimentConfig
	Methods []ssmtr.Method
	Splits  [][]MethodResult // [split][method]
	// PriorMean holds, per split, the nMSE of predicting the models' prior mean
	// (PriorMeanNMSE) in its Trans, Induct, TransPooled and InductPool fields.
	PriorMean []MethodResult
	Tasks     int
}

// Splitter loads c's data set and returns the protocol and a function that draws split s
// (0-based) of it as RunExperiment does: split s is seeded by PCG(c.Seed, s).
func (c ExperimentConfig) Splitter() (Protocol, func(s int) ([]Split, error), error) {
	var draw func(rng *rand.Rand) ([]Split, error)
	var proto Protocol
	switch c.Data {
	case "sarcos":
		x, y, err := LoadSARCOS(filepath.Join(c.DataDir, SARCOSFile))
		if err != nil {
			return proto, nil, err
		}
		proto = SARCOSProtocol
		if c.Protocol != nil {
			proto = *c.Protocol
		}
		per := c.PerTask
		if per == 0 {
			per = 2000
		}
		draw = func(rng *rand.Rand) ([]Split, error) { return SARCOSSplits(x, y, per, proto, rng) }
	case "school":
		xs, ys, err := LoadSchool(filepath.Join(c.DataDir, SchoolFile))
		if err != nil {
			return proto, nil, err
		}
		proto = SchoolProtocol
		if c.Protocol != nil {
			proto = *c.Protocol
		}
		draw = func(rng *rand.Rand) ([]Split, error) { return SchoolSplits(xs, ys, proto, rng) }
	default:
		return proto, nil, fmt.Errorf("ssmtr: unknown data set %q (want sarcos or school)", c.Data)
	}
	return proto, func(s int) ([]Split, error) {
		return draw(rand.New(rand.NewPCG(c.Seed, uint64(s))))
	}, nil
}

// RunExperiment runs the paper's protocol on SARCOS or school.
func RunExperiment(c ExperimentConfig) (*ExperimentResult, error) {
	methods := []ssmtr.Method{ssmtr.SSTR, ssmtr.SMTR, ssmtr.SSMTR, ssmtr.SSMTRPI}
	res := &ExperimentResult{Config: c, Methods: methods}
	proto, draw, err := c.Splitter()
	if err != nil {
		return nil, err
	}
	opt := c.Options
	opt.Targets = proto.Targets
	opt.AlphaPrior = proto.AlphaPrior
	for s := 0; s < c.Splits; s++ {
		splits, err := draw(s)
		if err != nil {
			return nil, err
		}
		res.Tasks = len(splits)
		var ref MethodResult
		ref.Trans, ref.Induct, ref.TransPooled, ref.InductPool = PriorMeanNMSE(splits, opt.Targets)
		res.PriorMean = append(res.PriorMean, ref)
		r, err := RunSplit(splits, methods, opt)
		if err != nil {
			return nil, fmt.Errorf("split %d: %w", s+1, err)
		}
		res.Splits = append(res.Splits, r)
		if c.Log != nil {
			fmt.Fprintf(c.Log, "split %d/%d:", s+1, c.Splits)
			for _, m := range r {
				fmt.Fprintf(c.Log, " %v %.4f/%.4f (%.1fs)",
					m.Method, m.Trans, m.Induct, m.Wall.Seconds())
			}
			fmt.Fprintln(c.Log)
		}
	}
	return res, nil
}

// priorMeanSummary is Summary for the prior-mean reference predictor.
func (r *ExperimentResult) priorMeanSummary(pooled bool) (trans, induct [2]float64) {
	return summarise(r.PriorMean, pooled)
}

// Summary returns the mean and sd over splits of method k's transductive and inductive
// nMSE (pooled: the pooled form).
func (r *ExperimentResult) Summary(k int, pooled bool) (trans, induct [2]float64) {
	col := make([]MethodResult, len(r.Splits))
	for i, s := range r.Splits {
		col[i] = s[k]
	}
	return summarise(col, pooled)
}

// summarise returns the mean and sd of the results' transductive and inductive nMSE.
func summarise(rs []MethodResult, pooled bool) (trans, induct [2]float64) {
	var tv, iv []float64
	for _, s := range rs {
		if pooled {
			tv, iv = append(tv, s.TransPooled), append(iv, s.InductPool)
		} else {
			tv, iv = append(tv, s.Trans), append(iv, s.Induct)
		}
	}
	trans[0], trans[1] = safestat.MeanSD(tv, 1)
	induct[0], induct[1] = safestat.MeanSD(iv, 1)
	if len(rs) < 2 {
		trans[1], induct[1] = math.NaN(), math.NaN() // printed "n/a"
	}
	return
}

// Write prints the table next to the paper's.
func (r *ExperimentResult) Write(w io.Writer, paper PaperTable) {
	fmt.Fprintf(w, "nMSE over %d random splits (%d tasks); per-task nMSE averaged over "+
		"tasks, mean ± sd over splits\n\n", len(r.Splits), r.Tasks)
	fmt.Fprintf(w, "%-8s  %-17s  %-17s    %-17s  %-17s\n", "Method", "Transductive", "Inductive",
		"paper transd.", "paper induct.")
	for k, m := range r.Methods {
		t, i := r.Summary(k, false)
		p := paper[m]
		fmt.Fprintf(w, "%-8v  %s    %s      %.4f ± %.4f    %.4f ± %.4f\n",
			m, fig(t), fig(i), p[0].Mean, p[0].SD, p[1].Mean, p[1].SD)
	}
	t, i := r.priorMeanSummary(false)
	fmt.Fprintf(w, "%-8s  %s    %s      (every point predicted by the labelled mean, "+
		"the models' prior mean)\n", "mean y", fig(t), fig(i))
	fmt.Fprintf(w, "\nPooled nMSE (Σ_t SSE_t / Σ_t n_t var_t), mean ± sd over splits\n")
	for k, m := range r.Methods {
		t, i := r.Summary(k, true)
		fmt.Fprintf(w, "%-8v  %s    %s\n", m, fig(t), fig(i))
	}
	t, i = r.priorMeanSummary(true)
	fmt.Fprintf(w, "%-8s  %s    %s\n", "mean y", fig(t), fig(i))
	fmt.Fprintf(w, "\nTime per split (fit + predict), mean over splits; "+
		"CPU is the process's user+system time\n")
	fmt.Fprintf(w, "(all goroutines), wall time is noisy on a shared machine\n")
	for k, m := range r.Methods {
		var wall, cpu time.Duration
		var ev, outer int
		for _, s := range r.Splits {
			wall += s[k].Wall
			cpu += s[k].CPU
			ev += s[k].Evaluations
			outer += s[k].OuterIters
		}
		n := time.Duration(len(r.Splits))
		fmt.Fprintf(w,
			"%-8v  wall %8.2fs  CPU %8.2fs  objective evaluations %5d  outer iterations %.1f\n", m,
			(wall / n).Seconds(), (cpu / n).Seconds(), ev/len(r.Splits),
			float64(outer)/float64(len(r.Splits)))
	}
}

// fig formats mean ± sd ("n/a" for the sd of a single split).
func fig(v [2]float64) string {
	if math.IsNaN(v[1]) {
		return fmt.Sprintf("%.4f ±    n/a", v[0])
	}
	return fmt.Sprintf("%.4f ± %.4f", v[0], v[1])
}
