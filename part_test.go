package ivm_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
)

// fitPart fits one part and reads its part file back, as a machine of a job array would.
func fitPart(t *testing.T, fit func(ivm.Part) (*ivm.Predictor, error), pt ivm.Part) *ivm.Predictor {
	t.Helper()
	p, err := fit(pt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ivm.Load(bytes.NewReader(buf.Bytes())); err == nil ||
		!strings.Contains(err.Error(), "merge the parts") {
		t.Errorf("Load of a part file: %v, want a refusal that says to merge", err)
	}
	q, err := ivm.LoadPart(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Parts fitted separately and merged give the single run's model file, byte for byte, with
// the kernel learnt per class (Algorithm 2) and with the default search (one kernel for all
// classes, searched in every part).
func TestMergedPartsEqualSingleRun(t *testing.T) {
	for name, cfg := range map[string]ivm.Config{
		"algorithm2": {ActiveSize: 40, Learn: engine.LearnOptions{Iters: 1, KernelIters: 5}},
		"search":     {ActiveSize: 40},
	} {
		t.Run(name, func(t *testing.T) { testMergedParts(t, cfg) })
	}
}

func testMergedParts(t *testing.T, cfg ivm.Config) {
	rng := rand.New(rand.NewPCG(5, 6))
	centres := [][]float64{{0, 0}, {3, 0}, {0, 3}, {3, 3}, {1.5, 1.5}}
	x, y := blobs(rng, 30, centres, []float64{1, 2, 3, 4, 5}, 0.8)
	fit := func(pt ivm.Part) (*ivm.Predictor, error) {
		c := cfg
		c.Part = pt
		return ivm.Fit(x, y, c)
	}
	whole, err := fit(ivm.Part{})
	if err != nil {
		t.Fatal(err)
	}
	var parts []*ivm.Predictor
	for i := 2; i >= 0; i-- { // any order
		parts = append(parts, fitPart(t, fit, ivm.Part{Index: i, Count: 3}))
	}
	if _, err := parts[0].Predict(x); err == nil {
		t.Error("a part predicted")
	}
	merged, err := ivm.MergeParts(parts)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := whole.Save(&a); err != nil {
		t.Fatal(err)
	}
	if err := merged.Save(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("the merged parts' model file differs from the single run's")
	}
	for _, bad := range [][]*ivm.Predictor{parts[:2], {parts[0], parts[1], parts[1]},
		{parts[0], parts[1], whole}} {
		if _, err := ivm.MergeParts(bad); err == nil {
			t.Errorf("merged %d parts that are not a complete partition", len(bad))
		}
	}
	other := fitPart(t, func(pt ivm.Part) (*ivm.Predictor, error) {
		p, err := fit(pt)
		if p != nil {
			p.Training.SHA256 = "another file"
		}
		return p, err
	}, ivm.Part{Index: 0, Count: 3})
	if _, err := ivm.MergeParts([]*ivm.Predictor{other, parts[0], parts[1]}); err == nil ||
		!strings.Contains(err.Error(), "other data") {
		t.Errorf("parts of other data: %v", err)
	}
}

// Parts selected with different shared kernels are not merged.
func TestMergeRefusesPartsOfOtherKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := blobs(rng, 20, [][]float64{{0, 0}, {3, 0}, {0, 3}}, []float64{1, 2, 3}, 0.8)
	var parts []*ivm.Predictor
	for i, spec := range []string{"rbf(gamma=1)+white", "rbf(gamma=2)+white"} {
		parts = append(parts, fitPart(t, func(pt ivm.Part) (*ivm.Predictor, error) {
			return ivm.Fit(x, y, ivm.Config{FixedKernel: true, Kernel: spec, ActiveSize: 10,
				Part: pt})
		}, ivm.Part{Index: i, Count: 2}))
	}
	if _, err := ivm.MergeParts(parts); err == nil ||
		!strings.Contains(err.Error(), "same shared kernel") {
		t.Errorf("parts of two kernels: %v", err)
	}
}

func TestPartErrors(t *testing.T) {
	for _, s := range []string{"", "3", "4/4", "-1/3", "a/b", "1/0"} {
		if _, err := ivm.ParsePart(s); err == nil {
			t.Errorf("ParsePart(%q) accepted", s)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := blobs(rng, 20, [][]float64{{0, 0}, {3, 0}, {0, 3}}, []float64{1, 2, 3}, 0.8)
	if _, err := ivm.Fit(x, y, ivm.Config{FixedKernel: true,
		Part: ivm.Part{Index: 0, Count: 4}}); err == nil ||
		!strings.Contains(err.Error(), "3 binary problems") {
		t.Errorf("4 parts of 3 classes: %v", err)
	}
	if _, err := ivm.Fit(x, y[:60:60], ivm.Config{Task: ivm.Regression, FixedKernel: true,
		Part: ivm.Part{Index: 1, Count: 2}}); err == nil ||
		!strings.Contains(err.Error(), "one problem") {
		t.Errorf("2 parts of a regression: %v", err)
	}
}
