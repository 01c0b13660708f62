package calib

import (
	"math"
	"testing"
)

// TestBaselineStats checks the comparison's arithmetic: paired differences whose mean is
// within their standard error are not a win.
func TestBaselineStats(t *testing.T) {
	b := NewBaseline([]float64{0.5, 0.7, 0.6, 0.6}, []float64{0.6, 0.6, 0.6, 0.6})
	if b.Model != 0.6 || b.Prior != 0.6 || b.Rows != 4 || b.Beaten() {
		t.Errorf("%+v: equal means must not beat the prior", b)
	}
	b = NewBaseline([]float64{0.5, 0.5, 0.4, 0.5}, []float64{0.6, 0.6, 0.6, 0.6})
	if !b.Beaten() {
		t.Errorf("%+v: every row better must beat the prior", b)
	}
	if err := (&Baseline{Model: math.NaN(), Rows: 1}).Check(); err == nil {
		t.Error("a NaN baseline passed check")
	}
}
