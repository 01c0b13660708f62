package kern

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestValues checks one hand-computed value per kernel (worked out on paper; the
// decimals were evaluated with Python's math module).
func TestValues(t *testing.T) {
	a2 := []float64{0.5, 0.25}
	tests := []struct {
		name   string
		k      Kernel
		x1, x2 []float64
		want   float64
	}{
		// 2 · (1·3 + 2·(−1)) = 2
		{"lin", must(NewLin(2)), []float64{1, 2}, []float64{3, -1}, 2},
		// ‖x − x'‖² = 1 + 2.25 = 3.25: 1.5·exp(−½·2·3.25) = 1.5·e^−3.25
		{"rbf", must(NewRBF(2, 1.5)), []float64{1, 2}, []float64{0, 0.5}, 0.05816131174758302},
		// w=b=1: num = 0 + 1, da = db = 1 + 1 + 1 = 3: asin(1/3)
		{"mlp", must(NewMLP(1, 1, 1)), []float64{1, 0}, []float64{0, 1}, 0.3398369094541219},
		{"bias", must(NewBias(0.25)), []float64{1, 0}, []float64{7, 1}, 0.25},
		{"white", must(NewWhite(0.25)), []float64{1, 0}, []float64{1, 0}, 0},
		// 2 · (0.5·1·3 + 0.25·2·(−1)) = 2
		{"linard", must(NewLinARD(2, a2, nil)), []float64{1, 2}, []float64{3, -1}, 2},
		// 0.5·1 + 0.25·2.25 = 1.0625: 1.5·e^−1.0625
		{"rbfard", must(NewRBFARD(2, 1.5, a2, nil)),
			[]float64{1, 2}, []float64{0, 0.5}, 0.5183861288654618},
		// xAx' = 1 − 1 = 0, xAx = 1.5, x'Ax' = 3; w=2, b=1: asin(1/√((3+2)(6+2))) = asin(1/√40)
		{"mlpard", must(NewMLPARD(2, 1, 0.5, a2, nil)),
			[]float64{1, 2}, []float64{2, -2}, 0.5 * 0.1587802146457607},
		// groups [1,1,2]: 0.5·(1+1) + 0.25·4 = 2: exp(−½·1·2) = e^−1
		{"rbfard grouped", must(NewRBFARD(1, 1, a2, []int{0, 0, 1})),
			[]float64{1, 1, 2}, []float64{0, 0, 0}, math.Exp(-1)},
	}
	for _, tc := range tests {
		x1 := mat.NewDense(1, len(tc.x1), tc.x1)
		x2 := mat.NewDense(1, len(tc.x2), tc.x2)
		var K mat.Dense
		tc.k.K(&K, x1, x2)
		if got := K.At(0, 0); !closeTo(got, tc.want, 1e-15) {
			t.Errorf("%s: k = %.17g, want %.17g", tc.name, got, tc.want)
		}
	}
}

// TestRBFDistanceFormula checks that rbf uses ‖x‖² + ‖x'‖² − 2x·x' (clamped) bit for bit,
// not (x − x')².
func TestRBFDistanceFormula(t *testing.T) {
	x := []float64{0.1, 0.7, 1e8 + 0.3}
	y := []float64{0.2, 0.5, 1e8}
	k := must(NewRBF(0.5, 2))
	var K mat.Dense
	k.K(&K, mat.NewDense(1, 3, x), mat.NewDense(1, 3, y))
	nx := x[0]*x[0] + x[1]*x[1] + x[2]*x[2]
	ny := y[0]*y[0] + y[1]*y[1] + y[2]*y[2]
	xy := x[0]*y[0] + x[1]*y[1] + x[2]*y[2]
	d := math.Max(0, (nx+ny)-2*xy)
	if want := 2 * math.Exp(-d*0.25); K.At(0, 0) != want {
		t.Errorf("k = %.17g, want %.17g", K.At(0, 0), want)
	}
	// The same point compared with itself gives exactly the variance.
	z := mat.NewDense(1, 3, x)
	k.K(&K, z, nil)
	if K.At(0, 0) != 2 {
		t.Errorf("k(x, x) = %v, want 2", K.At(0, 0))
	}
}

// TestDiagMatchesK checks Diag against the diagonal of K(X, nil).
func TestDiagMatchesK(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randMat(rng, 12, testDim)
	for _, tc := range testKernels() {
		var K mat.Dense
		tc.k.K(&K, x, nil)
		d := make([]float64, 12)
		tc.k.Diag(d, x)
		for i, v := range d {
			if !closeTo(v, K.At(i, i), 1e-13) {
				t.Errorf("%s: Diag[%d] = %.17g, K[%d,%d] = %.17g", tc.label, i, v, i, i, K.At(i, i))
			}
		}
	}
}

// TestSymmetricPSD checks that K(X, nil) is exactly symmetric and positive semidefinite,
// and that it agrees with the cross covariance K(X, X) off the diagonal.
func TestSymmetricPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x := randMat(rng, 30, testDim)
	for _, tc := range testKernels() {
		var K, C mat.Dense
		tc.k.K(&K, x, nil)
		tc.k.K(&C, x, x)
		n, _ := K.Dims()
		tr := 0.0
		for i := 0; i < n; i++ {
			tr += K.At(i, i)
			for j := 0; j < n; j++ {
				if K.At(i, j) != K.At(j, i) {
					t.Fatalf("%s: K[%d,%d] = %v ≠ K[%d,%d] = %v",
						tc.label, i, j, K.At(i, j), j, i, K.At(j, i))
				}
				// K(X, X) treats the rows as distinct points and takes its norms from
				// dot, K(X, nil) from the Gram matrix's diagonal: equal up to rounding.
				if i != j && math.Abs(K.At(i, j)-C.At(i, j)) > 1e-13*(1+math.Abs(C.At(i, j))) {
					t.Fatalf("%s: K(X,nil)[%d,%d] = %v ≠ K(X,X) = %v",
						tc.label, i, j, K.At(i, j), C.At(i, j))
				}
			}
		}
		sym := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				sym.SetSym(i, j, K.At(i, j))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(sym, false) {
			t.Fatalf("%s: eigendecomposition failed", tc.label)
		}
		if min := eig.Values(nil)[0]; min < -1e-10*tr {
			t.Errorf("%s: smallest eigenvalue %v (trace %v)", tc.label, min, tr)
		}
		// Positive definite once a little jitter is added (lin and bias alone are low rank).
		for i := 0; i < n; i++ {
			sym.SetSym(i, i, sym.At(i, i)+1e-8*tr/float64(n))
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			t.Errorf("%s: Cholesky failed", tc.label)
		}
	}
}

