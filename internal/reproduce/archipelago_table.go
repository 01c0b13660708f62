package reproduce

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/safestat"
)

// archMethods are the columns of Table 1, in the paper's order.
var archMethods = []string{"Arch", "SmGP", "PrGP", "NCNM"}

// archPaperTable1 holds the paper's Table 1: for each problem and labels per
// class, the error and perplexity of Arch, SmGP, PrGP and NCNM (in that order,
// err then perp). The oil NCNM perplexity at one label, printed "3.56K", is 3560.
var archPaperTable1 = map[string]map[int][8]float64{
	"Toy3": {
		1: {0.167, 1.461, 0.347, 2.588, 0.290, 1.631, 0.612, 14.120},
		2: {0.111, 1.565, 0.312, 2.769, 0.279, 1.350, 0.462, 4.801},
		4: {0.042, 1.092, 0.118, 1.310, 0.142, 1.041, 0.114, 1.002},
		8: {0.037, 1.070, 0.056, 1.065, 0.137, 1.043, 0.070, 1.000},
	},
	"Toy4": {
		1: {0.120, 2.478, 0.305, 3.436, 0.416, 1.239, 0.554, 16.160},
		2: {0.092, 2.471, 0.188, 2.861, 0.253, 7.896, 0.429, 8.257},
		4: {0.032, 1.469, 0.119, 1.505, 0.077, 1.343, 0.056, 1.113},
		8: {0.025, 1.135, 0.061, 1.076, 0.088, 1.086, 0.0533, 1.009},
	},
	"Toy5": {
		1: {0.183, 3.766, 0.192, 4.519, 0.515, 3.533, 0.482, 294.758},
		2: {0.124, 2.811, 0.181, 2.008, 0.178, 1.476, 0.365, 11.669},
		4: {0.081, 2.345, 0.159, 1.730, 0.113, 1.375, 0.093, 1.210},
		8: {0.051, 2.105, 0.095, 1.290, 0.073, 1.201, 0.051, 1.093},
	},
	"Wine": {
		1: {0.141, 1.928, 0.260, 2.790, 0.303, 1.769, 0.393, 31.832},
		2: {0.135, 2.654, 0.292, 2.760, 0.213, 2.851, 0.393, 2.799},
		4: {0.090, 1.198, 0.146, 2.440, 0.101, 1.387, 0.101, 1.153},
		8: {0.0899, 1.084, 0.067, 1.250, 0.067, 1.224, 0.067, 1.045},
	},
	"Oil": {
		1: {0.538, 2.997, 0.568, 3.024, 0.432, 5.631, 0.650, 3560},
		2: {0.297, 2.451, 0.331, 2.576, 0.308, 3.499, 0.365, 1.024},
		4: {0.211, 1.658, 0.215, 1.864, 0.271, 2.558, 0.176, 1.301},
		8: {0.068, 1.241, 0.053, 1.137, 0.068, 1.232, 0.038, 1.002},
	},
}

// archCellOptions configures one Table 1 cell.
type archCellOptions struct {
	// Labellings is the number of random labellings (default 10).
	Labellings int
	// Sampler configures the Archipelago and softmax GP chains (its Seed is
	// replaced per labelling; ARD is taken from the problem).
	Sampler archipelago.Options
	// Methods restricts the methods run (default all of Methods).
	Methods []string
	// Workers runs labellings in parallel (default 1).
	Workers int
	// Chains is the number of independent Archipelago and softmax GP chains per
	// labelling (default 1); their samples are pooled, so the prediction is the
	// average of the chains' predictive distributions (each chain keeps as many
	// samples). Several short chains guard against one that stays in a poor
	// region, e.g. Archipelago's flat state with g ≈ 0 on the 50-point pinwheels.
	Chains int
	// Seed seeds the labellings.
	Seed uint64
	// Log receives one line per finished labelling (may be nil).
	Log io.Writer
}

// archCell is the result of one problem at one number of labels per class.
type archCell struct {
	Problem  string
	PerClass int
	// Err and Perp hold one value per labelling for each method.
	Err, Perp map[string][]float64
	// Rejections is the mean number of latent rejections after burn-in, per labelling.
	Rejections []float64
	Notes      []string
	Wall       time.Duration
}

