package rowdot

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func randGeneral(r *rand.Rand, rows, cols, stride int) blas64.General {
	g := blas64.General{Rows: rows, Cols: cols, Stride: stride,
		Data: make([]float64, max(0, (rows-1)*stride+cols))}
	for i := range g.Data {
		g.Data[i] = r.NormFloat64()
	}
	return g
}

// shapes covers blocks with and without edges in every dimension, strides wider than the
// rows, products large enough to be split across goroutines, and cache blocking.
var shapes = []struct{ m, n, k, pad int }{
	{1, 1, 1, 0}, {1, 5, 3, 2}, {3, 2, 9, 0}, {4, 3, 4, 0}, {4, 3, 7, 1}, {5, 4, 8, 3},
	{8, 6, 16, 0}, {13, 11, 29, 5}, {64, 33, 100, 0}, {301, 97, 130, 7}, {97, 301, 130, 7},
	{1024, 100, 90, 0}, {2, 1030, 90, 1},
	{53, 37, 20001, 3}, // rows long enough for several panels of b and blocks of a
}

// TestABtMatchesDot checks every entry against dot, bit for bit: the assembly kernel must
// sum in dot's order, or a row would get different bits in a batch and alone.
func TestABtMatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		a := randGeneral(r, sh.m, sh.k, sh.k+sh.pad)
		b := randGeneral(r, sh.n, sh.k, sh.k+2*sh.pad)
		c := blas64.General{Rows: sh.m, Cols: sh.n, Stride: sh.n + sh.pad,
			Data: make([]float64, sh.m*(sh.n+sh.pad))}
		ABt(c, a, b)
		ref := blas64.General{Rows: sh.m, Cols: sh.n, Stride: sh.n,
			Data: make([]float64, sh.m*sh.n)}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, ref)
		for i := range sh.m {
			for j := range sh.n {
				got := c.Data[i*c.Stride+j]
				want := ref.Data[i*sh.n+j]
				if math.Abs(got-want) > 1e-12*float64(sh.k) {
					t.Fatalf("%v: c[%d][%d] = %v, gonum's Dgemm %v", sh, i, j, got, want)
				}
				if useAsm {
					exact := dot(a.Data[i*a.Stride:i*a.Stride+sh.k],
						b.Data[j*b.Stride:j*b.Stride+sh.k])
					if got != exact {
						t.Fatalf("%v: c[%d][%d] = %v, dot %v (not the same bits)",
							sh, i, j, got, exact)
					}
				}
			}
		}
	}
}

// TestABtSymmetric checks that a·aᵀ is exactly symmetric where the assembly runs, and
// symmetric to rounding where gonum computes it.
func TestABtSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := randGeneral(r, 203, 57, 57)
	c := blas64.General{Rows: 203, Cols: 203, Stride: 203, Data: make([]float64, 203*203)}
	ABt(c, a, a)
	tol := 0.0
	if !useAsm {
		tol = 1e-12 * 57
	}
	for i := range 203 {
		for j := range i {
			if math.Abs(c.Data[i*203+j]-c.Data[j*203+i]) > tol {
				t.Fatalf("c[%d][%d] = %v but c[%d][%d] = %v",
					i, j, c.Data[i*203+j], j, i, c.Data[j*203+i])
			}
		}
	}
}

// TestABtWorkers checks that the bits do not depend on how many goroutines share the rows.
func TestABtWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a := randGeneral(r, 1027, 100, 100)
	b := randGeneral(r, 101, 100, 100)
	run := func(procs int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c := blas64.General{Rows: 1027, Cols: 101, Stride: 101, Data: make([]float64, 1027*101)}
		ABt(c, a, b)
		return c.Data
	}
	one, three := run(1), run(3)
	for i := range one {
		if one[i] != three[i] {
			t.Fatalf("entry %d: %v with one goroutine, %v with three", i, one[i], three[i])
		}
	}
}

func TestABtDimensionMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a·bᵀ with different column counts")
		}
	}()
	a := blas64.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float64, 6)}
	b := blas64.General{Rows: 2, Cols: 4, Stride: 4, Data: make([]float64, 8)}
	ABt(blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)}, a, b)
}

// BenchmarkABt is the kernel values of a 512-row chunk of Fashion-MNIST test images against
// the 10 572 distinct active inputs of the 60 000-image model, beside gonum's Dgemm.
func BenchmarkABt(bm *testing.B) {
	const m, n, k = 10572, 512, 784
	r := rand.New(rand.NewPCG(7, 8))
	a, b := randGeneral(r, m, k, k), randGeneral(r, n, k, k)
	c := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	ct := blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, m*n)}
	for _, impl := range []struct {
		name string
		f    func()
	}{
		{"gram", func() { ABt(c, a, b) }},
		// the same product, the larger operand second
		{"gram-transposed", func() { ABt(ct, b, a) }},
		{"gonum", func() { blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, c) }},
	} {
		bm.Run(impl.name, func(bm *testing.B) {
			for bm.Loop() {
				impl.f()
			}
			bm.ReportMetric(2*m*n*k*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFlop/s")
		})
	}
}
