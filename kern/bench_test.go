package kern

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchColumn times one kernel column K(X, x_i) with N = 20000, D = 20: the IVM's
// inclusion step.
func benchColumn(b *testing.B, k Kernel) {
	const n, d = 20000, 20
	rng := rand.New(rand.NewPCG(1, 1))
	x := randMat(rng, n, d)
	dst := mat.NewDense(n, 1, nil)
	cols := make([]mat.Matrix, 64) // Slice allocates: make the views outside the loop
	for i := range cols {
		cols[i] = x.Slice(i*311, i*311+1, 0, d)
	}
	b.ReportAllocs()
	b.SetBytes(n * d * 8)
	i := 0
	for b.Loop() {
		k.K(dst, x, cols[i%len(cols)])
		i++
	}
}

func BenchmarkColumnRBF(b *testing.B) { benchColumn(b, must(NewRBF(1, 1))) }

func BenchmarkColumnSumRBFBiasWhite(b *testing.B) {
	benchColumn(b, must(Parse("rbf+bias+white", 20)))
}

func BenchmarkColumnRBFARD(b *testing.B) { benchColumn(b, must(Parse("rbfard(groups=4)", 20))) }

func BenchmarkColumnMLP(b *testing.B) { benchColumn(b, must(NewMLP(10, 10, 1))) }

// benchSym times the symmetric 500×500 K and its gradient.
func benchSym(b *testing.B, k Kernel, grad bool) {
	const n, d = 500, 20
	rng := rand.New(rand.NewPCG(2, 2))
	x := randMat(rng, n, d)
	dK := randMat(rng, n, n)
	dst := mat.NewDense(n, n, nil)
	g := make([]float64, k.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		if grad {
			k.Grad(g, x, nil, dK)
		} else {
			k.K(dst, x, nil)
		}
	}
}

func BenchmarkSym500KSum(b *testing.B) { benchSym(b, must(Parse("rbf+bias+white", 20)), false) }

func BenchmarkSym500GradSum(b *testing.B) { benchSym(b, must(Parse("rbf+bias+white", 20)), true) }

func BenchmarkSym500GradRBFARD(b *testing.B) {
	benchSym(b, must(Parse("rbfard(groups=4)", 20)), true)
}

func BenchmarkSym500GradMLPARD(b *testing.B) {
	benchSym(b, must(Parse("mlpard(groups=4)", 20)), true)
}
