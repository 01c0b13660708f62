package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	ivmplot "github.com/ivmlab/ivm/plot"
)

// curveFlags are ivm plot's flags of -curves.
type curveFlags struct {
	table, set, metric string
	logY               bool
}

func (cf *curveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.table, "curves", "",
		"draw the learning curves of `TABLE` (bench/active's TSV) instead of a model")
	fs.StringVar(&cf.set, "set", "", "-curves: the set to draw (default: the table's only one)")
	fs.StringVar(&cf.metric, "metric", "",
		"-curves: the figure to draw, a column of TABLE: logloss, accuracy, mse, nlpd "+
			"(default: log loss, or MSE for regression)")
	fs.BoolVar(&cf.logY, "logy", false, "-curves: a logarithmic y axis")
}

// figureFlags are ivm plot's flags of the figure file.
type figureFlags struct {
	out, width, height, title string
	noLegend, quiet           bool
	maxMem                    memLimit
}

// plot draws -curves TABLE to -o (default: TABLE's name with -METRIC.png for its
// extension).
func (cf *curveFlags) plot(ff figureFlags, stdout io.Writer) error {
	w, err := ivmplot.ParseLength(ff.width)
	if err != nil {
		return fmt.Errorf("-w: %w", err)
	}
	h, err := ivmplot.ParseLength(ff.height)
	if err != nil {
		return fmt.Errorf("-h: %w", err)
	}
	path := ff.out
	if path == "" {
		metric := cf.metric
		if metric == "" {
			metric = "curves"
		}
		path = strings.TrimSuffix(cf.table, filepath.Ext(cf.table)) + "-" + metric + ".png"
	}
	if err := checkFigure(path, w, h); err != nil {
		return err
	}
	if err := checkOutputs([]string{cf.table}, path); err != nil {
		return err
	}
	fig, err := drawCurves(cf.table, cf.set, cf.metric, int64(ff.maxMem)/8,
		ivmplot.Options{Title: ff.title, NoLegend: ff.noLegend, LogY: cf.logY})
	if err != nil {
		return err
	}
	figOut := stdout
	if path == stdoutPath {
		stdout = io.Discard // the figure itself goes there
	}
	if err := saveFigure(path, figOut, fig, w, h); err != nil {
		return err
	}
	if !ff.quiet {
		fmt.Fprintf(stdout, "figure written to %s\n", path)
	}
	return nil
}

// curveTable is a table of learning curves as bench/active writes it: a header line of
// tab-separated column names (set, strategy, labels, optionally seed, then the figures),
// one line per set, strategy, seed and number of labels, "NA" where a figure does not
// apply; blank lines and lines starting with # are skipped.
type curveTable struct {
	path    string
	columns []string
	rows    []curveRow
}

type curveRow struct {
	line   int // 1-based, in the file
	fields []string
}

// curveKeys are the columns that say which run a line is; the others hold its figures.
var curveKeys = []string{"set", "strategy", "seed", "labels"}

// readCurveTable reads the table at path, at most maxBytes of it, checking that every line
// has the header's fields.
func readCurveTable(path string, maxBytes int64) (*curveTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &curveTable{path: path}
	lr := &io.LimitedReader{R: f, N: maxBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if t.columns == nil {
			if err := t.setHeader(fields, line); err != nil {
				return nil, err
			}
			continue
		}
		if len(fields) != len(t.columns) {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, the header has %d", path, line,
				len(fields), len(t.columns))
		}
		t.rows = append(t.rows, curveRow{line: line, fields: fields})
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %s (-max-mem/8)", path, formatBytes(maxBytes))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(t.rows) == 0 {
		return nil, fmt.Errorf("%s: no lines of learning curves (bench/active's table)", path)
	}
	return t, nil
}

// setHeader takes fields as the column names, which must include set, strategy and labels.
func (t *curveTable) setHeader(fields []string, line int) error {
	for _, need := range []string{"set", "strategy", "labels"} {
		if !slices.Contains(fields, need) {
			return fmt.Errorf("%s:%d: the header %q has no column %q "+
				"(want bench/active's table: set, strategy, seed, labels, figures…)",
				t.path, line, strings.Join(fields, " "), need)
		}
	}
	t.columns = fields
	return nil
}

// col returns the value of column name in row r ("" when the table has no such column).
func (t *curveTable) col(r curveRow, name string) string {
	if i := slices.Index(t.columns, name); i >= 0 {
		return r.fields[i]
	}
	return ""
}

