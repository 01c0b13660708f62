// Command active draws the learning curves of active learning for bench/active.sh (issue
// 49): how a model's test error falls with the labels it is given when the rows to label
// are chosen by Predictor.Query, against the same number of rows drawn at random.
//
// For each seed it draws the first labelled rows (the first budget, 20 by default) from
// the training file; a classifier's start holds 3 rows of each class, the rest drawn
// uniformly, so that the defaults can fit a model that predicts every class (a user
// starting an active-learning loop has a few examples of each class; a start without one
// would make the log loss of the first rounds measure that accident). Then, round by
// round, it fits a model on the labelled rows with ivm.Fit (the defaults: `ivm train`),
// scores it on the test file (accuracy and log loss, or MSE and NLPD), and adds rows until
// the next budget: for strategy "active", those Query picks from the rest of the training
// rows (`ivm query -n K MODEL POOL`, its default score); for "epig" and "bald", those Query
// picks by EPIG (`ivm query -score epig`) or by the information about their own latents
// (`-score bald`); for "random", rows drawn uniformly from the rest; for "mixP", P % of them
// (rounded) drawn uniformly and the others Query's. All strategies share each seed's first
// rows. The rows added between two budgets come in rounds of at most -batch K rows (10 by
// default; 0: one round a budget), the model refitted after each: a query then sees the
// labels of the round before. -keep N fits anew only until a model of N labels or more,
// and then updates that model with each round's rows
// (Predictor.Update: `ivm update`), its kernel and calibration kept. The full-data model
// (every training row, the defaults) is fitted once as the reference.
//
// Output: -out, a tab-separated table with a header line, one line per (set, strategy,
// seed, labels) and one "full" line (seed 0, labels the training rows), NA where a metric
// does not apply; lines starting with # say how it was made. On stdout, a summary: the mean
// and sd over seeds per budget and strategy, the full-data model's figures, and the ratio
// (active − full) / (random − full) at 150 labels. -picks writes every row a round added,
// with its label and Query score, to see what Query chooses.
//
//	go run ./bench/active -train TRAIN -test TEST -name spambase -out spambase.tsv
//	go run ./bench/active -train TRAIN -test TEST -regression -seeds 5 -workers 2 ...
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/pool"
)

type options struct {
	train, test, name, out string
	picks                  string
	labelCol               dataset.LabelCol
	regression             bool
	seeds, batch, workers  int
	keep                   int
	budgets                []int
	strategies             []string
	full                   bool
	args                   []string // the command line, for the table's comment
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "active:", err)
		os.Exit(2)
	}
	if err := run(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "active:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	o := options{args: args}
	fs := flag.NewFlagSet("active", flag.ContinueOnError)
	fs.StringVar(&o.train, "train", "", "training file (libsvm or CSV): the pool of rows to label")
	fs.StringVar(&o.test, "test", "", "test file, same format")
	fs.StringVar(&o.name, "name", "", "the set's name in the table (default: -train's base name)")
	fs.StringVar(&o.out, "out", "", "the table (TSV); default: stdout's summary only")
	fs.StringVar(&o.picks, "picks", "",
		"a TSV of every row each round added: its row, label and Query score (NA: random)")
	labelCol := fs.String("label-col", "last", "CSV label column: first, last or a number")
	fs.BoolVar(&o.regression, "regression", false,
		"regression with Gaussian noise (ivm train -noise gaussian), for integer targets")
	fs.IntVar(&o.seeds, "seeds", 5, "seeds 1..N: each draws its own start and random rows")
	budgets := fs.String("budgets", "20,30,40,60,80,100,125,150,200,250,300",
		"labels at which the model is scored; the first is the start")
	strategies := fs.String("strategies", "active,random",
		"active (Query), epig and bald (Query by EPIG, by BALD), random, mixP (P % of each "+
			"round's rows random, the others Query's)")
	fs.IntVar(&o.batch, "batch", 10,
		"at most K rows added a round, the model refitted between rounds (0: one round a budget)")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0),
		"(seed, strategy) runs side by side, each fit on one core")
	fs.IntVar(&o.keep, "keep", 0,
		"from a model of this many labels on, update it with the new rows "+
			"(Predictor.Update), its kernel kept, instead of fitting anew (0: fit every round)")
	fs.BoolVar(&o.full, "full", true, "fit the full-data model as the reference")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, o.check(*labelCol, *budgets, *strategies)
}

