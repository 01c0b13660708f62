package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Sqrt gives math.Sqrt's bits: random numbers of every exponent, zeros, subnormals,
// infinities, negatives and NaN (both NaN), in place and not, at every length.
func TestSqrtSameBitsAsMath(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	xs := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, math.MaxFloat64, 2.2250738585072014e-308}
	for range 100000 {
		xs = append(xs, math.Float64frombits(r.Uint64()), r.Float64())
	}
	check := func(what string, got, src []float64) {
		t.Helper()
		for i, x := range src {
			want := math.Sqrt(x)
			if math.Float64bits(got[i]) != math.Float64bits(want) &&
				!(math.IsNaN(want) && math.IsNaN(got[i])) {
				t.Fatalf("%s: sqrt(%v) = %v, math.Sqrt %v", what, x, got[i], want)
			}
		}
	}
	dst := make([]float64, len(xs))
	Sqrt(dst, xs)
	check("into dst", dst, xs)
	in := append([]float64(nil), xs...)
	Sqrt(in, in)
	check("in place", in, xs)
	for n := range 10 {
		src := xs[:n]
		dst := make([]float64, n+1)
		dst[n] = 42
		Sqrt(dst, src)
		check("short", dst, src)
		if dst[n] != 42 {
			t.Fatalf("length %d: wrote past the arguments", n)
		}
	}
}
