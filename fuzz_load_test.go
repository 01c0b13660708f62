package ivm_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ivmlab/ivm"
)

// FuzzLoad feeds arbitrary bytes to Load: it must never panic, and whatever it accepts
// must predict without error and save back to a file that loads to the same bytes again.
// Seeds: the committed corpus in testdata/fuzz/FuzzLoad and the valid files made here.
func FuzzLoad(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := blobs(rng, 6, [][]float64{{0, 0}, {2, 2}, {0, 3}}, []float64{1, 2, 3}, 0.5)
	for _, cfg := range []ivm.Config{
		{FixedKernel: true, ActiveSize: 4},
		{FixedKernel: true, ActiveSize: 5, Task: ivm.Ordinal, Scale: ivm.ScaleMinMax},
		{FixedKernel: true, ActiveSize: 3, Task: ivm.Regression, Scale: ivm.ScaleNone},
		{FixedKernel: true, ActiveSize: 4, Decomposition: ivm.OneVsOne},
	} {
		p, err := ivm.Fit(x, y, cfg)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := p.Save(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"format":"ivm-model/1"}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"models":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ivm.Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		if _, err := p.Predict(x.Slice(0, 2, 0, p.InputDim())); err != nil && p.InputDim() <= 2 {
			t.Fatalf("a loaded model fails to predict: %v", err)
		}
		var a bytes.Buffer
		if err := p.Save(&a); err != nil {
			t.Fatalf("a loaded model cannot be saved: %v", err)
		}
		q, err := ivm.Load(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("a saved model does not load: %v\n%s", err, a.Bytes())
		}
		var b bytes.Buffer
		if err := q.Save(&b); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("second round trip differs (%v)", err)
		}
	})
}

// FuzzLoadPart feeds arbitrary bytes to LoadPart: it must never panic, and a part it
// accepts must save back to a part file that loads to the same bytes again.
func FuzzLoadPart(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := blobs(rng, 6, [][]float64{{0, 0}, {2, 2}, {0, 3}}, []float64{1, 2, 3}, 0.5)
	for _, cfg := range []ivm.Config{
		{FixedKernel: true, ActiveSize: 4, Part: ivm.Part{Index: 1, Count: 2}},
		{FixedKernel: true, ActiveSize: 4, Decomposition: ivm.OneVsOne, Part: ivm.Part{Index: 0, Count: 2}},
	} {
		p, err := ivm.Fit(x, y, cfg)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := p.Save(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"format":"ivm-part/1","part":{"index":0,"count":2},"task":"multiclass","classes":[1,2,3],"pairs":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ivm.LoadPart(bytes.NewReader(data))
		if err != nil {
			return
		}
		var a bytes.Buffer
		if err := p.Save(&a); err != nil {
			t.Fatalf("a loaded part cannot be saved: %v", err)
		}
		q, err := ivm.LoadPart(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("a saved part does not load: %v\n%s", err, a.Bytes())
		}
		var b bytes.Buffer
		if err := q.Save(&b); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("second round trip differs (%v)", err)
		}
	})
}
