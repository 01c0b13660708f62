//go:build amd64 && !purego

package vmath

import "github.com/ivmlab/ivm/internal/cpufeat"

// useAsm reports whether the kernels' AVX2 and FMA instructions may run; math.Exp then takes
// its own fused multiply–add path, whose operations expAVX2 repeats.
var useAsm = cpufeat.AVX2FMA

// expAVX2 sets dst[i] = math.Exp(src[i]) four at a time for the first vectors·4 elements, up
// to the first vector holding a NaN or an argument above 709, and returns the vectors done.
//
//go:noescape
func expAVX2(dst, src *float64, vectors int) (done int)

// sqrtAVX sets dst[i] = math.Sqrt(src[i]) for the first vectors·4 elements.
//
//go:noescape
func sqrtAVX(dst, src *float64, vectors int)
