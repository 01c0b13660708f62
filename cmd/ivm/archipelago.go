package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/dataset"
	ivmplot "github.com/ivmlab/ivm/plot"
)

func init() {
	register("archipelago", command{
		Synopsis: "ivm archipelago [flags] TRAIN TEST",
		Short: "semi-supervised Archipelago (GP generative classifier by MCMC); unlabelled rows " +
			"have label ? or empty",
		Order: 70,
		Run:   cmdArchipelago,
	})
}

func cmdArchipelago(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("archipelago", "ivm archipelago [flags] TRAIN TEST\n\n"+
		"The one-shot form of \"ivm train -method archipelago TRAIN MODEL\" then "+
		"\"ivm predict TEST MODEL\"\n"+
		"(the same fit and prediction, no model file): TRAIN holds labelled rows and "+
		"unlabelled rows\n"+
		"(CSV label \"?\" or empty, libsvm \"?\"); TEST is labelled. Prints the test error and "+
		"perplexity\n"+
		"of Archipelago (and with -softmax of the softmax GP on the labelled rows).", stderr)
	var df dataFlags
	df.register(fs)
	var af archFlags
	af.register(fs)
	progress := fs.Bool("progress", false, "print the chain's state after every sweep to stderr")
	softmax := fs.Bool("softmax", false, "also run the softmax GP comparator")
	figPath := fs.String("o", "",
		"with 2-D inputs, write the predictive mode and entropy maps (the paper's Fig. 3) to this "+
			".png, .svg or .pdf")
	grid := fs.Int("grid", 50, "grid points per axis of the -o maps")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	cfg, err := af.config(archipelago.Archipelago)
	if err != nil {
		return err
	}
	if *figPath != "" {
		if err := checkFigurePath(*figPath); err != nil {
			return err
		}
		if err := checkGrid(*grid, 3); err != nil {
			return err
		}
	}
	if err := checkOutputs([]string{fs.Arg(0), fs.Arg(1)}, *figPath); err != nil {
		return err
	}
	figStdout := stdout
	if *figPath == stdoutPath {
		stdout = stderr // the figure goes to standard output, the results beside it
	}
	train, test, trainLab, testLab, err := readArchData(fs.Arg(0), fs.Arg(1), df, *figPath != "",
		*grid)
	if err != nil {
		return err
	}
	if *progress {
		cfg.Progress = archProgress(stderr, "", 1, cfg.Sweeps)
	}
	methods := []archipelago.Method{archipelago.Archipelago}
	if *softmax {
		methods = append(methods, archipelago.SoftmaxGP)
	}
	var rows [][]*gplot.Plot
	for _, method := range methods {
		cfg.Method = method
		if method == archipelago.SoftmaxGP {
			cfg.Progress = nil
		}
		panels, err := fitAndTest(cfg, train, test, trainLab, testLab, *figPath != "", *grid,
			stdout)
		if err != nil {
			return err
		}
		rows = append(rows, panels)
	}
	if *figPath != "" {
		err := encodeFigure(*figPath, figStdout, func(w io.Writer, format string) error {
			return ivmplot.EncodeGrid(rows, w, format, 20*vg.Centimeter,
				9*vg.Centimeter*vg.Length(len(rows)))
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "maps: %s\n", *figPath)
	}
	return nil
}

// readArchData reads the shorthand's training and test files and maps their labels to
// class indices (the test rows must all be labelled with training classes), checking
// the memory the chain and the maps will need before any sampling.
func readArchData(trainPath, testPath string, df dataFlags, maps bool, grid int) (train,
	test *dataset.Data, trainLab, testLab []int, err error) {
	ro, err := df.options()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if train, err = readData(trainPath, ro); err != nil {
		return nil, nil, nil, nil, err
	}
	n, dim := train.X.Dims()
	ro.Dim = dim
	if maps && dim != 2 {
		return nil, nil, nil, nil, fmt.Errorf("-o: the maps need 2-D inputs, %s has %d",
			trainPath, dim)
	}
	if err := checkArchMemory(*df.maxMem, n); err != nil {
		return nil, nil, nil, nil, err
	}
	if maps {
		// The maps predict at grid² points against every training row at once.
		if err := df.maxMem.check(16*float64(grid)*float64(grid)*float64(n),
			fmt.Sprintf("-grid %d maps over %d training rows", grid, n)); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	if test, err = readData(testPath, ro); err != nil {
		return nil, nil, nil, nil, err
	}
	classes, trainLab, err := archLabels(train.Y, nil, true)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w", trainPath, err)
	}
	if _, testLab, err = archLabels(test.Y, classes, false); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w", testPath, err)
	}
	return train, test, trainLab, testLab, nil
}

