package reproduce

import (
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/internal/rusage"
)

// archTableOptions configures archTable1.
type archTableOptions struct {
	// DataDir holds pinwheel/, wine/ and oilflow/.
	DataDir string
	// Problems (default Toy3, Toy4, Toy5, Wine, Oil) and PerClass (default 1, 2, 4, 8).
	Problems []string
	PerClass []int
	// Cell configures each cell (labellings, sampler, workers, seed, log).
	Cell archCellOptions
	// PinwheelChains is the number of chains per labelling on the pinwheels when
	// Cell.Chains is 0 (default 4). A 50-point pinwheel chain takes seconds, and
	// single chains there split between confident and flat states (see
	// archCellOptions.Chains); on wine and oil a chain takes minutes and Cell.Chains
	// (default 1) applies.
	PinwheelChains int
	// PinwheelTrain is the number of training points of each pinwheel set: 0 means the
	// paper's archPinwheelTrain (50 per set), −1 every training row of the files (50
	// per class, the package's earlier reading).
	PinwheelTrain int
	// Diagnose runs one extra Archipelago chain on the first problem with one
	// label per class and prints its trace diagnostics (Fig. 4).
	Diagnose bool
}

// archLoadProblem loads a Table 1 problem by name from dataDir; seed picks the wine
// and oil splits. The pinwheels keep the paper's 50 training points per set
// (archPinwheelTrain).
func archLoadProblem(dataDir, name string, seed uint64) (*archProblem, error) {
	return archLoadProblemN(dataDir, name, seed, archPinwheelTrain)
}

// archLoadProblemN is archLoadProblem with pinTrain training points per pinwheel set (0: all).
func archLoadProblemN(dataDir, name string, seed uint64, pinTrain int) (*archProblem, error) {
	switch name {
	case "Toy3", "Toy4", "Toy5":
		return loadPinwheel(filepath.Join(dataDir, "pinwheel"), int(name[3]-'0'), pinTrain)
	case "Wine":
		return loadWine(filepath.Join(dataDir, "wine", "wine.csv.gz"), seed)
	case "Oil":
		return loadOil(filepath.Join(dataDir, "oilflow", "oilflow_train.csv.gz"), seed)
	}
	return nil, fmt.Errorf("archipelago: no problem %q (have Toy3, Toy4, Toy5, Wine, Oil)", name)
}

// archTable1 runs the requested cells of Table 1 and prints them next to the
// paper's figures, with wall and CPU times.
func archTable1(w io.Writer, opt archTableOptions) error {
	probs := opt.Problems
	if len(probs) == 0 {
		probs = []string{"Toy3", "Toy4", "Toy5", "Wine", "Oil"}
	}
	per := opt.PerClass
	if len(per) == 0 {
		per = []int{1, 2, 4, 8}
	}
	pinTrain := opt.PinwheelTrain
	switch {
	case pinTrain == 0:
		pinTrain = archPinwheelTrain
	case pinTrain < 0:
		pinTrain = 0
	}
	fmt.Fprintf(w,
		"Archipelago Table 1: test error and perplexity, mean ± sd over %d labellings (paper in "+
			"brackets)\n", max(opt.Cell.Labellings, 1))
	fmt.Fprintf(w, "%-13s | %-24s | %-24s | %-24s | %-24s\n", "", "Arch", "SmGP",
		"PrGP (probit IVM 1-v-r)", "NCNM (null-cat. IVM 1-v-r)")
	for _, name := range probs {
		p, err := archLoadProblemN(opt.DataDir, name, opt.Cell.Seed+1, pinTrain)
		if err != nil {
			return err
		}
		for _, k := range per {
			cpu0 := cpuTime()
			co := opt.Cell
			if co.Chains == 0 && strings.HasPrefix(name, "Toy") {
				co.Chains = opt.PinwheelChains
				if co.Chains == 0 {
					co.Chains = 4
				}
			}
			c, err := archRunCell(p, k, co)
			if err != nil {
				return err
			}
			archWriteCell(w, c)
			m, _ := meanSDNoNaN(c.Rejections)
			fmt.Fprintf(w, "%-13s   (%d train, %d test; %d chain(s) per labelling; "+
				"Arch mean rejections %.0f; wall %s, CPU %s)\n",
				"", len(p.TrainY), len(p.TestY), max(co.Chains, 1), m,
				c.Wall.Round(time.Second), (cpuTime() - cpu0).Round(time.Second))
			for _, n := range c.Notes {
				fmt.Fprintf(w, "%-13s   note: %s\n", "", n)
			}
		}
	}
	if opt.Diagnose {
		p, err := archLoadProblemN(opt.DataDir, probs[0], opt.Cell.Seed+1, pinTrain)
		if err != nil {
			return err
		}
		return archDiagnose(w, p, 1, opt.Cell.Sampler, opt.Cell.Seed)
	}
	return nil
}

// archDiagnose runs one Archipelago chain on p with perClass labels per class and
// prints time per sweep (wall and CPU), sweeps to convergence of the number of
// rejections, its effective sample size and autocorrelation (Fig. 4), and the
// acceptance rates of every move.
func archDiagnose(w io.Writer, p *archProblem, perClass int, so archipelago.Options,
	seed uint64) error {
	lab, err := p.Labelling(perClass, rand.New(rand.NewPCG(seed, 77)))
	if err != nil {
		return err
	}
	so.Seed, so.ARD, so.Progress = seed+77, p.ARD, nil
	cpu0 := cpuTime()
	t0 := time.Now()
	sp, err := archipelago.NewArchipelago(p.Train, lab, p.Classes, so)
	if err != nil {
		return err
	}
	ch, err := sp.Run()
	if err != nil {
		return err
	}
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	tr := ch.RejectionTrace()
	n := float64(len(tr))
	post := tr[ch.Burn:]
	mean, sd := meanSDNoNaN(post)
	st := ch.Stats
	fmt.Fprintf(w, "\nDiagnostics: %s, %d label(s) per class, %d sweeps (%d burn-in)\n", p.Name,
		perClass, len(tr), ch.Burn)
	fmt.Fprintf(w,
		"  time per sweep: wall %.1f ms, CPU %.1f ms (shared machine: wall times are noisy)\n",
		wall.Seconds()*1000/n, cpu.Seconds()*1000/n)
	fmt.Fprintf(w,
		"  rejections after burn-in: %.1f ± %.1f; sweeps to convergence %d; ESS %.1f of %d\n",
		mean, sd, archipelago.SweepsToConverge(tr), archipelago.ESS(post), len(post))
	fmt.Fprintf(w, "  acceptance: %s\n", st.Acceptance())
	ac := archipelago.Autocorrelation(post, 50)
	fmt.Fprintf(w, "  autocorrelation of M (Fig. 4), lags 0,5,…:")
	for l := 0; l < len(ac); l += 5 {
		fmt.Fprintf(w, " %.2f", ac[l])
	}
	fmt.Fprintln(w)
	return nil
}

// cpuTime is the process's CPU time so far (0 where the platform does not report it).
func cpuTime() time.Duration {
	d, _ := rusage.CPU()
	return d
}
