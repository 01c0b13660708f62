package reproduce

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm/archipelago"
)

// Archipelago's Table 1 (Adams & Ghahramani 2009): Toy3/4/5, wine and oil with 1, 2, 4
// and 8 labels per class, error and perplexity of Archipelago, the softmax GP and the
// one-vs-rest probit and null-category IVMs over 10 random labellings. The logic is in
// archTable1 (archipelago_experiment.go); Quick runs Toy3 with one label per class, two labellings
// and a short chain; -only picks problems and label counts ("Toy3,1": one cell) and -runs
// the number of labellings.
func init() {
	register(Experiment{
		Name:  "archipelago",
		Title: "Archipelago Table 1: semi-supervised pinwheel, wine and oil",
		Run:   runArchipelago,
	})
}

func runArchipelago(w io.Writer, c Config) error {
	seed := seedOr(c, 1)
	workers := workersOr(c, 2)
	opt := archTableOptions{
		DataDir:  c.DataDir,
		Cell:     archCellOptions{Labellings: 10, Workers: workers, Seed: seed, Log: c.Log},
		Diagnose: true,
	}
	if c.Only != "" {
		problems, perClass, allRows, err := archipelagoOnly(c.Only)
		if err != nil {
			return err
		}
		opt.Problems, opt.PerClass = problems, perClass
		if allRows {
			opt.PinwheelTrain = -1
		}
	}
	if c.Runs > 0 {
		opt.Cell.Labellings = c.Runs
	}
	if c.Quick {
		opt.Problems = []string{"Toy3"}
		opt.PerClass = []int{1}
		opt.Cell.Labellings = 2
		opt.Cell.Sampler = archipelago.Options{Sweeps: 40, Burn: 20}
	}
	return archTable1(w, opt)
}

// archipelagoOnly parses -only for the archipelago experiment: comma-separated problem
// names (Toy3, Toy4, Toy5, Wine, Oil) and label counts per class (1, 2, 4, 8), e.g.
// "Toy3,1" for one Table-1 cell; either list may be left out (nil: all). The token
// "allrows" trains the pinwheels on every training row of the files (50 per class)
// instead of the paper's 50 per set.
func archipelagoOnly(only string) (problems []string, perClass []int, allRows bool, err error) {
	for _, f := range strings.Split(only, ",") {
		f = strings.TrimSpace(f)
		if f == "allrows" {
			allRows = true
			continue
		}
		if n, err := strconv.Atoi(f); err == nil {
			if !slices.Contains([]int{1, 2, 4, 8}, n) {
				return nil, nil, false, fmt.Errorf("archipelago: -only %q: %d labels per class "+
					"is not a Table-1 column (1, 2, 4, 8)", only, n)
			}
			perClass = append(perClass, n)
			continue
		}
		if !slices.Contains([]string{"Toy3", "Toy4", "Toy5", "Wine", "Oil"}, f) {
			return nil, nil, false, fmt.Errorf("archipelago: -only %q: %q is neither a "+
				"problem (Toy3, Toy4, Toy5, Wine, Oil), a label count nor allrows", only, f)
		}
		problems = append(problems, f)
	}
	return problems, perClass, allRows, nil
}