// TestWhite checks that white noise appears on the diagonal of K(X, nil) and in Diag
// only, and that White reports it for white kernels and sums.
func TestWhite(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	x := randMat(rng, 5, 2)
	w := must(NewWhite(0.3))
	var K mat.Dense
	w.K(&K, x, nil)
	if !mat.Equal(&K, mat.NewDiagDense(5, []float64{0.3, 0.3, 0.3, 0.3, 0.3})) {
		t.Errorf("white K(X, nil) = %v", mat.Formatted(&K))
	}
	var C mat.Dense
	w.K(&C, x, x)
	if mat.Norm(&C, 1) != 0 {
		t.Errorf("white K(X, X) is not zero")
	}
	if w.White() != 0.3 {
		t.Errorf("White() = %v", w.White())
	}
	s := must(Parse("rbf+white(variance=0.25)+bias", 2))
	if s.White() != 0.25 {
		t.Errorf("sum White() = %v, want 0.25", s.White())
	}
	if r := must(NewRBF(1, 1)); r.White() != 0 {
		t.Errorf("rbf White() = %v", r.White())
	}
	var sk, sc mat.Dense
	s.K(&sk, x, nil)
	s.K(&sc, x, x)
	for i := 0; i < 5; i++ {
		if got := sk.At(i, i) - sc.At(i, i); !closeTo(got, 0.25, 1e-12) {
			t.Errorf("diagonal of K(X,nil) − K(X,X) = %v, want 0.25", got)
		}
	}
	d := make([]float64, 5)
	s.Diag(d, x)
	if !closeTo(d[0], 1+DefaultBiasVariance+0.25, 1e-15) {
		t.Errorf("sum Diag = %v", d[0])
	}
	g := []float64{0}
	w.Grad(g, x, x, mat.NewDense(5, 5, nil))
	if g[0] != 0 {
		t.Errorf("white cross gradient %v", g[0])
	}
}

