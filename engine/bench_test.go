package engine_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// twoGaussians draws n points in dim dimensions from two unit-variance Gaussian classes
// with means ±sep·1 (labels ±1, equal priors).
func twoGaussians(n, dim int, sep float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, dim, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		y[i] = 1
		if rng.IntN(2) == 0 {
			y[i] = -1
		}
		for j := 0; j < dim; j++ {
			x.Set(i, j, y[i]*sep+rng.NormFloat64())
		}
	}
	return x, y
}

func benchSelect(b *testing.B, x *mat.Dense, y []float64, spec string, d int) {
	_, dim := x.Dims()
	k, err := kern.Parse(spec, dim)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sel, err := engine.NewSelector(x, y, k, noise.NewProbit(), engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := sel.Select(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelect20000x20 is the cost anchor: d = 500 from 20 000 points in 20-D,
// rbf kernel (the C++ IVM: 4.4 s, 252 MB; libsvm -c 1 -g 0.05: 6.9 s on its machine).
func BenchmarkSelect20000x20(b *testing.B) {
	x, y := twoGaussians(20000, 20, 0.25, 1)
	benchSelect(b, x, y, "rbf(gamma=0.1,variance=1)+bias+white", 500)
}

// BenchmarkSelectUSPSShape selects d = 500 from 7291 points in 256-D (the USPS shape).
func BenchmarkSelectUSPSShape(b *testing.B) {
	x, y := twoGaussians(7291, 256, 0.05, 2)
	benchSelect(b, x, y, "rbf(gamma=0.0078125,variance=1)+bias+white", 500)
}

// BenchmarkGemvBoundUSPSShape times what bounds a selection of d = 500 from 7291 points
// below: the d matrix–vector products Mᵀ_{1:k} a, k = 1…d, over the growing d×N matrix M
// that the inclusions make (one gonum Dgemv each, on one core; memory-bound). Compare
// BenchmarkSelectUSPSShape's time with this one's, run together:
//
//	go test -run XXX -bench 'USPSShape' .
func BenchmarkGemvBoundUSPSShape(b *testing.B) {
	const d, n = 500, 7291
	m := mat.NewDense(d, n, nil)
	raw := m.RawMatrix().Data
	for i := range raw {
		raw[i] = float64(i%97) * 1e-3
	}
	a := make([]float64, d)
	for i := range a {
		a[i] = 1 / float64(i+1)
	}
	s := mat.NewVecDense(n, nil)
	for b.Loop() {
		for k := 1; k <= d; k++ {
			s.MulVec(m.Slice(0, k, 0, n).T(), mat.NewVecDense(k, a[:k]))
		}
	}
}
