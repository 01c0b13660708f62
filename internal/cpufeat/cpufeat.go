// Package cpufeat says which instruction sets the processor and operating system offer to
// the project's assembly kernels (rowdot's products, vmath's functions).
package cpufeat

// AVX2FMA reports whether AVX2 and FMA instructions may run: the processor has them and the
// operating system saves the YMM registers. It is false off amd64 and with -tags purego.
var AVX2FMA = hasAVX2FMA()