// archRunCell runs every method on opt.Labellings random labellings of p with
// perClass labels per class and evaluates them on p's test set.
func archRunCell(p *archProblem, perClass int, opt archCellOptions) (*archCell, error) {
	if opt.Labellings == 0 {
		opt.Labellings = 10
	}
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	methods := opt.Methods
	if len(methods) == 0 {
		methods = archMethods
	}
	labs, err := archLabellings(p, perClass, opt.Labellings, opt.Seed)
	if err != nil {
		return nil, err
	}
	c := &archCell{Problem: p.Name, PerClass: perClass, Err: map[string][]float64{},
		Perp:       map[string][]float64{},
		Rejections: make([]float64, opt.Labellings)}
	for _, m := range methods {
		c.Err[m] = make([]float64, opt.Labellings)
		c.Perp[m] = make([]float64, opt.Labellings)
	}
	start := time.Now()
	var mu sync.Mutex // guards c and the log
	err = pool.ForEachErr(len(labs), opt.Workers, func(r int) error {
		res, notes, rej, err := archRunLabelling(p, labs[r], methods, opt.Sampler,
			archChainSeed(opt.Seed, r), opt.Chains)
		mu.Lock()
		defer mu.Unlock()
		for m, v := range res {
			c.Err[m][r], c.Perp[m][r] = v[0], v[1]
		}
		c.Rejections[r] = rej
		for _, n := range notes {
			c.Notes = append(c.Notes, fmt.Sprintf("labelling %d: %s", r, n))
		}
		if err != nil {
			return fmt.Errorf("%s, %d per class, labelling %d: %w", p.Name, perClass, r, err)
		}
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "%s %d/class labelling %d:", p.Name, perClass, r)
			for _, m := range methods {
				fmt.Fprintf(opt.Log, " %s %.3f/%s", m, res[m][0], archFmtStat(res[m][1]))
			}
			fmt.Fprintf(opt.Log, " (M ≈ %.0f, %s)\n", rej, time.Since(start).Round(time.Second))
		}
		return nil
	})
	c.Wall = time.Since(start)
	return c, err
}

// archLabellings draws the n labellings of archRunCell(p, perClass, {Seed: seed}), in
// order: perClass labelled rows per class, the rest −1.
func archLabellings(p *archProblem, perClass, n int, seed uint64) ([][]int, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(perClass)))
	labs := make([][]int, n)
	for r := range labs {
		var err error
		if labs[r], err = p.Labelling(perClass, rng); err != nil {
			return nil, err
		}
	}
	return labs, nil
}

// archChainSeed is the seed archRunCell gives the chains (and the IVM comparators) of
// labelling r of a cell seeded with cellSeed.
func archChainSeed(cellSeed uint64, r int) uint64 { return cellSeed*1000 + uint64(r) + 1 }

// archRunChain runs the Archipelago ("Arch") or softmax GP ("SmGP") chain of a
// Table-1 cell on p with the given labels: so as given, ARD as the paper used
// for p.
func archRunChain(method string, p *archProblem, labels []int,
	so archipelago.Options) (*archipelago.Chain, error) {
	so.ARD = p.ARD
	var sp *archipelago.Sampler
	var err error
	switch method {
	case "Arch":
		sp, err = archipelago.NewArchipelago(p.Train, labels, p.Classes, so)
	case "SmGP":
		sp, err = archipelago.NewSoftmaxGP(p.Train, labels, p.Classes, so)
	default:
		return nil, fmt.Errorf("archipelago: %q is not a sampled method (Arch, SmGP)", method)
	}
	if err != nil {
		return nil, err
	}
	return sp.Run()
}

