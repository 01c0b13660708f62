package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// edges are the arguments near each bound of the vector code (709, and the exponents of a
// normal, subnormal and zero result) and of math.Exp's branches.
var edges = []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, 709,
	math.Nextafter(709, 1000), -708, -708.3964185322641, -708.39641853226, -708.4, -709.1,
	-744.44, -745.1332191019411, -745.13321910194, -745.2, -746, 709.782712893384, 709.79, 710,
	-1e10, 1e10, -math.MaxFloat64, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
	math.SmallestNonzeroFloat64, -7e8, -3e9}

// Exp gives math.Exp's bits for every argument: random ones over the ranges a kernel uses
// and beyond, every edge in every lane, in place and into another slice, at every length.
func TestExpSameBitsAsMath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for range 200000 {
		switch r.IntN(4) {
		case 0:
			xs = append(xs, -r.ExpFloat64()*10)
		case 1:
			xs = append(xs, -800*r.Float64())
		case 2:
			xs = append(xs, 1500*(r.Float64()-0.5))
		default:
			xs = append(xs, math.Float64frombits(r.Uint64()))
		}
	}
	for x := -746.0; x < -707; x += 1.0 / 1024 { // subnormal results and their edges
		xs = append(xs, x, math.Nextafter(x, 0))
	}
	for lane := range 4 {
		for _, e := range edges {
			v := []float64{-1, -2, -3, -4}
			v[lane] = e
			xs = append(xs, v...)
		}
	}
	sameAsMath(t, "exp", Exp, math.Exp, xs, xs[len(xs)-10:])
}

// sameAsMath checks f(dst, src) against the math package's g, bit for bit (any NaN for a
// NaN): into another slice and in place over xs, and at every length below 10 over short,
// without writing past the arguments.
func sameAsMath(t *testing.T, name string, f func(dst, src []float64), g func(float64) float64,
	xs, short []float64) {
	t.Helper()
	check := func(what string, got, src []float64) {
		t.Helper()
		for i, x := range src {
			if want := g(x); math.Float64bits(got[i]) != math.Float64bits(want) &&
				!(math.IsNaN(want) && math.IsNaN(got[i])) {
				t.Fatalf("%s: %s(%v) = %v, math's %v", what, name, x, got[i], want)
			}
		}
	}
	dst := make([]float64, len(xs))
	f(dst, xs)
	check("into dst", dst, xs)
	in := append([]float64(nil), xs...)
	f(in, in)
	check("in place", in, xs)
	for n := range 10 {
		src := short[:n]
		dst := make([]float64, n+1)
		dst[n] = 42
		f(dst, src)
		check("short", dst, src)
		if dst[n] != 42 {
			t.Fatalf("length %d: wrote past the arguments", n)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	src := make([]float64, 4096)
	for i := range src {
		src[i] = -r.ExpFloat64() * 5
	}
	dst := make([]float64, len(src))
	b.Run("vmath", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, src)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(src)), "ns/value")
	})
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			for i, x := range src {
				dst[i] = math.Exp(x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(src)), "ns/value")
	})
}