// TestSetParamsValidation checks range errors and that nothing changes on error.
func TestSetParamsValidation(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		k       Kernel
		p       []float64
		errPart string
	}{
		{must(NewRBF(1, 1)), []float64{0, 1}, "rbf: parameter gamma"},
		{must(NewRBF(1, 1)), []float64{1, -2}, "rbf: parameter variance"},
		{must(NewRBF(1, 1)), []float64{inf, 1}, "not finite"},
		{must(NewLin(1)), []float64{nan}, "lin: parameter variance"},
		{must(NewMLP(1, 1, 1)), []float64{1, 0, 1}, "mlp: parameter bias"},
		{must(NewBias(1)), []float64{-1}, "bias: parameter variance"},
		{must(NewWhite(1)), []float64{0}, "white: parameter variance"},
		{must(NewLinARD(1, []float64{0.5, 0.5}, nil)), []float64{1, 0.5, 1},
			"linard: parameter scale2"},
		{must(NewRBFARD(1, 1, []float64{0.5}, []int{0, 0})), []float64{1, 1, 0},
			"rbfard: parameter scale1"},
		{must(NewMLPARD(1, 1, 1, []float64{0.5}, nil)), []float64{1, 1, 1, 1.5},
			"mlpard: parameter scale1"},
		{must(NewRBF(1, 1)), []float64{1}, "got 1 parameters, want 2"},
		{must(Parse("rbf+white", 0)), []float64{1, 1, -1}, "white.variance"},
	}
	for _, tc := range tests {
		before := make([]float64, tc.k.NumParams())
		tc.k.Params(before)
		err := tc.k.SetParams(tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.errPart) {
			t.Errorf("%s.SetParams(%v): error %v, want one containing %q",
				tc.k.Name(), tc.p, err, tc.errPart)
		}
		after := make([]float64, tc.k.NumParams())
		tc.k.Params(after)
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("%s: failed SetParams changed parameter %d", tc.k.Name(), i)
			}
		}
	}
	for _, f := range []func() error{
		func() error { _, err := NewRBF(-1, 1); return err },
		// scale2 unused
		func() error { _, err := NewRBFARD(1, 1, []float64{0.5, 0.5}, []int{0, 0}); return err },
		// index out of range
		func() error { _, err := NewLinARD(1, []float64{0.5}, []int{0, 1}); return err },
		func() error { _, err := NewMLPARD(1, 1, 1, nil, nil); return err },
		func() error { _, err := ContiguousGroups(4, 5); return err },
		func() error { _, err := ContiguousGroups(4, 0); return err },
	} {
		if f() == nil {
			t.Errorf("constructor accepted invalid values")
		}
	}
}

func TestContiguousGroups(t *testing.T) {
	g, err := ContiguousGroups(10, 3)
	checkNoErr(t, err)
	want := []int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}
	if !slices.Equal(g, want) {
		t.Errorf("ContiguousGroups(10, 3) = %v, want %v", g, want)
	}
	g, err = ContiguousGroups(256, 16)
	checkNoErr(t, err)
	if g[15] != 0 || g[16] != 1 || g[255] != 15 {
		t.Errorf("ContiguousGroups(256, 16) blocks are not 16 wide")
	}
}

// TestRawAndAtPaths checks that kernels give identical results for *mat.Dense inputs,
// views of them and matrices read through At, and for a *mat.VecDense column (D = 1).
func TestRawAndAtPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	big := randMat(rng, 10, testDim+2)
	x1 := big.Slice(1, 8, 1, 1+testDim)
	x2 := big.Slice(6, 10, 2, 2+testDim)
	dK := randMat(rng, 7, 4)
	for _, tc := range testKernels() {
		var a, b mat.Dense
		tc.k.K(&a, x1, x2)
		tc.k.K(&b, atOnly{x1}, atOnly{x2})
		if !mat.Equal(&a, &b) {
			t.Errorf("%s: K differs between raw and At access", tc.label)
		}
		ga, gb := make([]float64, tc.k.NumParams()), make([]float64, tc.k.NumParams())
		tc.k.Grad(ga, x1, x2, dK)
		tc.k.Grad(gb, atOnly{x1}, atOnly{x2}, atOnly{dK})
		for i := range ga {
			if ga[i] != gb[i] {
				t.Errorf("%s: Grad differs between raw and At access", tc.label)
			}
		}
		// Column by column equals the full matrix (the engine's inclusion step) up to
		// rounding: columns sum inner products pairwise, matrices by Dgemm.
		col := mat.NewDense(7, 1, nil)
		for j := 0; j < 4; j++ {
			tc.k.K(col, x1, x2.(*mat.Dense).Slice(j, j+1, 0, testDim))
			for i := 0; i < 7; i++ {
				if math.Abs(col.At(i, 0)-a.At(i, j)) > 1e-13*(1+math.Abs(a.At(i, j))) {
					t.Fatalf("%s: column %d differs from K", tc.label, j)
				}
			}
		}
	}
	v := mat.NewVecDense(4, []float64{0.1, -0.5, 2, 1})
	k := must(NewRBF(1, 1))
	var a, b mat.Dense
	k.K(&a, v, nil)
	k.K(&b, mat.DenseCopyOf(v), nil)
	if !mat.Equal(&a, &b) {
		t.Errorf("rbf on a VecDense differs")
	}
}

