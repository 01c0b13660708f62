package calib

import (
	"math"
	"testing"
)

// sharpen tempers probabilities in log space: q^a normalised, tiny values included.
func TestSharpen(t *testing.T) {
	q := []float64{0.2, 0.6, 0.2}
	Sharpen(q, 2)
	want := []float64{0.04 / 0.44, 0.36 / 0.44, 0.04 / 0.44}
	for i := range q {
		if math.Abs(q[i]-want[i]) > 1e-15 {
			t.Errorf("sharpen: %v, want %v", q, want)
		}
	}
	tiny := []float64{1e-300, 1e-310}
	Sharpen(tiny, 3)
	if !(tiny[0] > 0.99999 && tiny[0] <= 1 && tiny[1] > 0) {
		t.Errorf("sharpen of tiny values: %v", tiny)
	}
	zero := []float64{0, 0}
	Sharpen(zero, 2)
	if zero[0] != 0 || zero[1] != 0 {
		t.Errorf("sharpen of zeros: %v, want them left", zero)
	}
}

func TestGoldenMin(t *testing.T) {
	x := GoldenMin(func(v float64) float64 { return (v - 0.3) * (v - 0.3) }, -2, 2, 1e-6)
	if math.Abs(x-0.3) > 1e-5 {
		t.Errorf("goldenMin = %v, want 0.3", x)
	}
}

// mixUniform mixes in ε/K and keeps the probabilities summing to one.
func TestMixUniform(t *testing.T) {
	q := []float64{1, 0, 0, 0}
	MixUniform(q, 0.04)
	want := []float64{0.97, 0.01, 0.01, 0.01}
	for i := range q {
		if math.Abs(q[i]-want[i]) > 1e-15 {
			t.Fatalf("mixUniform: %v, want %v", q, want)
		}
	}
}
