package reproduce

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestNCNMToy is the extensions paper's toy (§4.4, Fig. 5) on both generators, ten seeds
// each: 400 points labelled with probability 0.1, an IVM on the labelled points alone
// against the null category model with d = 100, both learning their kernels, 2000 fresh
// test points per seed.
//
// Measured (seed 0): on the paper's data (the authors' generator, both models without a
// bias) labelled-only 1.10 %, NCNM 0.38 %, boundary densities 0.0009 and 0.0004; on the
// interlocking crescents 3.65 % and 1.51 %, densities 0.0451 and 0.0393. The issue asks
// for a 5-point gap, which neither gives: the IVM on about 40 labelled points already errs
// on about 1 % of the paper's test points.
func TestNCNMToy(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: learns the kernels of two models on each null-category toy")
	}
	rows, err := NCNMToy(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Toy != "paper" || rows[1].Toy != "crescents" {
		t.Fatalf("rows %v", rows)
	}
	// The least gap in points and the largest ratio of the NCNM boundary's data density to
	// the labelled-only one's, per toy: about half the measured gaps, ratios about 1.5× the
	// measured ones (standard errors of the gaps over ten seeds: 0.1 and 0.7 points).
	bounds := map[string]struct{ gap, ratio float64 }{"paper": {0.35, 0.6},
		"crescents": {1.5, 0.95}}
	for _, r := range rows {
		el, _ := sampleMeanSD(r.ErrLabelled)
		en, _ := sampleMeanSD(r.ErrNCNM)
		dl, _ := sampleMeanSD(r.DensLabelled)
		dn, _ := sampleMeanSD(r.DensNCNM)
		t.Logf("%s: labelled-only %.2f %%, NCNM %.2f %%; boundary density %.4f against %.4f",
			r.Toy, el, en, dl, dn)
		b := bounds[r.Toy]
		if en > el-b.gap {
			t.Errorf("%s: NCNM %.2f %% is not %.2f points better than the labelled-only "+
				"IVM's %.2f %%", r.Toy, en, b.gap, el)
		}
		if dn >= b.ratio*dl {
			t.Errorf("%s: NCNM boundary density %.4f is not below %.2f × the labelled-only "+
				"boundary's %.4f", r.Toy, dn, b.ratio, dl)
		}
		for s, n := range r.Labelled {
			// About 40 of 400 labelled; fewer than 20 or more than 65 is a broken draw.
			if n < 20 || n > 65 {
				t.Errorf("%s seed %d: %d labelled points", r.Toy, s, n)
			}
		}
	}
	var out bytes.Buffer
	writeNCNMToy(&out, rows)
	if !strings.Contains(out.String(), "paper      rbf+white") ||
		!strings.Contains(out.String(), "crescents  rbf+bias+white") {
		t.Errorf("table:\n%s", out.String())
	}
	path := filepath.Join(t.TempDir(), "fig5.png")
	if err := ncnmToyFigure(rows[0], path); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
}
