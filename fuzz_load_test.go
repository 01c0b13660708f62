package ivm_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
)

// FuzzLoad feeds arbitrary bytes to Load: it must never panic, and whatever it accepts
// must predict without error and save back to a file that loads to the same bytes again.
// Seeds: the committed corpus in testdata/fuzz/FuzzLoad and the valid files made here.
func FuzzLoad(f *testing.F) {
	x := addFittedSeeds(f,
		ivm.Config{FixedKernel: true, ActiveSize: 4},
		ivm.Config{FixedKernel: true, ActiveSize: 5, Task: ivm.Ordinal, Scale: dataset.ScaleMinMax},
		ivm.Config{FixedKernel: true, ActiveSize: 3, Task: ivm.Regression,
			Scale: dataset.ScaleNone},
		ivm.Config{FixedKernel: true, ActiveSize: 4, Decomposition: ivm.OneVsOne})
	// A binary label regression (Predictor.Logistic, alone or blended) and a regression by
	// the exact GP's marginal likelihood (rbfard): what Fit makes of small binary and
	// regression tasks.
	n, _ := x.Dims()
	yb, yr := make([]float64, n), make([]float64, n)
	for i := range yb {
		yb[i], yr[i] = float64(i%2), x.At(i, 0)+0.1*float64(i%3)
	}
	for k, y := range [][]float64{yb, yr, yr, yb} {
		p, err := ivm.Fit(x, y, ivm.Config{})
		if err != nil {
			f.Fatal(err)
		}
		switch k {
		case 2: // a relevance scaling, as the search makes for larger regression tasks
			asSingle(p).Scaler.Kind, asSingle(p).Scaler.Weight =
				dataset.ScaleRelevance, []float64{1, 0.5}
		case 3: // a blend of the label regression and the probit model (blend.go)
			probit, err := ivm.Fit(x, y, ivm.Config{Task: ivm.Binary})
			if err != nil {
				f.Fatal(err)
			}
			labels := p
			if bl := asBlend(p); bl != nil {
				labels = bl.Members[0]
			}
			p = &ivm.Predictor{Task: ivm.Binary, Classes: probit.Classes,
				Kind: &ivm.BlendKind{Members: []*ivm.Predictor{labels, probit}}}
		}
		var buf bytes.Buffer
		if err := p.Save(&buf); err != nil {
			f.Fatal(err)
		}
		if _, err := ivm.Load(bytes.NewReader(buf.Bytes())); err != nil {
			f.Fatalf("seed %d does not load: %v", k, err)
		}
		f.Add(buf.Bytes())
	}
	// A projected model (Decomposition Projected), of few centres.
	xp, yp := blobs(rand.New(rand.NewPCG(7, 8)), 20, [][]float64{{0, 0}, {2, 2}, {0, 3}},
		[]float64{1, 2, 3}, 0.5)
	p, err := ivm.Fit(xp, yp, ivm.Config{Decomposition: ivm.Projected, ActiveSize: 5})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"ivm-model/1"}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"models":[{}]}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"softmax":true,` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[1e308]],"weights":[[1,2,3]],` +
		`"score_mix":[[1,0,0],[0,1,0],[0,0,1]],"score_offset":[0,0,0]}}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"softmax":true,` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[0]],"weights":[[1,2,3]],` +
		`"score_mix":[[1,0,0],[0,1,0],[0,0,1]],"score_offset":[0,0,0],` +
		`"score_log_weight":[1,0.5,2],"score_log_floor":0.001}}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"softmax":true,` +
		`"scale":{"kind":"minmax","shift":[1],"factor":[2],"root":true},` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[0]],"weights":[[1,2,3]],` +
		`"score_mix":[[1,0,0],[0,1,0],[0,0,1]],"score_offset":[0,0,0]}}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"multiclass","classes":[1,2,3],"softmax":true,` +
		`"scale":{"kind":"std","shift":[1],"factor":[2],"log":[0.5]},` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[0]],"weights":[[1,2,3]],` +
		`"score_mix":[[1,0,0],[0,1,0],[0,0,1]],"score_offset":[0,0,0]}}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"binary","classes":[0,1],"softmax":true,` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[0,1]],"weights":[[1,-1]],` +
		`"score_mix":[[1,0],[0,1]],"score_offset":[0,0],"linear":{"weights":[[0,0.5],` +
		`[0,-1]],"bias":[0,0.2],"power":0.7}}}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"regression",` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[0,1]],"weights":[[1]],` +
		`"score_mix":[[1]],"score_offset":[0],"noise_variance":1,"additive":{"variance":0.1,` +
		`"inputs":[{"input":1,"gamma":2,"knots":[0,1]}],"weights":[[1],[-1]]}}}`))
	f.Add([]byte(`{"format":"ivm-model/1","task":"regression",` +
		`"projected":{"kernel_spec":"rbf","lambda":1,"centres":[[0,1]],"weights":[[1]],` +
		`"score_mix":[[1]],"score_offset":[0],"noise_variance":1,"local":{"weights":[1,4],` +
		`"gamma":2,"signal_variance":0.5,"noise_variance":0.5,"variance_scale":1.1,` +
		`"rows":[[0,0],[1,2],[1,2],[3,-1]],"residuals":[0.1,-0.2,0.3,0]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ivm.Load(bytes.NewReader(data))
		// A *bytes.Buffer is decoded in place, by another route: it must agree.
		if _, errHeld := ivm.Load(
			bytes.NewBuffer(bytes.Clone(data))); (err == nil) != (errHeld == nil) {
			t.Fatalf("Load from a reader: %v; from a buffer: %v", err, errHeld)
		}
		if err != nil {
			return
		}
		if _, err := p.Predict(x.Slice(0, 2, 0, p.InputDim())); err != nil && p.InputDim() <= 2 {
			t.Fatalf("a loaded model fails to predict: %v", err)
		}
		checkSavesBack(t, p, ivm.Load)
	})
}

