package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// outsider is a kernel from outside the package's inner-product family: Columns must fall
// back to its K.
type outsider struct{ *RBF }

// checkColumns compares every column of c, computed in the given row blocks, with k.K on
// the same rows treated as distinct points, and checks the self-covariance exactly.
func checkColumns(t *testing.T, label string, k Kernel, c *Columns, x *mat.Dense, blocks int) {
	t.Helper()
	n, d := x.Dims()
	col := make([]float64, n)
	want := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		chunk := (n + blocks - 1) / blocks
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			c.Column(col[lo:hi], lo, hi, i)
		}
		want.Zero()
		k.K(want, x, x.Slice(i, i+1, 0, d))
		for j := 0; j < n; j++ {
			w := want.At(j, 0)
			if math.Abs(col[j]-w) > 1e-12*(1+math.Abs(w)) {
				t.Fatalf("%s: column %d row %d = %v, K gives %v", label, i, j, col[j], w)
			}
		}
		var self mat.Dense
		k.K(&self, x.Slice(i, i+1, 0, d), x.Slice(i, i+1, 0, d))
		if name := k.Name(); (name == "rbf" || name == "rbfard") && col[i] != self.At(0, 0) {
			// A point against itself is at distance exactly 0, as in K; other kernels'
			// inner products may round differently and only get the tolerance above.
			t.Fatalf("%s: self-covariance %v, K gives %v", label, col[i], self.At(0, 0))
		}
	}
}

func TestColumnsMatchK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randMat(rng, 37, testDim)
	x.SetRow(5, x.RawRowView(2)) // a duplicate row
	for _, nk := range testKernels() {
		c := NewColumns(nk.k, x)
		checkColumns(t, nk.label, nk.k, c, x, 1)
		checkColumns(t, nk.label+" (3 blocks)", nk.k, c, x, 3)
		// New parameters, then Refresh: ARD weights change the scaled inputs.
		theta := make([]float64, nk.k.NumParams())
		nk.k.Params(theta)
		for p, kind := range nk.k.ParamKinds() {
			if kind == 2 { // param.Unit
				theta[p] = 1 - theta[p]/2
			} else {
				theta[p] *= 1.5
			}
		}
		if err := nk.k.SetParams(theta); err != nil {
			t.Fatal(err)
		}
		c.Refresh()
		checkColumns(t, nk.label+" (new parameters)", nk.k, c, x, 2)
	}
	f := outsider{must(NewRBF(0.7, 1.2))}
	checkColumns(t, "outsider", f, NewColumns(f, x), x, 2)
	s := NewSum(f, must(NewLin(0.4)))
	checkColumns(t, "sum with outsider", s, NewColumns(s, x), x, 2)
}

// TestColumnsLongRows covers the row-dot path (rows of at least rowDotMinCols inputs): the
// columns match K, and a duplicate row is at distance exactly 0 from its twin, so an rbf
// column gives it exactly the kernel's variance.
func TestColumnsLongRows(t *testing.T) {
	const dim = rowDotMinCols + 8
	rng := rand.New(rand.NewPCG(5, 6))
	x := randMat(rng, 37, dim)
	x.SetRow(5, x.RawRowView(2))
	for _, spec := range []string{"rbf(gamma=0.05,variance=1.7)+lin(variance=0.3)+bias",
		"rbfard(gamma=0.05,variance=1.7)", "mlp+lin"} {
		k := must(Parse(spec, dim))
		c := NewColumns(k, x)
		checkColumns(t, spec, k, c, x, 3)
		if spec == "rbfard(gamma=0.05,variance=1.7)" {
			col := make([]float64, 37)
			c.Column(col, 0, 37, 2)
			if col[5] != 1.7 || col[2] != 1.7 {
				t.Errorf("%s: duplicate rows 2 and 5: k = %v and %v, want exactly the variance 1.7",
					spec, col[5], col[2])
			}
		}
	}
}

// TestConcurrentColumnsLongRows computes one column of long rows in disjoint row ranges on
// several goroutines at once, as the IVM's selection does (run under -race in CI): the
// result equals the serial column exactly, and a column allocates nothing.
func TestConcurrentColumnsLongRows(t *testing.T) {
	const n, dim, workers = 1000, rowDotMinCols + 8, 8
	rng := rand.New(rand.NewPCG(7, 8))
	x := randMat(rng, n, dim)
	k := must(Parse("rbfard(gamma=0.05)+rbf(gamma=0.02)+lin", dim))
	c := NewColumns(k, x)
	want := make([]float64, n)
	c.Column(want, 0, n, 17)
	got := make([]float64, n)
	inRangesConcurrently(n, workers, func(lo, hi int) { c.Column(got[lo:hi], lo, hi, 17) })
	for j := range want {
		if got[j] != want[j] {
			t.Fatalf("row %d: concurrent %v, serial %v", j, got[j], want[j])
		}
	}
	if a := testing.AllocsPerRun(10, func() { c.Column(got, 0, n, 3) }); a != 0 {
		t.Errorf("%v allocations per column", a)
	}
}

// BenchmarkColumnsUSPSShape times one kernel column of rbf + lin + bias + white on 7291
// rows of 256 inputs (the USPS shape) with Columns and with K.
func BenchmarkColumnsUSPSShape(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := randMat(rng, 7291, 256)
	k := must(Parse("rbf(gamma=0.0078125)+lin(variance=0.01)+bias+white", 256))
	col := make([]float64, 7291)
	b.Run("Columns", func(b *testing.B) {
		c := NewColumns(k, x)
		i := 0
		for b.Loop() {
			c.Column(col, 0, 7291, i%7291)
			i++
		}
	})
	b.Run("K", func(b *testing.B) {
		dst := mat.NewDense(7291, 1, col)
		i := 0
		for b.Loop() {
			k.K(dst, x, x.Slice(i%7291, i%7291+1, 0, 256))
			i++
		}
	})
}

