package dataset

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/safestat"
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

// FitLogScaler takes the logarithm of long-tailed columns of values ≥ 0 only (not of a
// symmetric column, one with a negative value, or a 0/1 column however rare its ones), in
// units of the first percentile of their positive values; the columns it logs come out
// standardised, test values below 0 are taken as 0, the scaler passes a model file's check,
// and a scaler whose log units are not finite and ≥ 0 does not.
func TestFitLogScaler(t *testing.T) {
	const n = 1000
	x := mat.NewDense(n, 4, nil)
	for i := range n {
		u := (float64(i) + 0.5) / n
		x.SetRow(i, []float64{
			math.Exp(10*u) - 1,    // long-tailed: 0 to 22 000
			u,                     // uniform
			math.Exp(10*u) - 2,    // long-tailed, but one value below 0
			float64(i % 50 / 49)}) // 0/1, 2 % ones
	}
	s, err := FitLogScaler(x)
	if err != nil {
		t.Fatal(err)
	}
	if s == nil {
		t.Fatal("no scaler")
	}
	if s.Log[0] <= 0 || s.Log[1] != 0 || s.Log[2] != 0 || s.Log[3] != 0 {
		t.Fatalf("log units %v, want one for column 1 only", s.Log)
	}
	if want := x.At(n/100, 0); math.Abs(s.Log[0]-want) > 0.1*want {
		t.Errorf("log unit %g, want about %g", s.Log[0], want)
	}
	if err := s.Check(4); err != nil {
		t.Fatalf("the fitted scaler fails its own check: %v", err)
	}
	xs, err := s.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	col := mat.Col(nil, 0, xs)
	if m, sd := safestat.MeanSD(col, 0); math.Abs(m) > 1e-9 || math.Abs(sd-1) > 1e-3 {
		t.Errorf("the logged column's mean %g and sd %g, want 0 and 1", m, sd)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		if got, want := s.Unscaled(0, xs.At(i, 0)), x.At(i, 0); math.Abs(got-want) >
			1e-9*math.Max(1, want) {
			t.Errorf("row %d: Unscaled gives %g, want the input %g", i, got, want)
		}
	}
	neg, err := s.Apply(mat.NewDense(1, 4, []float64{-5, 0, 0, 0}))
	if err != nil || neg.At(0, 0) != (0-s.Shift[0])*s.Factor[0] {
		t.Errorf("a negative test value scales to %v (%v), want that of 0", neg.At(0, 0), err)
	}
	for _, bad := range []float64{-1, math.Inf(1), math.NaN()} {
		c := *s
		c.Log = []float64{bad, 0, 0, 0}
		if c.Check(4) == nil {
			t.Errorf("a log unit of %v passed the check", bad)
		}
	}
	if s, err := FitLogScaler(x.Slice(0, n, 1, 4)); err != nil || s != nil {
		t.Errorf("no long-tailed column: scaler %v, %v; want none", s, err)
	}
}

// TestFitRootScaler: the square roots of columns of values ≥ 0, scaled to [−1, 1], undone by
// Unscaled; no scaler where a value is negative or every column is 0 and one other value;
// a file's scaler of roots and logarithms together is refused.
func TestFitRootScaler(t *testing.T) {
	const n = 100
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		x.SetRow(i, []float64{float64(i * i), float64(i % 7), float64(i % 2)})
	}
	s, err := FitRootScaler(x)
	if err != nil || s == nil || !s.Root || s.Kind != ScaleMinMax {
		t.Fatalf("scaler %+v, %v: want the range of the roots", s, err)
	}
	if err := s.Check(3); err != nil {
		t.Fatalf("the fitted scaler fails its own check: %v", err)
	}
	xs, err := s.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} { // √(i²) = i: evenly spread over [−1, 1]
		if want := 2*float64(i)/(n-1) - 1; math.Abs(xs.At(i, 0)-want) > 1e-12 {
			t.Errorf("row %d: %g, want %g", i, xs.At(i, 0), want)
		}
		for j := range 3 {
			if got, want := s.Unscaled(j, xs.At(i, j)), x.At(i, j); math.Abs(got-want) >
				1e-9*math.Max(1, want) {
				t.Errorf("row %d column %d: Unscaled gives %g, want %g", i, j+1, got, want)
			}
		}
	}
	if !strings.Contains(s.String(), "√x") {
		t.Errorf("name %q does not say the roots", s.String())
	}
	x.Set(3, 1, -1)
	if s, err := FitRootScaler(x); s != nil || err != nil {
		t.Errorf("a negative value: scaler %+v, %v; want none", s, err)
	}
	if s, err := FitRootScaler(x.Slice(0, n, 2, 3)); s != nil || err != nil {
		t.Errorf("a column of 0 and 1: scaler %+v, %v; want none", s, err)
	}
	both := &Scaler{Kind: ScaleMinMax, Shift: []float64{0}, Factor: []float64{1}, Root: true,
		Log: []float64{1}}
	if err := both.Check(1); err == nil || !strings.Contains(err.Error(), "square roots") {
		t.Errorf("roots and logarithms: %v, want an error saying so", err)
	}
}
