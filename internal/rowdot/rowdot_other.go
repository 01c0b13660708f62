//go:build !amd64 || purego

package rowdot

const useAsm = false

func dot4x3(a *float64, lda int, b *float64, ldb int, k int, acc *[blockRows * blockCols]float64) {
	panic("rowdot: no assembly kernel on this architecture")
}