// check checks the options and sets those given as text.
func (o *options) check(labelCol, budgets, strategies string) error {
	if o.train == "" || o.test == "" {
		return errors.New("usage: active -train TRAIN -test TEST [flags]")
	}
	var err error
	if o.labelCol, err = dataset.ParseLabelCol(labelCol); err != nil {
		return err
	}
	if o.budgets, err = parseBudgets(budgets); err != nil {
		return err
	}
	o.strategies = strings.Split(strategies, ",")
	for i, s := range o.strategies {
		if _, err := randomShare(s); err != nil {
			return err
		}
		if slices.Contains(o.strategies[:i], s) {
			return fmt.Errorf("-strategies: %s twice", s)
		}
	}
	if o.seeds < 1 || o.workers < 1 || o.batch < 0 || o.keep < 0 {
		return errors.New("-seeds and -workers must be positive, -batch and -keep ≥ 0")
	}
	if o.name == "" {
		o.name = strings.TrimSuffix(baseName(o.train), ".train")
	}
	return nil
}

// parseBudgets reads a comma-separated increasing list of label counts, at least 2 each.
func parseBudgets(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 2 || (len(out) > 0 && b <= out[len(out)-1]) {
			return nil, fmt.Errorf("-budgets %q: want increasing counts of at least 2", s)
		}
		out = append(out, b)
	}
	return out, nil
}

func baseName(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// problem is a set as the runs see it: the training rows (the pool with its hidden labels),
// the test rows, and the configuration every fit uses.
type problem struct {
	name     string
	x, xt    *mat.Dense
	y, yt    []float64
	classify bool
	classes  []float64 // the training labels' distinct values (classification)
	cfg      ivm.Config
}

func load(o options) (*problem, error) {
	tr, err := dataset.ReadFile(o.train, dataset.ReadOptions{LabelCol: o.labelCol})
	if err != nil {
		return nil, err
	}
	_, dim := tr.X.Dims()
	// The test rows take the training file's inputs, as ivm predict reads them.
	te, err := dataset.ReadFile(o.test,
		dataset.ReadOptions{LabelCol: o.labelCol, Dim: dim, IgnoreExtra: true})
	if err != nil {
		return nil, err
	}
	pr := &problem{name: o.name, x: tr.X, y: tr.Y, xt: te.X, yt: te.Y}
	// One core a fit: the runs go side by side instead (-workers).
	pr.cfg.Workers = 1
	if o.regression {
		pr.cfg.Task = ivm.Regression
	} else if _, _, ok := ivm.ProbitTask(tr.Y); ok {
		pr.classify = true
		pr.classes = distinct(tr.Y)
	}
	if n, _ := tr.X.Dims(); o.budgets[len(o.budgets)-1] > n {
		return nil, fmt.Errorf("%s: %d rows, fewer than the last budget", o.train, n)
	}
	if pr.classify && minPerClass*len(pr.classes) > o.budgets[0] {
		return nil, fmt.Errorf("%s: %d classes need a start of %d rows or more (-budgets)",
			o.train, len(pr.classes), minPerClass*len(pr.classes))
	}
	return pr, nil
}

func distinct(y []float64) []float64 {
	out := slices.Clone(y)
	slices.Sort(out)
	return slices.Compact(out)
}

// result is one line of the table: a model's figures on the test rows.
type result struct {
	strategy         string
	seed, labels     int
	acc, logLoss     float64 // classification; NaN otherwise
	mse, nlpd        float64 // regression; NaN otherwise
	fitSec, querySec float64 // wall seconds of the fits and queries that led here
	fallbacks        int     // rounds whose model Query refused, their rows drawn at random
}

func run(o options, stdout, stderr io.Writer) error {
	pr, err := load(o)
	if err != nil {
		return err
	}
	results, picks, err := pr.runAll(o, stderr)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeTable(o, pr, results); err != nil {
			return err
		}
	}
	if o.picks != "" {
		if err := writePicks(o, pr, picks); err != nil {
			return err
		}
	}
	return summarise(stdout, o, pr, results)
}

