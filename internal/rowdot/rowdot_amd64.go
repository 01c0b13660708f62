//go:build amd64 && !purego

package rowdot

import "github.com/ivmlab/ivm/internal/cpufeat"

// useAsm reports whether dot4x3's AVX2 and FMA instructions may run.
var useAsm = cpufeat.AVX2FMA

// dot4x3 stores in acc[r·3+s] the inner product of row r (0–3) of a (stride lda, in
// elements) and row s (0–2) of b (stride ldb) over their first k elements, summed as dot
// sums them.
//
//go:noescape
func dot4x3(a *float64, lda int, b *float64, ldb int, k int, acc *[blockRows * blockCols]float64)
