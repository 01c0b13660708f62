// Package safestat computes sums of squares, and the statistics built on them, for values
// anywhere in float64's range. The values are divided by a power of two no smaller than
// their largest magnitude first: that division is exact, so results are bit for bit those
// of the plain formulas wherever those do not overflow, and the squares of values near
// ±1e300 stay finite.
package safestat

import "math"

// Scale returns the power of two just above the largest finite magnitude of the slices'
// values (2^1023 for the largest, whose next power of two overflows; 1 when all are 0).
func Scale(vs ...[]float64) float64 {
	big := 0.0
	for _, v := range vs {
		for _, x := range v {
			if a := math.Abs(x); a > big && !math.IsInf(a, 0) {
				big = a
			}
		}
	}
	if big == 0 {
		return 1
	}
	_, e := math.Frexp(big) // big = f·2^e with ½ ≤ f < 1
	return math.Ldexp(1, min(e, 1023))
}

// MeanSD returns the mean of v and its standard deviation with divisor len(v) − ddof (0
// when len(v) ≤ ddof).
func MeanSD(v []float64, ddof int) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	c := Scale(v)
	for _, x := range v {
		mean += x / c
	}
	mean /= float64(len(v))
	if len(v) <= ddof {
		return mean * c, 0
	}
	var ss float64
	for _, x := range v {
		d := x/c - mean
		ss += d * d
	}
	return mean * c, math.Sqrt(ss/float64(len(v)-ddof)) * c
}
