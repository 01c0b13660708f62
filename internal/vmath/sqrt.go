package vmath

import "math"

// Sqrt sets dst[i] = math.Sqrt(src[i]) for every i < len(src). dst must be at least as long
// as src; it may be src itself.
func Sqrt(dst, src []float64) {
	n := len(src)
	dst = dst[:n]
	i := 0
	if useAsm && n >= 4 {
		i = n &^ 3
		sqrtAVX(&dst[0], &src[0], i/4)
	}
	for ; i < n; i++ {
		dst[i] = math.Sqrt(src[i])
	}
}