// fitAndTest fits cfg's method on the training rows as "ivm train" does, predicts the
// test rows as "ivm predict" does, prints the test error and perplexity (and for
// Archipelago the chain's rejections) and, with maps, returns the mode and entropy
// panels of the model.
func fitAndTest(cfg archipelago.Config, train, test *dataset.Data, trainLab, testLab []int,
	maps bool, grid int, stdout io.Writer) ([]*gplot.Plot, error) {
	m, err := archipelago.Fit(train.X, train.Y, cfg)
	if err != nil {
		return nil, err
	}
	probs, err := classProbs(m)(test.X)
	if err != nil {
		return nil, err
	}
	e, perp, err := archipelago.Evaluate(probs, testLab)
	if err != nil {
		return nil, err
	}
	name := map[archipelago.Method]string{archipelago.Archipelago: "archipelago",
		archipelago.SoftmaxGP: "softmax GP"}[cfg.Method]
	fmt.Fprintf(stdout, "%s: error %.4f  perplexity %.4f  (%d classes, %d samples kept)\n", name, e,
		perp, len(m.Classes), len(m.Samples))
	if cfg.Method == archipelago.Archipelago {
		ch := m.Chain
		fmt.Fprintf(stdout, "  rejections %.1f ± %.1f, ESS %.0f of %d sweeps\n", ch.RejectionsMean,
			ch.RejectionsSD, ch.RejectionsESS, ch.Sweeps-ch.Burn)
	}
	if !maps {
		return nil, nil
	}
	fig, err := ivmplot.ClassMap(classProbs(m), name, train.X, trainLab, len(m.Classes),
		ivmplot.Options{Grid: grid})
	if err != nil {
		return nil, err
	}
	return fig.Panels, nil
}

// maxSweeps caps -sweeps: the chain keeps a record of every sweep.
const maxSweeps = 1_000_000

// checkSampler checks the sampler's flags, naming the flag at fault.
func checkSampler(sweeps, burn, ampMoves int) error {
	switch {
	case sweeps < 1 || sweeps > maxSweeps:
		return fmt.Errorf("-sweeps %d: want 1 to %d", sweeps, maxSweeps)
	case burn < 0 || burn >= sweeps:
		return fmt.Errorf("-burn %d: want 0 (a third of -sweeps) to %d, below -sweeps",
			burn, sweeps-1)
	case ampMoves < -1:
		return fmt.Errorf("-amp-moves %d: want -1 (none), 0 (the default, 20) or more", ampMoves)
	}
	return nil
}

// archLabels maps label values to class indices 0..K−1 (classes sorted; NaN →
// −1 when unlabelled rows are allowed). With classes given, labels must be
// among them.
func archLabels(y []float64, classes []float64, allowNaN bool) ([]float64, []int, error) {
	if classes == nil {
		seen := map[float64]bool{}
		for _, v := range y {
			if !math.IsNaN(v) && !seen[v] {
				seen[v] = true
				classes = append(classes, v)
			}
		}
		sort.Float64s(classes)
		if len(classes) < 2 {
			return nil, nil, errors.New("need labelled rows of at least two classes")
		}
	}
	idx := map[float64]int{}
	for i, c := range classes {
		idx[c] = i
	}
	out := make([]int, len(y))
	for i, v := range y {
		if math.IsNaN(v) {
			if !allowNaN {
				return nil, nil, fmt.Errorf("row %d is unlabelled", i+1)
			}
			out[i] = -1
			continue
		}
		k, ok := idx[v]
		if !ok {
			return nil, nil, fmt.Errorf("row %d has label %v, not a training class", i+1, v)
		}
		out[i] = k
	}
	return classes, out, nil
}
