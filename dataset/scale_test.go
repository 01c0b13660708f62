package dataset

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Columns near the float64 limits scale to unit spread: the sum of squares and the range
// are taken after dividing by the largest magnitude, so neither overflows, and the scaler
// passes the check a model file's scaler must pass.
func TestScalerExtremeColumns(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{
		1e300, -1.7e308, 1e-300,
		-1e300, 1.7e308, 2e-300,
		3e300, 1.7e308, 3e-300,
		-3e300, -1.7e308, 4e-300,
	})
	for _, kind := range []Scaling{ScaleStd, ScaleMinMax} {
		s, err := FitScaler(x, kind)
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		if err := s.Check(3); err != nil {
			t.Fatalf("%v: the fitted scaler fails its own check: %v", kind, err)
		}
		xs, err := s.Apply(x)
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		for j := 0; j < 3; j++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := 0; i < 4; i++ {
				lo, hi = math.Min(lo, xs.At(i, j)), math.Max(hi, xs.At(i, j))
			}
			if !(hi-lo > 1 && hi-lo < 4) {
				t.Errorf("%v: column %d scales to [%g, %g], want a spread of order 1",
					kind, j+1, lo, hi)
			}
		}
	}
}

// Every scaling's name parses back to it; the relevance scaling is a model file's (it
// checks as one) but FitScaler cannot compute it from the inputs alone.
func TestScalingNames(t *testing.T) {
	for _, s := range []Scaling{ScaleAuto, ScaleNone, ScaleMinMax, ScaleStd, ScaleRelevance} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Scaling
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v: marshalled %q, read back %v, %v", s, b, back, err)
		}
	}
	if _, err := ParseScaling("zscore-ish"); err == nil {
		t.Error("an unknown scaling name parsed")
	}
	x := mat.NewDense(3, 1, []float64{1, 2, 4})
	if _, err := FitScaler(x, ScaleRelevance); err == nil {
		t.Error("FitScaler computed a relevance scaling from the inputs alone")
	}
	s := &Scaler{Kind: ScaleRelevance, Shift: []float64{0, 1},
		Factor: []float64{2, 1e-6}, Weight: []float64{1, 1e-6}}
	if err := s.Check(2); err != nil {
		t.Errorf("a relevance scaler does not check: %v", err)
	}
	for _, bad := range []Scaler{
		{Kind: ScaleRelevance, Shift: s.Shift, Factor: s.Factor}, // no weights
		{Kind: ScaleStd, Shift: s.Shift, Factor: s.Factor,
			Weight: s.Weight}, // weights without relevance
		{Kind: ScaleRelevance, Shift: s.Shift, Factor: s.Factor,
			Weight: []float64{1}}, // one short
		{Kind: ScaleRelevance, Shift: s.Shift, Factor: s.Factor,
			Weight: []float64{1, 2}}, // above 1
		{Kind: ScaleRelevance, Shift: s.Shift, Factor: s.Factor,
			Weight: []float64{1, -0}}, // zero
	} {
		if err := bad.Check(2); err == nil {
			t.Errorf("scaler %+v checks", bad)
		}
	}
}
