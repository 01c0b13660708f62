// Package vmath computes elementary functions of many numbers at once, bit for bit as the
// math package computes each.
//
// An rbf kernel's values are an exponential each, a large share of a projected model's fit
// and prediction, and its width search raises kernel blocks to other widths by square roots.
// On amd64 with AVX2 and FMA, Exp runs math.Exp's fused multiply–add path on four numbers
// per instruction and Sqrt takes four square roots at once (each correctly rounded, as
// math.Sqrt's); elsewhere they call the math package.
package vmath

import "math"

// Exp sets dst[i] = math.Exp(src[i]) for every i < len(src). dst must be at least as long
// as src; it may be src itself.
func Exp(dst, src []float64) {
	n := len(src)
	dst = dst[:n]
	i := 0
	for useAsm && n-i >= 4 {
		i += 4 * expAVX2(&dst[i], &src[i], (n-i)/4)
		if n-i < 4 {
			break
		}
		for range 4 { // a NaN or a large argument: math.Exp's other branches
			dst[i] = math.Exp(src[i])
			i++
		}
	}
	for ; i < n; i++ {
		dst[i] = math.Exp(src[i])
	}
}
