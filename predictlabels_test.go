package ivm_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
)

// PredictLabels gives Predict's latent means and, for binary and regression models, its
// labels; a one-vs-rest label is the class of the largest mean and a one-vs-one label the
// class with the most pairs' votes, which agree with Predict's on all but near ties.
func TestPredictLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	centres := [][]float64{{0, 0}, {2.5, 0}, {0, 2.5}, {2.5, 2.5}}
	x, y := blobs(rng, 40, centres, []float64{1, 2, 3, 4}, 0.9)
	xt, _ := blobs(rng, 100, centres, []float64{1, 2, 3, 4}, 0.9)
	yBin := make([]float64, len(y))
	yReg := make([]float64, len(y))
	for i := range y {
		yBin[i] = math.Mod(y[i], 2)
		yReg[i] = math.Sin(x.At(i, 0)) + x.At(i, 1)
	}
	fixed := ivm.Config{FixedKernel: true, ActiveSize: 30}
	ovr, ovo := fixed, fixed
	ovr.Decomposition, ovo.Decomposition = ivm.OneVsRest, ivm.OneVsOne
	for _, c := range []struct {
		name  string
		y     []float64
		cfg   ivm.Config
		exact bool
	}{
		{"binary", yBin, fixed, true},
		{"regression", yReg, ivm.Config{FixedKernel: true, ActiveSize: 30, Task: ivm.Regression},
			true},
		{"one-vs-rest", y, ovr, false},
		{"one-vs-one", y, ovo, false},
	} {
		p, err := ivm.Fit(x, c.y, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		full, err := p.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.PredictLabels(xt)
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for i, g := range got {
			if g.Prob != nil || g.LatentVar != nil || g.Var != 0 ||
				len(g.Latent) != len(full[i].Latent) {
				t.Fatalf("%s row %d: %+v, want Label, Mean and Latent alone", c.name, i, g)
			}
			for m := range g.Latent {
				if math.Abs(g.Latent[m]-full[i].Latent[m]) > 1e-12*(1+math.Abs(full[i].Latent[m])) {
					t.Fatalf("%s row %d model %d: mean %v, Predict's %v",
						c.name, i, m, g.Latent[m], full[i].Latent[m])
				}
			}
			if !c.exact {
				if want := expectedLabel(p, g.Latent); g.Label != want {
					t.Fatalf("%s row %d: label %v, want %v from the means %v",
						c.name, i, g.Label, want, g.Latent)
				}
			}
			if g.Label == full[i].Label {
				agree++
			}
		}
		switch {
		case c.exact && agree != len(got):
			t.Errorf("%s: %d of %d labels are Predict's, want all", c.name, agree, len(got))
		case agree < len(got)*97/100:
			t.Errorf("%s: %d of %d labels are Predict's, want all but near ties",
				c.name, agree, len(got))
		}
	}
}

// expectedLabel is the label a one-vs-rest or one-vs-one predictor's latent means give:
// the largest mean's class, or the class with most pairs' votes (the first of those tied).
func expectedLabel(p *ivm.Predictor, mean []float64) float64 {
	k := len(p.Classes)
	if asOVO(p) == nil {
		best := 0
		for c := range mean {
			if mean[c] > mean[best] {
				best = c
			}
		}
		return p.Classes[best]
	}
	votes := make([]int, k)
	j := 0
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			if mean[j] >= 0 {
				votes[b]++
			} else {
				votes[a]++
			}
			j++
		}
	}
	best := 0
	for c := range votes {
		if votes[c] > votes[best] {
			best = c
		}
	}
	return p.Classes[best]
}

// PredictLabels refuses what Predict refuses: rows of the wrong width, values that are not
// finite, a part file's predictor.
func TestPredictLabelsErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	x, y := blobs(rng, 15, [][]float64{{0, 0}, {3, 0}, {0, 3}}, []float64{1, 2, 3}, 0.6)
	p, err := ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PredictLabels(mat.NewDense(2, 3, nil)); err == nil ||
		!strings.Contains(err.Error(), "input columns") {
		t.Errorf("three columns for a two-input model: %v", err)
	}
	if _, err := p.PredictLabels(mat.NewDense(1, 2, []float64{math.NaN(), 0})); err == nil {
		t.Error("a NaN input: no error")
	}
	part, err := ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 10,
		Part: ivm.Part{Index: 0, Count: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.PredictLabels(x); err == nil {
		t.Error("a part's predictor: no error")
	}
}
