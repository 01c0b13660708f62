package ivm_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
)

// ZeroBias starts the probit and null category models' bias at 0 rather than at Φ⁻¹ of the
// positive fraction; without noise iterations it stays there.
func TestFitZeroBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, y := blobs(rng, 30, [][]float64{{0, 0}, {3, 0}, {0, 3}}, []float64{1, -1, -1}, 0.7)
	semi := append([]float64(nil), y...)
	for i := range semi {
		if i%3 != 0 {
			semi[i] = math.NaN()
		}
	}
	for _, tc := range []struct {
		name string
		task ivm.Task
		y    []float64
	}{{"binary", ivm.Binary, y}, {"semi-supervised", ivm.SemiSupervised, semi}} {
		bias := func(zero bool) float64 {
			p, err := ivm.Fit(x, tc.y, ivm.Config{Task: tc.task, Kernel: "rbf+bias+white",
				ActiveSize: 20, FixedKernel: true, ZeroBias: zero, Workers: 1})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			nm := asSingle(p).Model.Noise
			v := make([]float64, nm.NumParams())
			nm.Params(v)
			return v[0]
		}
		// One positive in three: the toolbox's start is Φ⁻¹(1/3) ≈ −0.43.
		if b := bias(false); math.Abs(b+0.4307) > 0.01 {
			t.Errorf("%s: bias %.4f, want Φ⁻¹(1/3) = −0.4307", tc.name, b)
		}
		if b := bias(true); b != 0 {
			t.Errorf("%s with ZeroBias: bias %v, want 0", tc.name, b)
		}
	}
}

// SplitGamma learns γ₋ and γ₊ separately: with class +1 labelled at rate 0.6 and class −1
// at 0.1 the learnt probabilities of being unlabelled must tell the classes apart, while
// the shared γ sits at the overall unlabelled fraction.
func TestFitSplitGamma(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	x, y := blobs(rng, 100, [][]float64{{0, 0}, {4, 0}}, []float64{1, -1}, 0.8)
	obs := append([]float64(nil), y...)
	for i, v := range y {
		if (v > 0 && rng.Float64() > 0.6) || (v < 0 && rng.Float64() > 0.1) {
			obs[i] = math.NaN()
		}
	}
	fit := func(split bool) []float64 {
		p, err := ivm.Fit(x, obs, ivm.Config{Task: ivm.SemiSupervised, Kernel: "rbf+white",
			ActiveSize: 40, SplitGamma: split, Workers: 1,
			Learn: engine.LearnOptions{Iters: 2, KernelIters: 20, NoiseIters: 50}})
		if err != nil {
			t.Fatal(err)
		}
		nm := asSingle(p).Model.Noise.(*noise.NullCategory)
		if nm.Split != split {
			t.Fatalf("Split %v in the model, want %v", nm.Split, split)
		}
		return []float64{nm.GammaNeg, nm.GammaPos}
	}
	g := fit(true)
	t.Logf("split: γ₋ %.3f, γ₊ %.3f", g[0], g[1])
	if !(g[0] > 0.75 && g[1] < 0.55) {
		t.Errorf("split γ₋ %.3f, γ₊ %.3f: want about 0.9 and 0.4", g[0], g[1])
	}
	s := fit(false)
	if s[0] != s[1] || s[0] < 0.55 || s[0] > 0.8 {
		t.Errorf("shared γ %v: want one value near the unlabelled fraction 0.65", s)
	}
}

func TestFitBiasOptionErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x, y := blobs(rng, 10, [][]float64{{0, 0}, {3, 0}}, []float64{1, -1}, 0.5)
	for _, tc := range []struct {
		cfg  ivm.Config
		want string
	}{
		{ivm.Config{Task: ivm.Regression, ZeroBias: true}, "zero bias"},
		{ivm.Config{Task: ivm.Binary, SplitGamma: true}, "split γ₋, γ₊"},
	} {
		tc.cfg.FixedKernel, tc.cfg.ActiveSize = true, 5
		_, err := ivm.Fit(x, y, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.cfg, err, tc.want)
		}
	}
}
