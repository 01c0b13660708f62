//go:build !amd64 || purego

package vexp

const useAsm = false

func expAVX2(dst, src *float64, vectors int) int {
	panic("vexp: no assembly kernel on this architecture")
}