// FuzzLoadPart feeds arbitrary bytes to LoadPart: it must never panic, and a part it
// accepts must save back to a part file that loads to the same bytes again.
func FuzzLoadPart(f *testing.F) {
	addFittedSeeds(f,
		ivm.Config{FixedKernel: true, ActiveSize: 4, Part: ivm.Part{Index: 1, Count: 2}},
		ivm.Config{FixedKernel: true, ActiveSize: 4, Decomposition: ivm.OneVsOne,
			Part: ivm.Part{Index: 0, Count: 2}})
	f.Add([]byte(`{"format":"ivm-part/1","part":{"index":0,"count":2},"task":"multiclass",` +
		`"classes":[1,2,3],"pairs":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ivm.LoadPart(bytes.NewReader(data))
		if err != nil {
			return
		}
		checkSavesBack(t, p, ivm.LoadPart)
	})
}

// addFittedSeeds adds to f's corpus the files of models fitted with each configuration on
// three small classes (one-vs-rest ones also with softmax probabilities), and returns their
// inputs.
func addFittedSeeds(f *testing.F, cfgs ...ivm.Config) *mat.Dense {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := blobs(rng, 6, [][]float64{{0, 0}, {2, 2}, {0, 3}}, []float64{1, 2, 3}, 0.5)
	add := func(p *ivm.Predictor) {
		var buf bytes.Buffer
		if err := p.Save(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	for _, cfg := range cfgs {
		p, err := ivm.Fit(x, y, cfg)
		if err != nil {
			f.Fatal(err)
		}
		add(p)
		if k := asOVR(p); k != nil {
			k.Softmax = true
			add(p)
		}
	}
	return x
}

// checkSavesBack saves a loaded p, loads that file with load and checks that saving it
// again gives the same bytes.
func checkSavesBack(t *testing.T, p *ivm.Predictor, load func(io.Reader) (*ivm.Predictor, error)) {
	t.Helper()
	var a bytes.Buffer
	if err := p.Save(&a); err != nil {
		t.Fatalf("a loaded file cannot be saved: %v", err)
	}
	q, err := load(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatalf("a saved file does not load: %v\n%s", err, a.Bytes())
	}
	var b bytes.Buffer
	if err := q.Save(&b); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("second round trip differs (%v)", err)
	}
}
