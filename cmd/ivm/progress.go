package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ivmlab/ivm"
)

// progress shows ivm.Fit's progress on stderr: a bar redrawn in place when stderr is a
// terminal, otherwise one line per outer iteration of Algorithm 2 (a log that reads well
// in a file or a CI transcript).
type progress struct {
	w        io.Writer
	prefix   string
	terminal bool
	start    time.Time
	last     time.Time
	drawn    bool
	// frac holds each problem's completed fraction.
	frac []float64
	// searchEnd is when the kernel search last reported (zero: no search).
	searchEnd time.Time
	// quarters is how many quarters of a projected model's rows logRows has reported.
	quarters int
}

func newProgress(w io.Writer, prefix string) *progress {
	p := &progress{w: w, prefix: prefix, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// report receives ivm.Fit's reports (serialised by Fit).
func (p *progress) report(pr ivm.Progress) {
	if p.frac == nil {
		p.frac = make([]float64, pr.Problems)
	}
	if pr.Search > 0 {
		if pr.Pair && !p.terminal {
			return // a line per kernel of every pair would bury the pairs' progress
		}
		p.logSearch(pr)
		return
	}
	if pr.Rows > 0 {
		p.frac[pr.Problem] = float64(pr.RowsDone) / float64(pr.Rows)
		if !p.terminal && !pr.Done {
			p.logRows(pr)
		}
	}
	if pr.Selections > 0 && pr.ActiveSize > 0 {
		done := float64(max(pr.Selection-1, 0)) + float64(pr.Included)/float64(pr.ActiveSize)
		p.frac[pr.Problem] = min(done/float64(pr.Selections), 1)
	}
	if pr.Done {
		p.frac[pr.Problem] = 1
	}
	if p.terminal {
		if time.Since(p.last) < 100*time.Millisecond && !pr.Done {
			return
		}
		p.last = time.Now()
		p.draw(pr)
		return
	}
	if pr.Trace != nil {
		p.logTrace(pr)
	}
	if pr.Done && pr.Trace == nil {
		p.logDone(pr)
	}
}

// logSearch reports one kernel the search scored: on a terminal in the bar's line,
// otherwise as a line of its own.
func (p *progress) logSearch(pr ivm.Progress) {
	if !pr.Pair {
		// A one-vs-one training searches in every pair: its estimate counts from the start.
		p.searchEnd = time.Now()
	}
	if p.terminal {
		what := ""
		if pr.Pair {
			what = fmt.Sprintf(" %s (%d/%d)", problemName(pr), pr.Problem+1, pr.Problems)
		}
		fmt.Fprintf(p.w, "\r%s:%s choosing the kernel: %d scored, last %.4f %.0fs\033[K",
			p.prefix, what, pr.Search, pr.SearchScore, time.Since(p.start).Seconds())
		p.drawn = true
		return
	}
	prior := ""
	if pr.SearchPrior != 0 {
		prior = fmt.Sprintf(" (the constant predictor: %.4f)", pr.SearchPrior)
	}
	fmt.Fprintf(p.w, "%s: search %d: %s: held-out log loss %.4f per row%s\n", p.prefix, pr.Search,
		pr.SearchKernel, pr.SearchScore, prior)
}

// logDone reports a finished problem with an estimate of the time the others need: the
// time per unit of progress so far (since the kernel search ended), times what is left.
func (p *progress) logDone(pr ivm.Progress) {
	if p.terminal {
		return
	}
	lead := p.prefix + ": "
	if pr.Problems > 1 {
		lead += problemName(pr) + " "
	}
	if pr.Rows > 0 {
		fmt.Fprintf(p.w, "%sdone (%d rows through %d centres, %s since the search)\n",
			lead, pr.Rows, pr.ActiveSize, time.Since(p.searchEnd).Round(time.Second))
		return
	}
	done := 0.0
	for _, f := range p.frac {
		done += f
	}
	from := p.start
	if !p.searchEnd.IsZero() {
		from = p.searchEnd
	}
	elapsed := time.Since(from)
	left := time.Duration(float64(elapsed) * (float64(len(p.frac)) - done) / max(done, 1e-9))
	fmt.Fprintf(p.w,
		"%sdone (%d of %d active points selected; %.0f of %d problems done, "+
			"%s so far, about %s left)\n",
		lead, pr.Included, pr.ActiveSize, done, len(p.frac), elapsed.Round(time.Second),
		left.Round(time.Second))
}

// logRows reports a projected model's fit at each quarter of its rows, with an estimate
// of the time left (its time per row so far).
func (p *progress) logRows(pr ivm.Progress) {
	q := 4 * pr.RowsDone / pr.Rows
	if q <= p.quarters {
		return
	}
	p.quarters = q
	elapsed := time.Since(p.searchEnd)
	left := time.Duration(float64(elapsed) * float64(pr.Rows-pr.RowsDone) /
		float64(max(pr.RowsDone, 1)))
	fmt.Fprintf(p.w, "%s: fitting: %d of %d rows through %d centres, %s so far, about %s left\n",
		p.prefix, pr.RowsDone, pr.Rows, pr.ActiveSize, elapsed.Round(time.Second),
		left.Round(time.Second))
}

// problemName names the binary problem a report is about: "class 3" (one-vs-rest) or
// "classes 1 and 3" (a one-vs-one pair).
func problemName(pr ivm.Progress) string {
	if pr.Pair {
		return fmt.Sprintf("classes %g and %g", pr.Against, pr.Class)
	}
	return fmt.Sprintf("class %g", pr.Class)
}

func (p *progress) draw(pr ivm.Progress) {
	total := 0.0
	for _, f := range p.frac {
		total += f
	}
	total /= float64(len(p.frac))
	const width = 30
	fill := int(total * width)
	what := fmt.Sprintf("selection %d/%d, %d/%d active", pr.Selection, pr.Selections, pr.Included,
		pr.ActiveSize)
	if pr.Rows > 0 {
		what = fmt.Sprintf("fitting: %d/%d rows through %d centres",
			pr.RowsDone, pr.Rows, pr.ActiveSize)
	}
	if pr.Problems > 1 {
		what = fmt.Sprintf("%s (%d/%d): ", problemName(pr), pr.Problem+1, pr.Problems) + what
	}
	eta := ""
	if total > 0.02 {
		from := p.start
		if !p.searchEnd.IsZero() {
			from = p.searchEnd
		}
		eta = fmt.Sprintf(", about %.0fs left", time.Since(from).Seconds()*(1-total)/total)
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %s %.0fs%s\033[K", p.prefix, strings.Repeat("#", fill),
		strings.Repeat("-", width-fill),
		100*total, what, time.Since(p.start).Seconds(), eta)
	p.drawn = true
}

// logTrace writes one line per outer iteration.
func (p *progress) logTrace(pr ivm.Progress) {
	tr := pr.Trace
	lead := p.prefix + ": "
	if pr.Problems > 1 {
		lead += problemName(pr) + ": "
	}
	if tr.Final {
		fmt.Fprintf(p.w, "%sfinal selection: held-out log likelihood %.4f per point\n",
			lead, tr.HeldOut)
		return
	}
	iters := pr.Iters
	fmt.Fprintf(p.w,
		"%siteration %d/%d: held-out log likelihood %.4f per point at its start; "+
			"kernel objective %.6g -> %.6g in %d steps",
		lead, tr.Iter+1, iters, tr.HeldOut, tr.KernelBefore, tr.KernelAfter, tr.KernelSteps)
	if tr.NoiseSteps > 0 {
		fmt.Fprintf(p.w, "; noise objective %.6g -> %.6g in %d steps",
			tr.NoiseBefore, tr.NoiseAfter, tr.NoiseSteps)
	}
	if tr.Rejected {
		fmt.Fprintf(p.w, "; its new parameters rejected (held-out likelihood fell), learning stops")
	} else if tr.Halvings > 0 {
		fmt.Fprintf(p.w, "; step halved %d times", tr.Halvings)
	}
	if tr.EPFailures > 0 {
		fmt.Fprintf(p.w, " (%d refused steps: EP failed)", tr.EPFailures)
	}
	fmt.Fprintln(p.w)
}

// finish ends the bar's line. It is safe on a nil progress.
func (p *progress) finish() {
	if p != nil && p.drawn {
		fmt.Fprintln(p.w)
	}
}

// searchTrace is where ivm.Fit's kernel search writes a line for every kernel it scores
// (ivm.Config.SearchTrace): stderr where the environment sets IVM_SEARCH_TRACE=1, for
// diagnosing what it chose; nil otherwise.
func searchTrace() io.Writer {
	if os.Getenv("IVM_SEARCH_TRACE") == "1" {
		return os.Stderr
	}
	return nil
}
