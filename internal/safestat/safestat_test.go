package safestat

import (
	"math"
	"testing"
)

// Near the top of float64's range the statistics stay finite and right; in the ordinary
// range they are bit for bit the plain formulas'.
func TestMeanSD(t *testing.T) {
	for _, c := range []struct {
		v        []float64
		ddof     int
		mean, sd float64
	}{
		{[]float64{1e300, -1e300, 3e300, -3e300}, 0, 0, math.Sqrt(5) * 1e300},
		{[]float64{1.7e308, 1.7e308}, 1, 1.7e308, 0},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 0, 5, 2},
		{[]float64{7}, 1, 7, 0},
	} {
		m, sd := MeanSD(c.v, c.ddof)
		if math.Abs(m-c.mean) > 1e-12*math.Abs(c.mean) || math.Abs(sd-c.sd) > 1e-12*c.sd {
			t.Errorf("MeanSD(%v, %d) = %g, %g, want %g, %g", c.v, c.ddof, m, sd, c.mean, c.sd)
		}
	}
	v := []float64{0.1, 0.7, 1.3, 2.9, 0.01}
	var mean, ss float64
	for _, x := range v {
		mean += x
	}
	mean /= 5
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	if m, sd := MeanSD(v, 1); m != mean || sd != math.Sqrt(ss/4) {
		t.Errorf("MeanSD(%v) = %v, %v; the plain formulas give %v, %v",
			v, m, sd, mean, math.Sqrt(ss/4))
	}
}

func TestScale(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{nil, 1}, {[]float64{0, 0}, 1}, {[]float64{-3, 1}, 4}, {[]float64{4}, 8},
		{[]float64{1.7e308}, math.Ldexp(1, 1023)}, {[]float64{0.3}, 0.5}} {
		if got := Scale(c.v); got != c.want {
			t.Errorf("Scale(%v) = %g, want %g", c.v, got, c.want)
		}
	}
}
