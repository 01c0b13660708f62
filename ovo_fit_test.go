package ivm_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
)

// The default Fit of a multi-class task on few rows trains one binary predictor per pair
// of classes, each searched on the pair's rows (a probit model, or its blend with the label
// regression), and couples their probabilities: a
// distribution per row whose largest entry is the label, as accurate as the one-vs-rest
// search on these blobs, and a model file that round-trips exactly.
func TestFitOneVsOne(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: searches six one-vs-one pairs of 600 rows")
	}
	x, y := polygon(600, 4, 1)
	xt, yt := polygon(2000, 4, 2)
	p, err := ivm.Fit(x, y, ivm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if k := asOVO(p); k == nil || len(k.Pairs) != 6 {
		t.Fatalf("kind %T: want 6 one-vs-one pairs", p.Kind)
	}
	for j, want := range [][]float64{{1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}} {
		pp := asOVO(p).Pairs[j]
		var scaled *dataset.Scaler
		if s := asSingle(pp); s != nil {
			scaled = s.Scaler
		} else { // the label regression and the probit model, each scaled
			scaled = asSingle(asBlend(pp).Members[0]).Scaler
		}
		if pp.Task != ivm.Binary || pp.Classes[0] != want[0] || pp.Classes[1] != want[1] ||
			scaled == nil {
			t.Fatalf("pair %d: %v task of classes %v, scaler %v; want a scaled binary "+
				"predictor of %v", j, pp.Task, pp.Classes, scaled, want)
		}
	}
	blended := 0
	for _, pp := range asOVO(p).Pairs {
		if asBlend(pp) != nil {
			blended++
		}
	}
	if blended == 0 || len(p.Submodels()) != 6+blended {
		t.Errorf("%d blended pairs, %d submodels: want some pairs blended, each member listed",
			blended, len(p.Submodels()))
	}
	if acc := accuracy(t, p, xt, yt); acc < 0.93 {
		t.Errorf("test accuracy %.3f, want ≥ 0.93", acc)
	}
	preds, err := p.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range preds[:50] {
		sum, top := 0.0, 0
		for c, v := range q.Prob {
			sum += v
			if v > q.Prob[top] {
				top = c
			}
		}
		if math.Abs(sum-1) > 1e-9 || q.Label != p.Classes[top] || len(q.Latent) != 6 ||
			len(q.LatentVar) != 6 || q.Mean != 0 || q.Var != 0 {
			t.Fatalf("row %d: %+v: want probabilities summing to 1, the label their largest, "+
				"a latent per pair", i, q)
		}
	}
	q := roundTrip(t, p, xt)
	if len(asOVO(q).Pairs) != 6 {
		t.Fatalf("loaded %d pairs", len(asOVO(q).Pairs))
	}
	ovr, err := ivm.Fit(x, y, ivm.Config{Decomposition: ivm.OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	if accO := accuracy(t, ovr, xt, yt); accuracy(t, p, xt, yt) < accO-0.01 {
		t.Errorf("one-vs-one accuracy %.3f, one-vs-rest %.3f", accuracy(t, p, xt, yt), accO)
	}
}

// Explicit one-vs-one with Algorithm 2 learns each pair's kernel; the pairs' settings
// (d capped at the pair's rows) come from the Config.
func TestFitOneVsOneAlgorithm2(t *testing.T) {
	x, y := polygon(150, 3, 3)
	p, err := ivm.Fit(x, y, ivm.Config{Decomposition: ivm.OneVsOne, ActiveSize: 500,
		Learn: engine.LearnOptions{Iters: 1, KernelIters: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if asOVO(p) == nil || len(asOVO(p).Pairs) != 3 {
		t.Fatalf("kind %T, want 3 pairs", p.Kind)
	}
	for j, pp := range asOVO(p).Pairs {
		if s := asSingle(pp); len(s.Trace) == 0 || s.Model.Size() != 100 {
			t.Errorf("pair %d: trace %v, %d active points: want Algorithm 2 with d = the pair's "+
				"100 rows", j, s.Trace, s.Model.Size())
		}
	}
	for _, w := range p.Warnings {
		if strings.Contains(w, "exceeds") {
			t.Errorf("warning %q: d is capped at a pair's rows silently", w)
		}
	}
}

// A one-vs-one training split into parts merges into the single run's model file, byte
// for byte; one-vs-one and one-vs-rest parts do not merge.
func TestOneVsOneParts(t *testing.T) {
	x, y := polygon(300, 4, 5)
	whole, err := ivm.Fit(x, y, ivm.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := whole.Save(&want); err != nil {
		t.Fatal(err)
	}
	var parts []*ivm.Predictor
	for i := range 3 {
		parts = append(parts, fitPart(t, func(pt ivm.Part) (*ivm.Predictor, error) {
			return ivm.Fit(x, y, ivm.Config{Workers: 2, Part: pt})
		}, ivm.Part{Index: i, Count: 3}))
	}
	merged, err := ivm.MergeParts(parts)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := merged.Save(&got); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Error("merged one-vs-one parts differ from the single run's model file")
	}
	ovr := fitPart(t, func(pt ivm.Part) (*ivm.Predictor, error) {
		return ivm.Fit(x, y, ivm.Config{Decomposition: ivm.OneVsRest, Part: pt})
	}, ivm.Part{Index: 2, Count: 3})
	if _, err := ivm.MergeParts([]*ivm.Predictor{parts[0], parts[1], ovr}); err == nil ||
		!strings.Contains(err.Error(), "one-vs-one") {
		t.Errorf("merging one-vs-one and one-vs-rest parts: %v", err)
	}
	if _, err := ivm.Fit(x, y, ivm.Config{Part: ivm.Part{Index: 0, Count: 7}}); err == nil ||
		!strings.Contains(err.Error(), "6 binary problems") {
		t.Errorf("7 parts of 6 pairs: %v", err)
	}
}

// Load refuses one-vs-one files whose pairs do not match their classes.
func TestLoadOneVsOneErrors(t *testing.T) {
	x, y := polygon(90, 3, 4)
	p, err := ivm.Fit(x, y, ivm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, c := range []struct{ old, new, want string }{
		{`"classes": [
  1,
  2,
  3
 ]`, `"classes": [1, 2, 3, 4]`, "4 classes with 3 one-vs-one pairs"},
		{`"classes": [
    1,
    2
   ]`, `"classes": [2, 1]`, "pair 1 has classes [2 1], want [1 2]"},
		{`"task": "multiclass"`, `"task": "binary"`,
			"a binary task of 3 classes with 3 one-vs-one pairs"},
		{`"training"`, `"sharpness": 2, "training"`, "scaling and calibration are its pairs'"},
		{`"training"`, `"softmax": true, "training"`, "scaling and calibration are its pairs'"},
		{`"training"`, `"kernel": {}, "training"`, `both one-vs-one "pairs" and other models`},
	} {
		if !strings.Contains(good, c.old) {
			t.Fatalf("the model file lacks %q:\n%.600s", c.old, good)
		}
		_, err := ivm.Load(strings.NewReader(strings.Replace(good, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: %v, want an error with %q", c.old, c.new, err, c.want)
		}
	}
}
