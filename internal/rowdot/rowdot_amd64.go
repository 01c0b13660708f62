//go:build amd64 && !purego

package rowdot

// useAsm reports whether the processor and operating system support AVX2 and FMA, which
// dot4x3 uses.
var useAsm = hasAVX2FMA()

func hasAVX2FMA() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // the OS saves the XMM and YMM registers
		return false
	}
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// dot4x3 stores in acc[r·3+s] the inner product of row r (0–3) of a (stride lda, in
// elements) and row s (0–2) of b (stride ldb) over their first k elements (a multiple of
// 4), summed as dot sums them.
//
//go:noescape
func dot4x3(a *float64, lda int, b *float64, ldb int, k int, acc *[blockRows * blockCols]float64)