// runAll runs the full-data model and every (seed, strategy) curve on o.workers
// goroutines and returns their results and picks in order.
func (pr *problem) runAll(o options, stderr io.Writer) ([]result, []picked, error) {
	type job struct {
		seed     int
		strategy string
	}
	var jobs []job
	if o.full {
		jobs = append(jobs, job{0, "full"})
	}
	for seed := 1; seed <= o.seeds; seed++ {
		for _, s := range o.strategies {
			jobs = append(jobs, job{seed, s})
		}
	}
	var mu sync.Mutex
	var results []result
	var picks []picked
	start := time.Now()
	err := pool.ForEachErr(len(jobs), o.workers, func(i int) error {
		j := jobs[i]
		var rs []result
		var ps []picked
		var err error
		if j.strategy == "full" {
			rs, err = pr.fullModel()
		} else {
			rs, ps, err = pr.curve(o, j.seed, j.strategy)
		}
		if err != nil {
			return fmt.Errorf("%s, %s, seed %d: %w", pr.name, j.strategy, j.seed, err)
		}
		mu.Lock()
		defer mu.Unlock()
		results, picks = append(results, rs...), append(picks, ps...)
		fmt.Fprintf(stderr, "%s: %s seed %d done (%.0f s)\n", pr.name, j.strategy, j.seed,
			time.Since(start).Seconds())
		return nil
	})
	slices.SortFunc(results, func(a, b result) int {
		return runOrder(a.strategy, b.strategy, a.seed, b.seed, a.labels, b.labels)
	})
	slices.SortStableFunc(picks, func(a, b picked) int {
		return runOrder(a.strategy, b.strategy, a.seed, b.seed, a.after, b.after)
	})
	return results, picks, err
}

// runOrder orders the lines of the table and of the picks, whichever worker made them: by
// strategy, seed and labels.
func runOrder(s1, s2 string, seed1, seed2, n1, n2 int) int {
	if c := strings.Compare(s1, s2); c != 0 {
		return c
	}
	if seed1 != seed2 {
		return seed1 - seed2
	}
	return n1 - n2
}

// fullModel fits the reference model on every training row.
func (pr *problem) fullModel() ([]result, error) {
	n, _ := pr.x.Dims()
	t := time.Now()
	p, err := ivm.Fit(pr.x, pr.y, pr.cfg)
	if err != nil {
		return nil, err
	}
	r := result{strategy: "full", labels: n, fitSec: time.Since(t).Seconds()}
	if err := pr.score(p, &r); err != nil {
		return nil, err
	}
	return []result{r}, nil
}

// picked is a training row a round added: its row (0-based), label and Query score (NaN:
// drawn at random), after how many labels.
type picked struct {
	strategy     string
	seed, after  int
	row          int
	label, score float64
}

// run is one seed's curve for one strategy as it goes: the labelled rows and the rest (as
// training row indices), its own random draws, and what it has recorded.
type curveRun struct {
	strategy         string
	seed             int
	labelled, rest   []int
	rng              *rand.Rand
	fitSec, querySec float64
	fallbacks        int
	picks            []picked
	// p is the model of the first seen labelled rows (nil: none yet).
	p    *ivm.Predictor
	seen int
}

// curve runs one seed's rounds for strategy: fit on the labelled rows, score at each budget,
// add rows until the next.
func (pr *problem) curve(o options, seed int, strategy string) ([]result, []picked, error) {
	c := &curveRun{strategy: strategy, seed: seed}
	c.labelled, c.rest = pr.start(seed, o.budgets[0])
	// The strategies' own draws: a stream per strategy, so that a random strategy's rows do
	// not depend on what another drew.
	share, _ := randomShare(strategy)
	c.rng = rand.New(rand.NewPCG(uint64(seed), 1+uint64(math.Round(100*share))))
	var out []result
	for _, budget := range o.budgets {
		for len(c.labelled) < budget {
			k := budget - len(c.labelled)
			if o.batch > 0 {
				k = min(k, o.batch)
			}
			if err := pr.round(c, k, o); err != nil {
				return nil, nil, err
			}
		}
		p, err := pr.model(c, o.keep)
		if err != nil {
			return nil, nil, err
		}
		r := result{strategy: strategy, seed: seed, labels: budget, fitSec: c.fitSec,
			querySec: c.querySec, fallbacks: c.fallbacks}
		if err := pr.score(p, &r); err != nil {
			return nil, nil, err
		}
		out = append(out, r)
	}
	return out, c.picks, nil
}

