package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/safestat"
	ivmplot "github.com/ivmlab/ivm/plot"
)

func init() {
	register("archipelago", command{
		Synopsis: "ivm archipelago [flags] TRAIN TEST",
		Short:    "semi-supervised Archipelago (GP generative classifier by MCMC); unlabelled rows have label ? or empty",
		Order:    70,
		Run:      cmdArchipelago,
	})
}

func cmdArchipelago(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("archipelago", "ivm archipelago [flags] TRAIN TEST\n\n"+
		"TRAIN holds labelled rows and unlabelled rows (CSV label \"?\" or empty, libsvm \"?\");\n"+
		"TEST is labelled. Prints the test error and perplexity of Archipelago (and with\n"+
		"-softmax of the softmax GP on the labelled rows).", stderr)
	sweeps := fs.Int("sweeps", 600, "MCMC sweeps")
	burn := fs.Int("burn", 0, "burn-in sweeps (0: a third of -sweeps)")
	anneal := fs.Int("anneal", 0, "burn-in sweeps over which the unlabelled rows' likelihood is phased in (0: 3/4 of -burn, -1: none)")
	seed := fs.Uint64("seed", 1, "random seed")
	ampMoves := fs.Int("amp-moves", 0, "Metropolis moves per sweep on the log amplitude with the whitened functions fixed (0: 20, -1: none)")
	ard := fs.Bool("ard", false, "one length-scale per input (ARD)")
	progress := fs.Bool("progress", false, "print the chain's state after every sweep to stderr")
	softmax := fs.Bool("softmax", false, "also run the softmax GP comparator")
	labelCol := fs.String("label-col", "last", "CSV target column: first, last or a 1-based number")
	figPath := fs.String("o", "", "with 2-D inputs, write the predictive mode and entropy maps (the paper's Fig. 3) to this .png, .svg or .pdf")
	grid := fs.Int("grid", 50, "grid points per axis of the -o maps")
	maxMem := registerMaxMem(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	if err := checkSampler(*sweeps, *burn, *ampMoves); err != nil {
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
	var ro dataset.ReadOptions
	var err error
	if ro.LabelCol, err = dataset.ParseLabelCol(*labelCol); err != nil {
		return err
	}
	maxMem.limitOptions(&ro)
	train, err := dataset.ReadFile(fs.Arg(0), ro)
	if err != nil {
		return err
	}
	_, dim := train.X.Dims()
	ro.Dim = dim
	if *figPath != "" && dim != 2 {
		return fmt.Errorf("-o: the maps need 2-D inputs, %s has %d", fs.Arg(0), dim)
	}
	// The sampler's covariances over the training rows and the rejections (about as many)
	// grow as N²: measured peak RSS 220·N² bytes at N = 1200.
	n, _ := train.X.Dims()
	if err := maxMem.check(256*float64(n)*float64(n), fmt.Sprintf("sampling over %d training rows", n)); err != nil {
		return err
	}
	if *figPath != "" {
		// The maps predict at grid² points against every training row at once.
		if err := maxMem.check(16*float64(*grid)*float64(*grid)*float64(n), fmt.Sprintf("-grid %d maps over %d training rows", *grid, n)); err != nil {
			return err
		}
	}
	test, err := dataset.ReadFile(fs.Arg(1), ro)
	if err != nil {
		return err
	}
	classes, trainLab, err := archLabels(train.Y, nil, true)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	_, testLab, err := archLabels(test.Y, classes, false)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(1), err)
	}
	opt := archipelago.Options{Sweeps: *sweeps, Burn: *burn, Anneal: *anneal, Seed: *seed, ARD: *ard, AmpMoves: *ampMoves}
	var rows [][]*gplot.Plot
	if *progress {
		opt.Progress = func(s archipelago.SweepInfo) {
			st := s.Stats
			fmt.Fprintf(stderr, "sweep %4d  M %4d  loglik %9.2f  β %.2f  θ %.2f  acc ins %.2f del %.2f move %.2f g %.2f θ %.2f σ² %.2f  %s\n",
				s.Sweep, s.Rejections, s.LogLik, s.Beta, s.Theta,
				archipelago.Rate(st.InsertAccepted, st.InsertTried), archipelago.Rate(st.DeleteAccepted, st.DeleteTried),
				archipelago.Rate(st.MoveAccepted, st.MoveTried), archipelago.Rate(st.GAccepted, st.GTried),
				archipelago.Rate(st.HyperAccepted, st.HyperTried), archipelago.Rate(st.AmpAccepted, st.AmpTried), s.Elapsed.Round(1e6))
		}
	}
	run := func(name string, sp *archipelago.Sampler, err error) error {
		if err != nil {
			return err
		}
		ch, err := sp.Run()
		if err != nil {
			return err
		}
		probs, err := ch.Predict(test.X, *seed)
		if err != nil {
			return err
		}
		e, perp, err := archipelago.Evaluate(probs, testLab)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: error %.4f  perplexity %.4f  (%d classes, %d samples kept)\n", name, e, perp, len(classes), len(ch.Samples))
		if *figPath != "" {
			predict := func(x *mat.Dense) ([][]float64, error) { return ch.Predict(x, *seed) }
			fig, err := ivmplot.ClassMap(predict, name, train.X, trainLab, len(classes), ivmplot.Options{Grid: *grid})
			if err != nil {
				return err
			}
			rows = append(rows, fig.Panels)
		}
		if name == "archipelago" {
			post := ch.RejectionTrace()[ch.Burn:]
			m, sd := safestat.MeanSD(post, 1)
			fmt.Fprintf(stdout, "  rejections %.1f ± %.1f, ESS %.0f of %d sweeps\n", m, sd, archipelago.ESS(post), len(post))
		}
		return nil
	}
	sp, err := archipelago.NewArchipelago(train.X, trainLab, len(classes), opt)
	if err := run("archipelago", sp, err); err != nil {
		return err
	}
	if *softmax {
		opt.Progress = nil
		sp, err := archipelago.NewSoftmaxGP(train.X, trainLab, len(classes), opt)
		if err := run("softmax GP", sp, err); err != nil {
			return err
		}
	}
	if *figPath != "" {
		err := encodeFigure(*figPath, figStdout, func(w io.Writer, format string) error {
			return ivmplot.EncodeGrid(rows, w, format, 20*vg.Centimeter, 9*vg.Centimeter*vg.Length(len(rows)))
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "maps: %s\n", *figPath)
	}
	return nil
}

// maxSweeps caps -sweeps: the chain keeps a record of every sweep.
const maxSweeps = 1_000_000

// checkSampler checks the sampler's flags, naming the flag at fault.
func checkSampler(sweeps, burn, ampMoves int) error {
	switch {
	case sweeps < 1 || sweeps > maxSweeps:
		return fmt.Errorf("-sweeps %d: want 1 to %d", sweeps, maxSweeps)
	case burn < 0 || burn >= sweeps:
		return fmt.Errorf("-burn %d: want 0 (a third of -sweeps) to %d, below -sweeps", burn, sweeps-1)
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