// runLabelling runs the methods on one labelling and returns error and
// perplexity per method and the mean number of rejections of the Archipelago chain.
func archRunLabelling(p *archProblem, labels []int, methods []string, so archipelago.Options,
	seed uint64, chains int) (map[string][2]float64, []string, float64, error) {
	chains = max(chains, 1)
	out := map[string][2]float64{}
	var notes []string
	var rej float64
	so.Seed = seed
	so.Progress = nil
	for _, m := range methods {
		var probs [][]float64
		var err error
		switch m {
		case "Arch", "SmGP":
			for c := 0; c < chains; c++ {
				cs := so
				cs.Seed = extraChainSeed(seed, c)
				ch, err := archRunChain(m, p, labels, cs)
				if err != nil {
					return nil, nil, 0, fmt.Errorf("%s: %w", m, err)
				}
				if m == "Arch" {
					for _, s := range ch.Samples {
						rej += float64(s.Rejections) / float64(len(ch.Samples)*chains)
					}
					if ch.Stats.Jitter > 0 {
						notes = append(notes, fmt.Sprintf("Arch: jitter added %d times (max %.2g)",
							ch.Stats.Jitter, ch.Stats.MaxJitter))
					}
				}
				pc, err := ch.Predict(p.Test, cs.Seed)
				if err != nil {
					return nil, nil, 0, fmt.Errorf("%s: %w", m, err)
				}
				if c == 0 {
					probs = pc
					continue
				}
				for i := range probs {
					for k := range probs[i] {
						probs[i][k] += pc[i][k]
					}
				}
			}
			if chains > 1 {
				for i := range probs {
					for k := range probs[i] {
						probs[i][k] /= float64(chains)
					}
				}
			}
		case "PrGP", "NCNM":
			kind := ivmProbit
			if m == "NCNM" {
				kind = ivmNullCategory
			}
			var ns []string
			probs, ns, err = oneVsRest(kind, p.Train, labels, p.Classes, p.Test,
				ivmOptions{ARD: p.ARD, Seed: seed})
			for _, n := range ns {
				notes = append(notes, m+": "+n)
			}
			if err != nil {
				// A comparator that cannot be fitted on this labelling is reported
				// and left out of the mean, not allowed to stop the table.
				notes = append(notes, fmt.Sprintf("%s failed: %v", m, err))
				out[m] = [2]float64{math.NaN(), math.NaN()}
				continue
			}
		default:
			return nil, nil, 0, fmt.Errorf("archipelago: unknown method %q", m)
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", m, err)
		}
		e, pp, err := archipelago.Evaluate(probs, p.TestY)
		if err != nil {
			return nil, nil, 0, err
		}
		out[m] = [2]float64{e, pp}
	}
	return out, notes, rej, nil
}

// extraChainSeed is the seed of chain c of a labelling whose first chain has seed:
// seed itself for c = 0 (so one chain per labelling gives the chains it always gave),
// a distinct odd multiple of the golden-ratio constant mixed in otherwise.
func extraChainSeed(seed uint64, c int) uint64 {
	if c == 0 {
		return seed
	}
	return seed ^ (uint64(c) * 0x9e3779b97f4a7c15)
}

// meanSDNoNaN returns the mean and sample standard deviation of the non-NaN values (a
// comparator that failed on a labelling leaves NaN, reported beside the mean).
func meanSDNoNaN(v []float64) (mean, sd float64) {
	var f []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			f = append(f, x)
		}
	}
	return safestat.MeanSD(f, 1)
}

// archWriteCell prints a cell's error and perplexity rows, mean ± sd over the
// labellings with the paper's figure in brackets.
func archWriteCell(w io.Writer, c *archCell) {
	paper, havePaper := archPaperTable1[c.Problem][c.PerClass]
	for row, name := range []string{"err", "perp"} {
		fmt.Fprintf(w, "%-5s %2d %-4s", c.Problem, c.PerClass, name)
		for mi, m := range archMethods {
			vals := c.Err[m]
			if row == 1 {
				vals = c.Perp[m]
			}
			if vals == nil {
				fmt.Fprintf(w, " | %-24s", "—")
				continue
			}
			mean, sd := meanSDNoNaN(vals)
			cell := archFmtStat(mean) + "±" + archFmtStat(sd)
			if nf := archCountNaN(vals); nf > 0 {
				cell += fmt.Sprintf("[%d failed]", nf)
			}
			if havePaper {
				cell += fmt.Sprintf(" (%.3f)", paper[2*mi+row])
			}
			fmt.Fprintf(w, " | %-24s", cell)
		}
		fmt.Fprintln(w)
	}
}

// fmtStat prints an error or perplexity with three decimals, and in exponent form once it
// is too large for that to be readable: a classifier that gives a test point's class a
// probability near the 1e−300 floor has a perplexity in the hundreds of digits.
func archFmtStat(v float64) string {
	if math.Abs(v) >= 1e6 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func archCountNaN(v []float64) int {
	n := 0
	for _, x := range v {
		if math.IsNaN(x) {
			n++
		}
	}
	return n
}