// round adds k rows to c's labelled rows by c's strategy, given the model of those it has.
func (pr *problem) round(c *curveRun, k int, o options) error {
	share, _ := randomShare(c.strategy)
	var p *ivm.Predictor
	if share < 1 { // random rows need no model
		var err error
		if p, err = pr.model(c, o.keep); err != nil {
			return err
		}
	}
	t := time.Now()
	opt := ivm.QueryOptions{}
	switch c.strategy {
	case "bald":
		opt.Score = ivm.ScoreBALD
	case "epig":
		opt.Score = ivm.ScoreEPIG
	}
	pick, scores, fellBack, err := pr.choose(p, opt, share, c.rest, k, c.rng)
	if err != nil {
		return err
	}
	c.querySec += time.Since(t).Seconds()
	if fellBack {
		c.fallbacks++
	}
	for i, pos := range pick {
		row := c.rest[pos]
		c.picks = append(c.picks, picked{strategy: c.strategy, seed: c.seed,
			after: len(c.labelled), row: row, label: pr.y[row], score: scores[i]})
	}
	c.labelled, c.rest = move(c.labelled, c.rest, pick)
	return nil
}

// startPerClass is how many rows of each class a classifier's start holds where the start
// has room for them, and minPerClass the fewest: a model must see two classes to be fitted,
// a class absent from the start is one it cannot predict, and the defaults' one-vs-one
// search needs 6 rows of each pair (two a fold, search.CheckRows; with fewer, the defaults
// fall back to one-vs-rest).
const (
	startPerClass = 3
	minPerClass   = 2
)

// start draws seed's first n labelled rows and returns them with the rest, both as
// indices of the training rows. A classifier's start holds startPerClass rows of each class,
// or as many as n has room for (or all of a smaller class), drawn uniformly among that class's
// rows, the others drawn uniformly from all rows.
func (pr *problem) start(seed, n int) (labelled, rest []int) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	all := rng.Perm(len(pr.y))
	taken := make([]bool, len(pr.y))
	if pr.classify {
		perClass := min(startPerClass, n/len(pr.classes))
		for _, c := range pr.classes {
			k := 0
			for _, i := range all {
				if pr.y[i] == c && k < perClass {
					labelled, taken[i] = append(labelled, i), true
					k++
				}
			}
		}
	}
	for _, i := range all {
		if len(labelled) == n {
			break
		}
		if !taken[i] {
			labelled, taken[i] = append(labelled, i), true
		}
	}
	for _, i := range all {
		if !taken[i] {
			rest = append(rest, i)
		}
	}
	return labelled, rest
}

// model returns the model of c's labelled rows: fitted by the defaults (ivm.Fit: `ivm
// train`), or, once a model of keep rows or more has been fitted (keep > 0), that model
// updated with the rows labelled since (Predictor.Update: `ivm update`), its kernel and
// calibration kept and its active sets grown to the d Fit would choose.
func (pr *problem) model(c *curveRun, keep int) (*ivm.Predictor, error) {
	if c.p != nil && c.seen == len(c.labelled) {
		return c.p, nil
	}
	t := time.Now()
	var p *ivm.Predictor
	var err error
	if keep > 0 && c.p != nil && c.seen >= keep {
		x, y := pr.rows(c.labelled[c.seen:])
		p, err = c.p.Update(x, y, ivm.UpdateOptions{Workers: 1})
	} else {
		x, y := pr.rows(c.labelled)
		p, err = ivm.Fit(x, y, pr.cfg)
	}
	if err != nil {
		return nil, err
	}
	c.fitSec += time.Since(t).Seconds()
	c.p, c.seen = p, len(c.labelled)
	return p, nil
}

// rows returns the training rows idx and their targets.
func (pr *problem) rows(idx []int) (*mat.Dense, []float64) {
	y := make([]float64, len(idx))
	for i, r := range idx {
		y[i] = pr.y[r]
	}
	return dataset.RowsOf(pr.x, idx), y
}

// randomShare is the share of a round's rows that strategy draws at random: active, epig and
// bald 0, random 1, mixP P/100.
func randomShare(strategy string) (float64, error) {
	switch strategy {
	case "active", "epig", "bald":
		return 0, nil
	case "random":
		return 1, nil
	}
	p, err := strconv.Atoi(strings.TrimPrefix(strategy, "mix"))
	if !strings.HasPrefix(strategy, "mix") || err != nil || p < 1 || p > 99 {
		return 0, fmt.Errorf("-strategies: %q is not active, epig, bald, random or mixP "+
			"(P from 1 to 99)", strategy)
	}
	return float64(p) / 100, nil
}

