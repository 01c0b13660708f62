package reproduce

import (
	"io"
	"testing"

	"github.com/ivmlab/ivm/internal/reftest"
)

// The quick subset of the reference's opt runs: ours must be as good or better, and on
// class500_d100_opt, where the reference collapses to 50.75 % error, at most 8 % (Bayes
// error 7.87 %). reg2000: the learnt white variance must be within 30 % of the true noise
// variance 0.01.
func TestRefOptQuick(t *testing.T) {
	rows, err := RefOpt(Config{RefDir: reftest.Dir(), Quick: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d runs, want 3", len(rows))
	}
	for _, r := range rows {
		t.Logf("%s: %s %.4f (reference %.4f), %.1f s, %s",
			r.Run, r.Metric, r.Ours, r.Reference, r.Seconds, r.Kernel)
		if r.Ours > r.Reference {
			t.Errorf("%s: %s %.4f, worse than the reference's %.4f",
				r.Run, r.Metric, r.Ours, r.Reference)
		}
		switch r.Run {
		case "class500_d100_opt":
			if r.Ours > 0.08 {
				t.Errorf("class500_d100_opt: error %.4f > 8 %%", r.Ours)
			}
		case "reg2000_d100_opt":
			if white := r.KernelParams[3]; white < 0.007 || white > 0.013 {
				t.Errorf("reg2000: learnt white variance %v, true noise variance 0.01", white)
			}
		}
	}
}