// sets returns the table's sets in order of appearance.
func (t *curveTable) sets() []string {
	var out []string
	for _, r := range t.rows {
		if s := t.col(r, "set"); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// metrics returns the figure columns that hold a value (not NA) on some line of set.
func (t *curveTable) metrics(set string) []string {
	var out []string
	for _, c := range t.columns {
		if slices.Contains(curveKeys, c) {
			continue
		}
		for _, r := range t.rows {
			if t.col(r, "set") == set && t.col(r, c) != "NA" {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// pickCurves resolves -set and -metric ("": the table's only set; its first figure of log
// loss, MSE or what the table has) and returns them.
func (t *curveTable) pickCurves(set, metric string) (string, string, error) {
	sets := t.sets()
	switch {
	case set == "" && len(sets) > 1:
		return "", "", fmt.Errorf("%s holds the sets %s; pick one with -set", t.path,
			strings.Join(sets, ", "))
	case set == "":
		set = sets[0]
	case !slices.Contains(sets, set):
		return "", "", fmt.Errorf("-set %s: %s holds the sets %s", set, t.path,
			strings.Join(sets, ", "))
	}
	have := t.metrics(set)
	if len(have) == 0 {
		return "", "", fmt.Errorf("%s: set %s has no figures", t.path, set)
	}
	switch {
	case metric == "":
		metric = have[0]
		for _, m := range []string{"mse", "logloss"} {
			if slices.Contains(have, m) {
				metric = m
			}
		}
	case !slices.Contains(have, metric):
		return "", "", fmt.Errorf("-metric %s: set %s of %s has the figures %s", metric, set,
			t.path, strings.Join(have, ", "))
	}
	return set, metric, nil
}

// curvePoints returns set's values of metric: a point per line, and the full-data model's
// ("full" lines) as references; seeds is the number of distinct seeds of the points.
func (t *curveTable) curvePoints(set, metric string) (pts []ivmplot.CurvePoint,
	refs []ivmplot.CurveReference, seeds int, err error) {
	seen := map[string]bool{}
	for _, r := range t.rows {
		if t.col(r, "set") != set || t.col(r, metric) == "NA" {
			continue
		}
		labels, err := t.number(r, "labels")
		if err != nil {
			return nil, nil, 0, err
		}
		v, err := t.number(r, metric)
		if err != nil {
			return nil, nil, 0, err
		}
		if s := t.col(r, "strategy"); s == "full" {
			name := fmt.Sprintf("full data (%g labels)", labels)
			refs = append(refs, ivmplot.CurveReference{Name: name, Value: v})
		} else {
			pts = append(pts, ivmplot.CurvePoint{Strategy: s, Labels: labels, Value: v})
			seen[t.col(r, "seed")] = true
		}
	}
	if len(pts) == 0 {
		return nil, nil, 0, fmt.Errorf("%s: set %s has no %s values but the full model's", t.path,
			set, metric)
	}
	return pts, refs, len(seen), nil
}

// number parses column name of row r as a finite number.
func (t *curveTable) number(r curveRow, name string) (float64, error) {
	s := t.col(r, name)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !finiteValue(v) {
		return 0, fmt.Errorf("%s:%d: %s %q is not a number", t.path, r.line, name, s)
	}
	return v, nil
}

func finiteValue(v float64) bool { return v-v == 0 }

// metricNames are the axis labels of bench/active's figures.
var metricNames = map[string]string{"logloss": "test log loss", "accuracy": "test accuracy",
	"mse": "test MSE", "nlpd": "test NLPD"}

// drawCurves draws -curves TABLE: set's learning curves of metric.
func drawCurves(path, set, metric string, maxBytes int64, opt ivmplot.Options) (*ivmplot.Figure,
	error) {
	t, err := readCurveTable(path, maxBytes)
	if err != nil {
		return nil, err
	}
	if set, metric, err = t.pickCurves(set, metric); err != nil {
		return nil, err
	}
	pts, refs, seeds, err := t.curvePoints(set, metric)
	if err != nil {
		return nil, err
	}
	opt.XLabel = "labels used"
	if opt.YLabel = metricNames[metric]; opt.YLabel == "" {
		opt.YLabel = metric
	}
	if opt.Title == "" {
		opt.Title = fmt.Sprintf("%s: %s, mean ± 1 sd over %d seeds", set, opt.YLabel, seeds)
	}
	fig, err := ivmplot.LearningCurves(pts, refs, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fig, nil
}

// errCurvesArgs is the error of -curves with a model or with flags that draw one.
var errCurvesArgs = errors.New("-curves TABLE draws a table of learning curves: " +
	"give no MODEL, DATA, -trace or -model")
