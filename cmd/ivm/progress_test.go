package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
)

// On a terminal the bar is redrawn in place and reaches 100 % when every problem is done;
// elsewhere one line per outer iteration is logged, naming the class for multi-class.
func TestProgressDisplay(t *testing.T) {
	var term bytes.Buffer
	p := &progress{w: &term, prefix: "ivm train", terminal: true, start: time.Now()}
	for c := 0; c < 2; c++ {
		for k := 1; k <= 4; k++ {
			p.last = time.Time{} // draw every report
			p.report(ivm.Progress{Problem: c, Problems: 2, Class: float64(c + 5), Selection: 1,
				Selections: 1, Included: k, ActiveSize: 4})
		}
		p.report(ivm.Progress{Problem: c, Problems: 2, Class: float64(c + 5), Selection: 1,
			Selections: 1, Included: 4, ActiveSize: 4, Done: true})
	}
	p.finish()
	out := term.String()
	frames := strings.Split(out, "\r")
	last := frames[len(frames)-1]
	if !strings.Contains(out, "[#######") || !strings.Contains(last, "100%") ||
		!strings.Contains(last, "class 6 (2/2)") || !strings.HasSuffix(out, "\n") {
		t.Errorf("terminal output %q", out)
	}
	if !strings.Contains(frames[1], " 12%") { // 1 of 4 inclusions of the first of two problems
		t.Errorf("first frame %q", frames[1])
	}

	var log bytes.Buffer
	q := newProgress(&log, "ivm train")
	q.report(ivm.Progress{Problem: 1, Problems: 3, Class: 7, Selection: 1, Selections: 3, Iters: 2,
		Included: 4, ActiveSize: 4})
	q.report(ivm.Progress{Problem: 1, Problems: 3, Class: 7, Iters: 2, Selections: 3,
		Trace: &engine.IterTrace{
			Iter: 0, HeldOut: -0.5, KernelBefore: 3, KernelAfter: 2, KernelSteps: 9}})
	q.report(ivm.Progress{Problem: 1, Problems: 3, Class: 7, Iters: 2, Selections: 3,
		Trace: &engine.IterTrace{Final: true, HeldOut: -0.25}})
	q.finish()
	want := "ivm train: class 7: iteration 1/2: held-out log likelihood -0.5000 per point " +
		"at its start; kernel objective 3 -> 2 in 9 steps\n" +
		"ivm train: class 7: final selection: held-out log likelihood -0.2500 per point\n"
	if log.String() != want {
		t.Errorf("log output\n%q\nwant\n%q", log.String(), want)
	}
}
