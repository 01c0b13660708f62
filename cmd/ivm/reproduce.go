package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ivmlab/ivm/internal/reproduce"
)

func cmdReproduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reproduce", "ivm reproduce [flags] EXPERIMENT\n\nExperiments: "+
		strings.Join(reproduce.Names(), ", "), stderr)
	ref := fs.String("ref", filepath.Join("testdata", "ref"),
		"folder of the reference toolbox's fixtures")
	data := fs.String("data", filepath.Join("..", "shared", "data"),
		"folder of the papers' data sets")
	seed := fs.Int64("seed", 0, "seed for splits and labellings (0: the experiment's default)")
	quick := fs.Bool("quick", false, "run a reduced version")
	workers := fs.Int("workers", 0, "goroutines (0: all cores)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	runs := fs.Int("runs", 0,
		"repetitions of experiments that repeat (0: the experiment's default)")
	out := fs.String("out", ".", "folder for the experiments' figures "+
		"(archipelago-fig3, ncnm-toy, mtivm-regression, mtivm-vowel)")
	only := fs.String("only", "",
		"run only these rows, comma-separated (usps-table1: rbf, mlp, rbfard; usps-ncnm: learnt, "+
			"fixed and fractions r, e.g. learnt,0.25; archipelago: problems and labels per "+
			"class, e.g. Toy3,1, and allrows to train the pinwheels on 50 points per class "+
			"instead of the paper's 50 per set)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	e, err := reproduce.Lookup(fs.Arg(0))
	if err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	if *runs < 0 {
		return fmt.Errorf("-runs %d: want 0 (the experiment's default) or more", *runs)
	}
	if st, err := os.Stat(*out); err == nil && !st.IsDir() {
		return fmt.Errorf("-out %s: not a folder", *out)
	} else if err != nil {
		return fmt.Errorf("-out %s: no such folder (create it first)", *out)
	}
	if _, err := os.Stat(*ref); err != nil && e.NeedsRef {
		return fmt.Errorf("reference fixtures not found at %s: "+
			"run from the repository root or pass -ref", *ref)
	}
	c := reproduce.Config{RefDir: *ref, DataDir: *data, Seed: *seed, Quick: *quick,
		Workers: *workers, Only: *only, Runs: *runs, Out: *out, Log: stderr}
	if *quiet {
		c.Log = io.Discard
	}
	return e.Run(stdout, c)
}