// TestGramCacheSeesChangedInputs reuses one input buffer with new contents (as learning
// does when the active set changes): the cached Gram matrix must not be returned for it.
func TestGramCacheSeesChangedInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	x := randMat(rng, 128, 64) // 128·128·64 multiply–adds: large enough to be cached
	k := must(Parse("rbf(gamma=0.05)+lin(variance=0.3)", 64))
	var first, again, changed mat.Dense
	k.K(&first, x, nil)
	k.K(&again, x, nil)
	if !mat.Equal(&first, &again) {
		t.Fatal("the same inputs give a different kernel matrix")
	}
	x.Set(17, 3, x.At(17, 3)+0.5)
	k.K(&changed, x, nil)
	want := mat.NewDense(128, 128, nil)
	for i := 0; i < 128; i++ {
		for j := 0; j < 128; j++ {
			var e mat.Dense
			k.K(&e, x.Slice(i, i+1, 0, 64), x.Slice(j, j+1, 0, 64))
			want.Set(i, j, e.At(0, 0))
		}
	}
	if !mat.EqualApprox(&changed, want, 1e-12) {
		t.Fatal("kernel matrix after changing an input row is stale")
	}
	if changed.At(17, 40) == first.At(17, 40) {
		t.Fatal("changed row gives the old covariance")
	}
}

// TestGramCacheConcurrent computes kernel matrices of several inputs from several
// goroutines (run with -race).
func TestGramCacheConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	xs := make([]*mat.Dense, 12)
	want := make([]*mat.Dense, len(xs))
	k := must(Parse("rbf(gamma=0.05)+lin(variance=0.3)", 64))
	for i := range xs {
		xs[i] = randMat(rng, 128, 64)
		want[i] = mat.NewDense(128, 128, nil)
		k.K(want[i], xs[i], nil)
	}
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func(w int) {
			var err error
			for r := 0; r < 6; r++ {
				i := (w*5 + r*7) % len(xs)
				var got mat.Dense
				k.K(&got, xs[i], nil)
				if !mat.Equal(&got, want[i]) {
					err = fmt.Errorf("worker %d: matrix %d differs", w, i)
				}
			}
			done <- err
		}(w)
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestInnerColumnsMatchK checks columns read from precomputed inner products: they match K
// for every test kernel (ARD components, whose products are weighted, computing theirs),
// on short and long rows, and a duplicate row is at distance exactly 0 from its twin.
func TestInnerColumnsMatchK(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dim := range []int{testDim, rowDotMinCols + 8} {
		x := randMat(rng, 37, dim)
		x.SetRow(5, x.RawRowView(2))
		in := NewInner(x)
		kernels := testKernels()
		if dim != testDim {
			kernels = []namedKernel{{"rbf+lin+bias",
				must(Parse("rbf(gamma=0.05,variance=1.7)+lin(variance=0.3)+bias", dim))}}
		}
		for _, nk := range kernels {
			c, err := NewInnerColumns(nk.k, in)
			if err != nil {
				t.Fatal(err)
			}
			label := fmt.Sprintf("%s, %d inputs", nk.label, dim)
			checkColumns(t, label, nk.k, c, x, 3)
			if nk.k.Name() == "rbf" || dim != testDim {
				// (ARD components of short rows take their products from Dgemv, which
				// does not promise this.)
				col := make([]float64, 37)
				c.Column(col, 0, 37, 2)
				if col[5] != col[2] {
					t.Errorf("%s: duplicate rows 2 and 5: k = %v and %v, want equal",
						label, col[5], col[2])
				}
			}
		}
	}
	if _, err := NewInnerColumns(must(NewRBF(1, 1)), nil); err == nil {
		t.Error("NewInnerColumns without inner products: no error")
	}
}

// TestSharedInnerConcurrent computes columns of two kernels from one Inner on several
// goroutines at once, as a kernel search does (run under -race in CI): each equals its
// serial column exactly, and a column allocates nothing.
func TestSharedInnerConcurrent(t *testing.T) {
	const n, dim, workers = 600, rowDotMinCols + 8, 4
	rng := rand.New(rand.NewPCG(11, 12))
	x := randMat(rng, n, dim)
	in := NewInner(x)
	var cols [2]*Columns
	var want [2][]float64
	for i, spec := range []string{"rbf(gamma=0.05)+bias", "rbf(gamma=0.2)+lin"} {
		c, err := NewInnerColumns(must(Parse(spec, dim)), in)
		if err != nil {
			t.Fatal(err)
		}
		cols[i], want[i] = c, make([]float64, n)
		c.Column(want[i], 0, n, 17)
	}
	got := [2][]float64{make([]float64, n), make([]float64, n)}
	inRangesConcurrently(2*n, workers, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			k := j / n
			cols[k].Column(got[k][j%n:j%n+1], j%n, j%n+1, 17)
		}
	})
	for k := range want {
		for j := range want[k] {
			if got[k][j] != want[k][j] {
				t.Fatalf("kernel %d row %d: concurrent %v, serial %v", k, j, got[k][j], want[k][j])
			}
		}
	}
	if a := testing.AllocsPerRun(10, func() { cols[0].Column(got[0], 0, n, 3) }); a != 0 {
		t.Errorf("%v allocations per column", a)
	}
}
