package reproduce

import (
	"io"

	"github.com/ivmlab/ivm/archipelago"
)

// Archipelago's Table 1 (Adams & Ghahramani 2009): Toy3/4/5, wine and oil with 1, 2, 4
// and 8 labels per class, error and perplexity of Archipelago, the softmax GP and the
// one-vs-rest probit and null-category IVMs over 10 random labellings. The logic is in
// package archipelago (Table1); Quick runs Toy3 with one label per class, two labellings
// and a short chain.
func init() {
	register(Experiment{
		Name:  "archipelago",
		Title: "Archipelago Table 1: semi-supervised pinwheel, wine and oil",
		Run:   runArchipelago,
	})
}

func runArchipelago(w io.Writer, c Config) error {
	seed := uint64(c.Seed)
	if c.Seed == 0 {
		seed = 1
	}
	workers := c.Workers
	if workers <= 0 {
		workers = 2
	}
	opt := archipelago.Table1Options{
		DataDir:  c.DataDir,
		Cell:     archipelago.CellOptions{Labellings: 10, Workers: workers, Seed: seed, Log: c.Log},
		Diagnose: true,
	}
	if c.Quick {
		opt.Problems = []string{"Toy3"}
		opt.PerClass = []int{1}
		opt.Cell.Labellings = 2
		opt.Cell.Sampler = archipelago.Options{Sweeps: 40, Burn: 20}
	}
	return archipelago.Table1(w, opt)
}
