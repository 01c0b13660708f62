package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm"
)

func init() {
	register("query", command{Synopsis: "ivm query [-n K] [flags] MODEL POOL [OUT]",
		Short: "the K unlabelled rows of POOL whose labels would tell the model most",
		Order: 25, Run: cmdQuery})
}

// cmdQuery is ivm query: it reads a single-task IVM model and the rows of POOL (labels
// absent, "?" or ignored) and writes the K rows Predictor.Query chooses, best first, one a
// line: the row's 0-based number in POOL, its score and the model's prediction there.
func cmdQuery(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("query", "ivm query [-n K] [flags] MODEL POOL [OUT]", stderr)
	var df dataFlags
	df.register(fs)
	k := fs.Int("n", 10, "how many rows to query")
	score := fs.String("score", "auto",
		"what rows are scored by: epig (what a label would tell about the pool's labels), bald "+
			"(about the row's own latent; a regression's: its predictive variance) or auto "+
			"(bald for 8 classes or more and regressions with a local part, else epig)")
	prob := fs.Bool("prob", false,
		"write each class's probability after the label (regression: the predictive variance "+
			"after the mean), with a header line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		fs.Usage()
		return errUsage
	}
	if *k < 1 {
		return fmt.Errorf("-n %d: query at least one row", *k)
	}
	qopt := ivm.QueryOptions{}
	var err error
	if qopt.Score, err = ivm.ParseQueryScore(*score); err != nil {
		return fmt.Errorf("-score: %w", err)
	}
	modelPath, poolPath, outPath := fs.Arg(0), fs.Arg(1), stdoutPath
	if fs.NArg() == 3 {
		outPath = fs.Arg(2)
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	if err := checkOutputs([]string{modelPath, poolPath}, outPath); err != nil {
		return err
	}
	df.maxMem.softLimit()
	opt.LabelOptional = true // a pool's labels may be absent, "?" or given: they are ignored
	mf, pool, err := readModelAndRows(modelPath, poolPath, opt, *df.maxMem, stderr)
	if err != nil {
		return err
	}
	p := mf.single
	if p == nil {
		return fmt.Errorf("%s: query is for single-task IVM models (ivm train -method ivm)",
			modelPath)
	}
	qs, err := p.Query(pool.X, *k, qopt)
	if err != nil {
		return fmt.Errorf("%s: %w", poolPath, err)
	}
	return writeOutput(outPath, []byte(queryLines(p, qs, *prob)), stdout)
}

// queryLines formats the queried rows: "row score label", with prob the class
// probabilities (regression: the predictive variance) after a header line.
func queryLines(p *ivm.Predictor, qs []ivm.Query, prob bool) string {
	var b strings.Builder
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if prob {
		b.WriteString("row score label")
		if p.Task == ivm.Regression {
			b.WriteString(" variance")
		}
		for _, c := range p.Classes {
			fmt.Fprintf(&b, " p(%s)", g(c))
		}
		b.WriteByte('\n')
	}
	for _, q := range qs {
		fmt.Fprintf(&b, "%d %s %s", q.Row, g(q.Score), g(q.Prediction.Label))
		if prob && p.Task == ivm.Regression {
			b.WriteString(" " + g(q.Prediction.Var))
		}
		for _, v := range q.Prediction.Prob {
			if !prob {
				break
			}
			b.WriteString(" " + g(v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