// choose returns k of the rest's positions with their Query scores (NaN: drawn at
// random): round(share·k) drawn uniformly, the others the ones Query picks from the rest.
// A model Query refuses (a projected model, or the constant predictor Fit's guard may
// return) has all its rows drawn at random, reported by fellBack.
func (pr *problem) choose(p *ivm.Predictor, opt ivm.QueryOptions, share float64, rest []int,
	k int, rng *rand.Rand) (pick []int, scores []float64, fellBack bool, err error) {
	nRandom := int(math.Round(share * float64(k)))
	if nq := k - nRandom; nq > 0 {
		qs, err := p.Query(dataset.RowsOf(pr.x, rest), nq, opt)
		if err != nil {
			if !strings.Contains(err.Error(), "projected") {
				return nil, nil, false, err
			}
			fellBack = true
		}
		for _, q := range qs {
			pick, scores = append(pick, q.Row), append(scores, q.Score)
		}
	}
	chosen := make(map[int]bool, k)
	for _, i := range pick {
		chosen[i] = true
	}
	for _, i := range rng.Perm(len(rest)) {
		if len(pick) == k {
			break
		}
		if !chosen[i] {
			pick, scores, chosen[i] = append(pick, i), append(scores, math.NaN()), true
		}
	}
	return pick, scores, fellBack, nil
}

// move moves the rest's rows at positions pick to the labelled rows.
func move(labelled, rest, pick []int) ([]int, []int) {
	gone := make(map[int]bool, len(pick))
	for _, i := range pick {
		labelled = append(labelled, rest[i])
		gone[i] = true
	}
	kept := make([]int, 0, len(rest)-len(pick))
	for i, r := range rest {
		if !gone[i] {
			kept = append(kept, r)
		}
	}
	return labelled, kept
}

// probFloor is the least probability the log loss takes, as bench/suite.py clips it: one
// confident mistake costs at most −ln 1e−15 ≈ 34.5 nats.
const probFloor = 1e-15

// score sets r's figures for p on the test rows.
func (pr *problem) score(p *ivm.Predictor, r *result) error {
	preds, err := p.Predict(pr.xt)
	if err != nil {
		return err
	}
	r.acc, r.logLoss, r.mse, r.nlpd = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	n := float64(len(preds))
	if !pr.classify {
		r.mse, r.nlpd = 0, 0
		for i, q := range preds {
			e := pr.yt[i] - q.Mean
			r.mse += e * e / n
			r.nlpd += (0.5*math.Log(2*math.Pi*q.Var) + e*e/(2*q.Var)) / n
		}
		return nil
	}
	r.acc, r.logLoss = 0, 0
	for i, q := range preds {
		if q.Label == pr.yt[i] {
			r.acc += 1 / n
		}
		pt := 0.0
		if c := slices.Index(p.Classes, pr.yt[i]); c >= 0 {
			pt = q.Prob[c]
		}
		r.logLoss -= math.Log(max(pt, probFloor)) / n
	}
	return nil
}

var columns = []string{"set", "strategy", "seed", "labels", "accuracy", "logloss", "mse", "nlpd",
	"fit_s", "query_s", "fallbacks"}

// writeTable writes the results as the table -out names.
func writeTable(o options, pr *problem, results []result) error {
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# bench/active %s\n# %s\n", strings.Join(o.args, " "), roundsOf(o.batch))
	fmt.Fprintln(w, strings.Join(columns, "\t"))
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%d\n", pr.name, r.strategy,
			r.seed, r.labels, num(r.acc), num(r.logLoss), num(r.mse), num(r.nlpd), r.fitSec,
			r.querySec, r.fallbacks)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// num formats a figure for the table: NA where it does not apply.
func num(v float64) string {
	if math.IsNaN(v) {
		return "NA"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// writePicks writes the rows every round added as the file -picks names.
func writePicks(o options, pr *problem, picks []picked) error {
	f, err := os.Create(o.picks)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# bench/active %s\n", strings.Join(o.args, " "))
	fmt.Fprintln(w, "set\tstrategy\tseed\tafter\trow\tlabel\tscore")
	for _, p := range picks {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%g\t%s\n", pr.name, p.strategy, p.seed, p.after,
			p.row, p.label, num(p.score))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
