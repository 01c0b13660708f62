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
	sameAsMath(t, "sqrt", Sqrt, math.Sqrt, xs, xs[:10])
}
