package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testDim is the input dimension of the random test inputs; testGroups groups its
// dimensions into three scales.
const testDim = 5

var testGroups = []int{0, 0, 1, 2, 2}

// randMat returns an r×c matrix of standard normal values.
func randMat(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}

// must panics on err; for building test kernels from valid values.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// namedKernel is a kernel under test with a label.
type namedKernel struct {
	label string
	k     Kernel
}

// testKernels returns fresh instances of every component kernel over testDim inputs,
// with parameter values away from the defaults, plus sums.
func testKernels() []namedKernel {
	return []namedKernel{
		{"lin", must(NewLin(0.7))},
		{"rbf", must(NewRBF(1.3, 0.8))},
		{"mlp", must(NewMLP(2.0, 0.5, 1.2))},
		{"mlp-default", must(NewMLP(DefaultWeight, DefaultBias, DefaultVariance))},
		{"bias", must(NewBias(0.3))},
		{"white", must(NewWhite(0.2))},
		{"linard", must(NewLinARD(0.9, []float64{0.3, 0.6, 0.8}, testGroups))},
		{"rbfard", must(NewRBFARD(0.7, 1.1, []float64{0.3, 0.6, 0.8}, testGroups))},
		{"mlpard", must(NewMLPARD(1.5, 0.7, 0.9, []float64{0.3, 0.6, 0.8}, testGroups))},
		{"rbfard-ungrouped", must(NewRBFARD(0.7, 1.1, []float64{0.2, 0.4, 0.5, 0.7, 0.9}, nil))},
		{"mlpard-ungrouped",
			must(NewMLPARD(1.5, 0.7, 0.9, []float64{0.2, 0.4, 0.5, 0.7, 0.9}, nil))},
		{"sum rbf+bias+white", must(Parse("rbf(gamma=1.3,variance=0.8)+bias(variance=0.3)+"+
			"white(variance=0.2)", testDim))},
		{"sum ard shared", must(Parse("rbfard(scales=[0.3,0.6,0.8],groups=[1,1,2,3,3])+"+
			"linard(groups=[1,1,2,3,3])+mlpard(tie=none,scales=0.4)+white", testDim))},
		{"sum tied", must(Parse("rbf(gamma=0.5)+lin(variance=0.4)+rbf(variance=2);"+
			"tie(rbf#1.variance,lin.variance)", testDim))},
	}
}

// objective returns f = Σ_ij dK_ij K_ij for the kernel's K(x1, x2).
func objective(k Kernel, x1, x2 mat.Matrix, dK *mat.Dense) float64 {
	var K mat.Dense
	k.K(&K, x1, x2)
	r, c := K.Dims()
	f := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			f += dK.At(i, j) * K.At(i, j)
		}
	}
	return f
}

// diagObjective returns f = Σ_i d_i k(x_i, x_i).
func diagObjective(k Kernel, x mat.Matrix, d []float64) float64 {
	r, _ := x.Dims()
	diag := make([]float64, r)
	k.Diag(diag, x)
	f := 0.0
	for i, v := range diag {
		f += d[i] * v
	}
	return f
}

// naturalFD returns central differences of f with respect to the kernel's natural
// parameters, each perturbed by 1e-5 of its distance to the edge of its range.
func naturalFD(k Kernel, f func() float64) []float64 {
	n := k.NumParams()
	theta := make([]float64, n)
	k.Params(theta)
	kinds := k.ParamKinds()
	out := make([]float64, n)
	tmp := make([]float64, n)
	for p := range theta {
		h := 1e-5 * theta[p]
		if kinds[p] == 2 { // param.Unit
			h = 1e-5 * math.Min(theta[p], 1-theta[p])
		}
		copy(tmp, theta)
		tmp[p] = theta[p] + h
		if err := k.SetParams(tmp); err != nil {
			panic(err)
		}
		fp := f()
		tmp[p] = theta[p] - h
		if err := k.SetParams(tmp); err != nil {
			panic(err)
		}
		fm := f()
		out[p] = (fp - fm) / (2 * h)
	}
	if err := k.SetParams(theta); err != nil {
		panic(err)
	}
	return out
}

// freeFD returns central differences of f with respect to the free parameters of s.
func freeFD(s *Sum, f func() float64) []float64 {
	x := make([]float64, s.NumFree())
	s.Free(x)
	out := make([]float64, len(x))
	tmp := make([]float64, len(x))
	for p := range x {
		h := 1e-5 * math.Max(1, math.Abs(x[p]))
		copy(tmp, x)
		tmp[p] = x[p] + h
		if err := s.SetFree(tmp); err != nil {
			panic(err)
		}
		fp := f()
		tmp[p] = x[p] - h
		if err := s.SetFree(tmp); err != nil {
			panic(err)
		}
		fm := f()
		out[p] = (fp - fm) / (2 * h)
	}
	if err := s.SetFree(x); err != nil {
		panic(err)
	}
	return out
}

// gradMismatch compares an analytic gradient with finite differences: each component
// must agree within rel relative to max(|component|, 1e-3·max|gradient|, 1e-9). It
// returns a description of the first mismatch, "" if none.
func gradMismatch(names []string, got, want []float64, rel float64) string {
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for p := range want {
		ref := math.Max(math.Max(math.Abs(want[p]), 1e-3*scale), 1e-9)
		if !(math.Abs(got[p]-want[p]) <= rel*ref) {
			return fmt.Sprintf("%s: analytic %.12g, finite differences %.12g (rel. error %.2g)",
				names[p], got[p], want[p], math.Abs(got[p]-want[p])/ref)
		}
	}
	return ""
}

// close reports whether a and b agree within rel relative (or abs for tiny values).
func closeTo(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

// atOnly hides a matrix's raw storage so that kernels must use At.
type atOnly struct{ mat.Matrix }

func checkNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// inRangesConcurrently splits [0, n) into workers contiguous ranges and calls f on each from
// its own goroutine, three times, as the IVM's selection calls kernels on row blocks.
func inRangesConcurrently(n, workers int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := 0; rep < 3; rep++ {
				f(lo, hi)
			}
		}()
	}
	wg.Wait()
}