// TestConcurrentColumns computes one kernel column from several goroutines on disjoint
// row blocks, as the IVM engine does (run with -race).
func TestConcurrentColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	const n, d = 1000, testDim
	x := randMat(rng, n, d)
	for _, tc := range testKernels() {
		want := mat.NewDense(n, 1, nil)
		xi := x.Slice(17, 18, 0, d)
		tc.k.K(want, x, xi)
		got := mat.NewDense(n, 1, nil)
		inRangesConcurrently(n, 8, func(lo, hi int) {
			tc.k.K(got.Slice(lo, hi, 0, 1).(*mat.Dense), x.Slice(lo, hi, 0, d), xi)
			diag := make([]float64, hi-lo)
			tc.k.Diag(diag, x.Slice(lo, hi, 0, d))
		})
		if !mat.Equal(got, want) {
			t.Errorf("%s: concurrent column differs", tc.label)
		}
	}
}

// TestColumnAllocs checks that one kernel column against all rows does not allocate.
func TestColumnAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := randMat(rng, 200, testDim)
	dst := mat.NewDense(200, 1, nil)
	for _, tc := range testKernels() {
		xi := x.Slice(3, 4, 0, testDim)
		if a := testing.AllocsPerRun(20, func() { tc.k.K(dst, x, xi) }); a != 0 {
			t.Errorf("%s: %v allocations per column", tc.label, a)
		}
	}
}

// TestShapePanics checks that dimension misuse panics with a message.
func TestShapePanics(t *testing.T) {
	x := mat.NewDense(3, 2, nil)
	for name, f := range map[string]func(){
		"columns": func() {
			must(NewRBF(1, 1)).K(mat.NewDense(3, 3, nil), x, mat.NewDense(3, 3, nil))
		},
		"dst shape": func() { must(NewRBF(1, 1)).K(mat.NewDense(2, 3, nil), x, nil) },
		"ard dim": func() {
			must(NewRBFARD(1, 1, []float64{0.5, 0.5, 0.5}, nil)).K(&mat.Dense{}, x, nil)
		},
		"sum dim":  func() { must(Parse("rbf", 3)).K(&mat.Dense{}, x, nil) },
		"dK shape": func() { must(NewLin(1)).Grad([]float64{0}, x, nil, mat.NewDense(3, 2, nil)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// foreign is a Kernel from outside the package: only the interface's methods are visible.
type foreign struct{ Kernel }

// TestSumForeignParts checks sums whose components are not this package's kernels
// (the generic path of Sum.K) and nested sums.
func TestSumForeignParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	x := randMat(rng, 6, 2)
	y := randMat(rng, 3, 2)
	plain := NewSum(must(NewRBF(0.5, 2)), must(NewBias(0.3)), must(NewWhite(0.1)))
	wrapped := NewSum(foreign{must(NewRBF(0.5, 2))},
		NewSum(must(NewBias(0.3)), foreign{must(NewWhite(0.1))}))
	for _, x2 := range []mat.Matrix{nil, y} {
		var a, b mat.Dense
		plain.K(&a, x, x2)
		wrapped.K(&b, x, x2)
		if !mat.EqualApprox(&a, &b, 1e-15) {
			t.Errorf("foreign/nested sum K differs")
		}
	}
	if wrapped.White() != 0.1 {
		t.Errorf("nested White() = %v", wrapped.White())
	}
	if _, err := wrapped.MarshalJSON(); err == nil {
		t.Errorf("MarshalJSON of a foreign component succeeded")
	}
	if got := wrapped.FreeNames(); got[2] != "sum.bias.variance" {
		t.Errorf("nested free names %v", got)
	}
}

// TestRBFClamp compares nearly equal points with large norms, where ‖x‖² + ‖x'‖² − 2x·x'
// can round below zero: k must never exceed the variance.
func TestRBFClamp(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	k := must(NewRBF(1, 1))
	for range 2000 {
		a := []float64{1e4 * rng.NormFloat64(), 1e4 * rng.NormFloat64()}
		b := []float64{math.Nextafter(a[0], math.Inf(1)), a[1]}
		var K mat.Dense
		k.K(&K, mat.NewDense(1, 2, a), mat.NewDense(1, 2, b))
		if K.At(0, 0) > 1 {
			t.Fatalf("k(%v, %v) = %v > variance", a, b, K.At(0, 0))
		}
	}
}
