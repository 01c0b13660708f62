//go:build !amd64 || purego

package vmath

const useAsm = false

func expAVX2(dst, src *float64, vectors int) int {
	panic("vmath: no assembly kernel on this architecture")
}

func sqrtAVX(dst, src *float64, vectors int) {
	panic("vmath: no assembly kernel on this architecture")
}
