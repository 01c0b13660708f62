package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// metric is one figure of a result, named as in the table.
type metric struct {
	name string
	of   func(r result) float64
}

// metricsOf are the figures the summary shows for a set: its first is the one the targets
// of issue 49 are stated in (log loss, or MSE for regression).
func metricsOf(classify bool) []metric {
	if classify {
		return []metric{{"logloss", func(r result) float64 { return r.logLoss }},
			{"accuracy", func(r result) float64 { return r.acc }}}
	}
	return []metric{{"mse", func(r result) float64 { return r.mse }},
		{"nlpd", func(r result) float64 { return r.nlpd }}}
}

// summarise prints, for each figure, a line per budget with each strategy's mean ± sd over
// the seeds, then the full-data model's figures and the targets of issue 49 on the first
// figure: active ≤ random at every budget from 60 to 300 labels, and at 150 labels
// (active − full) ≤ 0.75 (random − full).
func summarise(w io.Writer, o options, pr *problem, results []result) error {
	n, _ := pr.x.Dims()
	nt, _ := pr.xt.Dims()
	task := "regression"
	if pr.classify {
		task = fmt.Sprintf("%d classes", len(pr.classes))
	}
	fmt.Fprintf(w, "%s (%s, %d training rows, %d test rows), %d seeds, %s; mean ± sd\n",
		pr.name, task, n, nt, o.seeds, roundsOf(o.batch))
	ms := metricsOf(pr.classify)
	for _, m := range ms {
		fmt.Fprintf(w, "%-7s", "labels")
		for _, s := range o.strategies {
			fmt.Fprintf(w, "  %-22s", s+" "+m.name)
		}
		fmt.Fprintln(w)
		for _, b := range o.budgets {
			fmt.Fprintf(w, "%-7d", b)
			for _, s := range o.strategies {
				v := values(results, s, b, m)
				mean, sd := stat.Mean(v, nil), 0.0
				if len(v) > 1 {
					sd = stat.StdDev(v, nil)
				}
				fmt.Fprintf(w, "  %-22s", fmt.Sprintf("%.4g ± %.2g", mean, sd))
			}
			fmt.Fprintln(w)
		}
	}
	full := slices.IndexFunc(results, func(r result) bool { return r.strategy == "full" })
	if full < 0 {
		return nil
	}
	for _, m := range ms {
		fmt.Fprintf(w, "full data (%d rows): %s %.4g\n", n, m.name, m.of(results[full]))
	}
	targets(w, o, results, ms[0], ms[0].of(results[full]))
	return nil
}

// values are the figure m of strategy s's results at budget b, one per seed.
func values(results []result, s string, b int, m metric) []float64 {
	var v []float64
	for _, r := range results {
		if r.strategy == s && r.labels == b {
			v = append(v, m.of(r))
		}
	}
	return v
}

// targets prints the two targets of issue 49 on figure m for each strategy beside random.
func targets(w io.Writer, o options, results []result, m metric, full float64) {
	if !slices.Contains(o.strategies, "random") {
		return
	}
	mean := func(s string, b int) float64 {
		return stat.Mean(values(results, s, b, m), nil)
	}
	for _, s := range o.strategies {
		if s != "random" {
			target1(w, s, o.budgets, m.name, mean)
			target2(w, s, o.budgets, full, mean)
		}
	}
}

// target1 says whether strategy s's mean figure is at most random's at every budget from
// 60 to 300 labels.
func target1(w io.Writer, s string, budgets []int, name string, mean func(string, int) float64) {
	var worse, checked []string
	for _, b := range budgets {
		if b >= 60 && b <= 300 {
			checked = append(checked, fmt.Sprint(b))
			if mean(s, b) > mean("random", b) {
				worse = append(worse, fmt.Sprint(b))
			}
		}
	}
	switch {
	case len(checked) == 0:
	case len(worse) == 0:
		fmt.Fprintf(w, "%s: target 1 met: %s ≤ random's at every budget from 60 to 300\n", s,
			name)
	default:
		fmt.Fprintf(w, "%s: target 1 missed: %s > random's at %s labels\n", s, name,
			strings.Join(worse, ", "))
	}
}

// target2 says whether strategy s at 150 labels is at least 25 % closer to the full-data
// model's figure than random is: s − full ≤ 0.75 (random − full).
func target2(w io.Writer, s string, budgets []int, full float64,
	mean func(string, int) float64) {
	if !slices.Contains(budgets, 150) {
		return
	}
	a, r := mean(s, 150)-full, mean("random", 150)-full
	verdict := "met"
	if !(a <= 0.75*r) {
		verdict = "missed"
	}
	fmt.Fprintf(w, "%s: target 2 %s: at 150 labels %s − full %.4g, random − full %.4g, "+
		"ratio %.3f (≤ 0.75 wanted)\n", s, verdict, s, a, r, a/r)
}

// roundsOf says how the rows between two budgets are added, for batch -batch.
func roundsOf(batch int) string {
	if batch == 0 {
		return "one round a budget"
	}
	return fmt.Sprintf("rounds of at most %d rows", batch)
}
