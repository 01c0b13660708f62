package ivm_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ivmlab/ivm"
)

// With Softmax a one-vs-rest predictor reports p_c ∝ exp(a·μ_c/√(1+σ²_c)), mixed with the
// label noise, and labels each row with its most probable class; a model file keeps it, bit
// for bit.
func TestSoftmaxProbabilities(t *testing.T) {
	x, y := polygon(90, 4, 11)
	p, err := ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 20,
		Decomposition: ivm.OneVsRest})
	if err != nil {
		t.Fatal(err)
	}
	ovr := asOVR(p)
	ovr.Softmax, ovr.Sharpness, ovr.LabelNoise = true, 1.7, 0.01
	got, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	k := len(p.Classes)
	for i, pr := range got {
		w := make([]float64, k)
		sum := 0.0
		for c := range w {
			w[c] = math.Exp(1.7 * pr.Latent[c] / math.Sqrt(1+pr.LatentVar[c]))
			sum += w[c]
		}
		best := 0
		for c := range w {
			want := 0.99*w[c]/sum + 0.01/float64(k)
			if math.Abs(pr.Prob[c]-want) > 1e-12 {
				t.Fatalf("row %d class %d: probability %v, want %v", i, c, pr.Prob[c], want)
			}
			if w[c] > w[best] {
				best = c
			}
		}
		if pr.Label != p.Classes[best] {
			t.Fatalf("row %d: label %v, want the most probable class %v",
				i, pr.Label, p.Classes[best])
		}
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"softmax": true`)) {
		t.Fatal(`the model file lacks "softmax": true`)
	}
	q, err := ivm.Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	again, err := q.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		for c := range got[i].Prob {
			if math.Float64bits(again[i].Prob[c]) != math.Float64bits(got[i].Prob[c]) {
				t.Fatalf("row %d class %d: %v after a round trip, %v before",
					i, c, again[i].Prob[c], got[i].Prob[c])
			}
		}
	}
}

// Softmax probabilities belong to one-vs-rest models: a file that sets them on a binary or
// one-vs-one model is refused with a message naming them, and parts that disagree on them
// are not merged.
func TestSoftmaxRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := blobs(rng, 12, [][]float64{{0, 0}, {3, 0}, {0, 3}}, []float64{1, 2, 3}, 0.6)
	xb, yb := polygon(40, 2, 5)
	for name, fit := range map[string]func() (*ivm.Predictor, error){
		"binary": func() (*ivm.Predictor, error) {
			return ivm.Fit(xb, yb, ivm.Config{FixedKernel: true, ActiveSize: 10})
		},
		"one-vs-one": func() (*ivm.Predictor, error) {
			return ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 8,
				Decomposition: ivm.OneVsOne})
		},
	} {
		p, err := fit()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := p.Save(&b); err != nil {
			t.Fatal(err)
		}
		bad := bytes.Replace(b.Bytes(), []byte(`"format": "ivm-model/1",`),
			[]byte(`"format": "ivm-model/1", "softmax": true,`), 1)
		if bytes.Equal(bad, b.Bytes()) {
			t.Fatalf("%s: no format line to edit", name)
		}
		if _, err := ivm.Load(bytes.NewReader(bad)); err == nil ||
			!strings.Contains(err.Error(), "softmax") &&
				!strings.Contains(err.Error(), "calibration") {
			t.Errorf("%s model file with softmax: %v, want an error naming it", name, err)
		}
	}
	var parts []*ivm.Predictor
	for i := range 2 {
		pt := fitPart(t, func(pt ivm.Part) (*ivm.Predictor, error) {
			return ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 8,
				Decomposition: ivm.OneVsRest, Part: pt})
		}, ivm.Part{Index: i, Count: 2})
		asOVR(pt).Softmax = i == 1
		if asOVR(pt).Softmax {
			var b bytes.Buffer
			if err := pt.Save(&b); err != nil {
				t.Fatal(err)
			}
			if back, err := ivm.LoadPart(&b); err != nil || !asOVR(back).Softmax {
				t.Fatalf("a part file with softmax read back as %v, %v", back, err)
			}
		}
		parts = append(parts, pt)
	}
	if _, err := ivm.MergeParts(parts); err == nil || !strings.Contains(err.Error(), "softmax") {
		t.Errorf("parts with and without softmax: %v, want a refusal naming it", err)
	}
	asOVR(parts[0]).Softmax = true
	m, err := ivm.MergeParts(parts)
	if err != nil || !asOVR(m).Softmax {
		t.Errorf("parts both with softmax: merged %v, %v; want a softmax model", m, err)
	}
}
