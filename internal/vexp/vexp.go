// Package vexp computes exponentials of many numbers at once, bit for bit as math.Exp does.
//
// An rbf kernel's values are an exponential each, a large share of a projected model's fit
// and prediction. On amd64 with AVX2 and FMA, math.Exp runs one number at a time through
// the fused multiply–adds of its assembly; Exp runs the same operations on four numbers per
// instruction, so that every result has math.Exp's bits. Elsewhere it calls math.Exp.
package vexp

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
