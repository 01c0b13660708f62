package ivm_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
)

// Save → Load → Predict gives bit-identical predictions (math.Float64bits, so a NaN or a
// signed zero would count too) for every task a Predictor holds, each fitted the way Fit
// does by default for it (the search for binary, multi-class and regression; Algorithm 2
// for ordinal and semi-supervised), and a second save writes the same bytes.
func TestPredictorRoundTripBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	n := 90
	x := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, 6*rng.Float64()-3)
		x.Set(i, 1, rng.NormFloat64())
	}
	xt := mat.NewDense(40, 2, nil)
	for i := 0; i < 40; i++ {
		xt.Set(i, 0, 8*rng.Float64()-4) // some rows outside the training range
		xt.Set(i, 1, rng.NormFloat64())
	}
	target := func(f func(v float64, i int) float64) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = f(x.At(i, 0), i)
		}
		return y
	}
	cases := []struct {
		task ivm.Task
		y    []float64
		cfg  ivm.Config
	}{
		{ivm.Binary, target(func(v float64, _ int) float64 { return b2f(v > 0.3) }),
			ivm.Config{ActiveSize: 30}},
		// Every row active: the label regression where it scores better, the exact GP's rbfard.
		{ivm.Binary, target(func(v float64, i int) float64 {
			return b2f(v+0.5*rng.NormFloat64() > 0.3)
		}), ivm.Config{}},
		{ivm.Regression, target(func(v float64, i int) float64 {
			return math.Sin(v) + 0.1*rng.NormFloat64()
		}), ivm.Config{}},
		{ivm.MultiClass, target(func(v float64, _ int) float64 { return math.Floor(v) + 3 }),
			ivm.Config{ActiveSize: 30}},
		{ivm.Regression, target(func(v float64, i int) float64 {
			return math.Sin(v) + 0.1*rng.NormFloat64()
		}), ivm.Config{ActiveSize: 30}},
		{ivm.Ordinal, target(func(v float64, _ int) float64 { return math.Floor(v/2) + 2 }),
			ivm.Config{Task: ivm.Ordinal, ActiveSize: 30, Learn: engine.LearnOptions{Iters: 2}}},
		{ivm.SemiSupervised, target(func(v float64, i int) float64 {
			if i%4 != 0 {
				return math.NaN()
			}
			return 2*b2f(v > 0) - 1
		}), ivm.Config{ActiveSize: 30, Learn: engine.LearnOptions{Iters: 2}}},
	}
	for _, c := range cases {
		p, err := ivm.Fit(x, c.y, c.cfg)
		if err != nil {
			t.Fatalf("%v: %v", c.task, err)
		}
		if p.Task != c.task {
			t.Fatalf("fitted a %v task, want %v", p.Task, c.task)
		}
		var file bytes.Buffer
		if err := p.Save(&file); err != nil {
			t.Fatal(err)
		}
		text := file.String()
		q, err := ivm.Load(&file)
		if err != nil {
			t.Fatalf("%v: %v", c.task, err)
		}
		a, err := p.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := q.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if !sameBits([]float64{a[i].Label}, []float64{b[i].Label}) ||
				!sameBits(a[i].Prob, b[i].Prob) ||
				!sameBits([]float64{a[i].Mean, a[i].Var}, []float64{b[i].Mean, b[i].Var}) ||
				!sameBits(a[i].Latent, b[i].Latent) || !sameBits(a[i].LatentVar, b[i].LatentVar) {
				t.Fatalf("%v, row %d: %+v before Save, %+v after Load", c.task, i, a[i], b[i])
			}
		}
		var again bytes.Buffer
		if err := q.Save(&again); err != nil {
			t.Fatal(err)
		}
		if again.String() != text {
			t.Errorf("%v: the model file changed on a second save", c.task)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
