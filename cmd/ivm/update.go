package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/ivmlab/ivm"
)

func init() {
	register("update", command{Synopsis: "ivm update [flags] MODEL NEWROWS OUT",
		Short: "add new labelled rows to a model's active sets (Predictor.Update)", Order: 17,
		Run: cmdUpdate})
}

// cmdUpdate is ivm update: MODEL's IVM models take NEWROWS' labelled rows as candidates for
// their active sets (kernel, noise model and calibration kept), and the updated model,
// its provenance recording the update, is written to OUT.
func cmdUpdate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("update", "ivm update [flags] MODEL NEWROWS OUT", stderr)
	var df dataFlags
	df.register(fs)
	d := fs.Int("d", 0, "active set size of each model after the update (0: each model's own, "+
		"grown by the new rows' share of train's size for all the rows where it was train's; "+
		"larger grows it)")
	swaps := fs.Int("swaps", 0, "most swaps of an active point for a new row per model "+
		"(0: a fifth of d where d stays, none where it grows; -1: none)")
	relearn := fs.Bool("relearn", false, "learn the kernel's parameters again (Algorithm 2 on "+
		"the model's sites and the new rows; slower, calibration reset to alg2's)")
	quiet := fs.Bool("quiet", false, "do not print the summary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		fs.Usage()
		return errUsage
	}
	modelPath, rowsPath, outPath := fs.Arg(0), fs.Arg(1), fs.Arg(2)
	opt, err := df.options()
	if err != nil {
		return err
	}
	run, err := startTraining([]string{rowsPath, modelPath}, outPath, args, stdout, stderr)
	if err != nil {
		return err
	}
	defer run.discard()
	p, err := readUpdatable(modelPath, df)
	if err != nil {
		return err
	}
	data, err := readTraining(rowsPath, opt, "ivm update ignores them", stderr)
	if err != nil {
		return err
	}
	y := data.Y
	if p.Task == ivm.SemiSupervised {
		y = unlabelledZeros(y) // as train reads them
	}
	q, err := p.Update(data.X, y, ivm.UpdateOptions{ActiveSize: *d, MaxSwaps: *swaps,
		Relearn: *relearn})
	if err != nil {
		return fmt.Errorf("%s: %w", rowsPath, err)
	}
	return run.saveUpdate(q, *quiet)
}

// readUpdatable reads the model file at path, which must be a single-task IVM model's.
func readUpdatable(path string, df dataFlags) (*ivm.Predictor, error) {
	df.maxMem.softLimit()
	mf, err := readModel(path, *df.maxMem)
	if err != nil {
		return nil, err
	}
	if mf.single == nil {
		return nil, fmt.Errorf("%s: ivm update is for single-task IVM model files (%s)", path,
			ivm.ModelFormat)
	}
	return mf.single, nil
}

// saveUpdate completes the update's provenance record with NEWROWS' name, hash and the
// command line, writes the model and commits the file.
func (r *trainingRun) saveUpdate(q *ivm.Predictor, quiet bool) error {
	hash, err := dataHash(r.trainPath)
	if err != nil {
		return err
	}
	u := q.Training.SourceLastUpdate(filepath.Base(r.trainPath), hash,
		append([]string{"update"}, r.args...))
	if err := q.Save(r.out); err != nil {
		return err
	}
	if err := r.out.commit(); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(r.summary, "%s: %s\nupdated with %d rows in %.3g s\n", r.out.path, summary(q),
			u.Rows, u.Seconds)
	}
	return nil
}
