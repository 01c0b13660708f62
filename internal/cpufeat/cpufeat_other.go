//go:build !amd64 || purego

package cpufeat

func hasAVX2FMA() bool { return false }
