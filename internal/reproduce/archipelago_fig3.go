package reproduce

import (
	"fmt"
	"io"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/plot"
)

// Archipelago's Fig. 3: on Toy3, Toy4 and Toy5 with one labelled point per class, the
// predictive mode of Archipelago, the predictive mode of the softmax GP and the entropy of
// Archipelago's predictive distribution, one row per problem. The labelling is the first
// of the Table-1 cell with one label per class (same seed), so the figure shows chains
// whose errors the table counts. Quick uses short chains and a coarse grid.
func init() {
	register(Experiment{
		Name: "archipelago-fig3",
		Title: "Archipelago Fig. 3: predictive modes and entropy on the pinwheels, " +
			"one label per class",
		Run: runArchipelagoFig3,
	})
}

func runArchipelagoFig3(w io.Writer, c Config) error {
	seed := seedOr(c, 1)
	out := outDir(c)
	so := archipelago.Options{}
	grid := 50
	if c.Quick {
		so = archipelago.Options{Sweeps: 40, Burn: 20}
		grid = 12
	}
	problems := []string{"Toy3", "Toy4", "Toy5"}
	rows := make([][]*gplot.Plot, len(problems))
	lines := make([]string, len(problems))
	workers := workersOr(c, 2)
	if err := pool.ForEachErr(len(problems), workers, func(i int) (err error) {
		if rows[i], lines[i], err = fig3Row(c, problems[i], seed, so, grid); err != nil {
			return fmt.Errorf("%s: %w", problems[i], err)
		}
		return nil
	}); err != nil {
		return err
	}
	fmt.Fprintln(w, "Archipelago Fig. 3: one labelled point per class "+
		"(the first labelling of the Table-1 cell)")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	path := filepath.Join(out, "archipelago_fig3.png")
	if err := plot.SaveGrid(rows, path, 30*vg.Centimeter, 28*vg.Centimeter); err != nil {
		return err
	}
	fmt.Fprintf(w, "figure: %s (columns: Archipelago mode, softmax GP mode, Archipelago entropy)\n",
		path)
	return nil
}

// fig3Row runs both chains on the first one-label-per-class labelling of a pinwheel (the
// labelling and chain seed of labelling 0 of the Table-1 cell) and returns the row's three
// panels and a line of test errors.
func fig3Row(c Config, name string, seed uint64, so archipelago.Options, grid int) ([]*gplot.Plot,
	string, error) {
	p, err := archLoadProblem(c.DataDir, name, seed)
	if err != nil {
		return nil, "", err
	}
	labs, err := archLabellings(p, 1, 1, seed)
	if err != nil {
		return nil, "", err
	}
	labels := labs[0]
	so.Seed = archChainSeed(seed, 0)
	var modes, entropy []*gplot.Plot
	line := name + ":"
	for _, m := range []string{"Arch", "SmGP"} {
		ch, err := archRunChain(m, p, labels, so)
		if err != nil {
			return nil, "", err
		}
		probs, err := ch.Predict(p.Test, so.Seed)
		if err != nil {
			return nil, "", err
		}
		e, perp, err := archipelago.Evaluate(probs, p.TestY)
		if err != nil {
			return nil, "", err
		}
		line += fmt.Sprintf("  %s error %.3f perplexity %.3f", m, e, perp)
		fmt.Fprintf(c.Log, "%s %s done: error %.3f\n", name, m, e)
		predict := func(x *mat.Dense) ([][]float64, error) { return ch.Predict(x, so.Seed) }
		fig, err := plot.ClassMap(predict, name+" "+m, p.Train, labels, p.Classes,
			plot.Options{Grid: grid})
		if err != nil {
			return nil, "", err
		}
		modes = append(modes, fig.Panels[0])
		if m == "Arch" {
			entropy = fig.Panels[1:2]
		}
	}
	return append(modes, entropy...), line, nil
}
