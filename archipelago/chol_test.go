package archipelago

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randSPD returns an n×n SPD matrix built from random points under an RBF kernel
// plus a small diagonal, the shape of matrix the sampler factorises.
func randSPD(n int, rng *rand.Rand) []float64 {
	x := make([]float64, 2*n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	k := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d0, d1 := x[2*i]-x[2*j], x[2*i+1]-x[2*j+1]
			k[i*n+j] = math.Exp(-0.5 * (d0*d0 + d1*d1))
		}
		k[i*n+i] += 1e-3
	}
	return k
}

func subMatrix(k []float64, n int, keep []int) []float64 {
	m := len(keep)
	out := make([]float64, m*m)
	for a, i := range keep {
		for b, j := range keep {
			out[a*m+b] = k[i*n+j]
		}
	}
	return out
}

func maxFactorDiff(t *testing.T, a, b *chol) float64 {
	t.Helper()
	if a.n != b.n {
		t.Fatalf("sizes %d and %d", a.n, b.n)
	}
	var m float64
	for i := 0; i < a.n; i++ {
		for j := 0; j <= i; j++ {
			m = math.Max(m, math.Abs(a.at(i, j)-b.at(i, j)))
		}
	}
	return m
}

// Extending row by row and removing rows must give the factor a fresh
// factorisation of the same matrix gives (the Cholesky factor is unique).
func TestCholExtendRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 30
	k := randSPD(n, rng)
	var inc chol
	for i := 0; i < n; i++ {
		v := make([]float64, i)
		for j := 0; j < i; j++ {
			v[j] = k[i*n+j]
		}
		inc.solveL(v)
		var vv float64
		for _, a := range v {
			vv += a * a
		}
		inc.extend(v, math.Sqrt(k[i*n+i]-vv))
	}
	var full chol
	if err := full.factor(k, n); err != nil {
		t.Fatal(err)
	}
	if d := maxFactorDiff(t, &inc, &full); d > 1e-10 {
		t.Fatalf("extended factor differs from full factor by %g", d)
	}
	keep := make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	// Whitened values ν = L⁻¹g for two columns of g; removal must keep g = Lν
	// on the remaining rows.
	const kc = 2
	g := make([]float64, n*kc)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	nu := whiten(&inc, g, kc)
	work := make([]float64, n+kc)
	for _, j := range []int{0, 12, 27, 5, 25, 3} {
		inc.remove(j, work, nu, kc)
		keep = append(keep[:j], keep[j+1:]...)
		g = append(g[:j*kc], g[(j+1)*kc:]...)
		want := whiten(&inc, g, kc)
		for i := range want {
			if math.Abs(want[i]-nu[i]) > 1e-8 {
				t.Fatalf("after removing %d: ν[%d] = %g, want %g", j, i, nu[i], want[i])
			}
		}
		var ref chol
		if err := ref.factor(subMatrix(k, n, keep), len(keep)); err != nil {
			t.Fatal(err)
		}
		if d := maxFactorDiff(t, &inc, &ref); d > 1e-9 {
			t.Fatalf("after removing %d: factor differs by %g", j, d)
		}
	}
	// Solves and products agree with each other.
	b := make([]float64, inc.n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	y := append([]float64(nil), b...)
	inc.solveL(y)
	z := make([]float64, inc.n)
	inc.mulL(z, y)
	y2 := append([]float64(nil), b...)
	inc.solveLT(y2)
	z2 := make([]float64, inc.n)
	inc.mulLT(z2, y2)
	for i := range b {
		if math.Abs(z[i]-b[i]) > 1e-9 || math.Abs(z2[i]-b[i]) > 1e-9 {
			t.Fatalf("L L⁻¹b or Lᵀ L⁻ᵀb ≠ b at %d", i)
		}
	}
}

// whiten returns L⁻¹g column by column (g has kc columns).
func whiten(c *chol, g []float64, kc int) []float64 {
	out := make([]float64, c.n*kc)
	col := make([]float64, c.n)
	for q := 0; q < kc; q++ {
		for i := 0; i < c.n; i++ {
			col[i] = g[i*kc+q]
		}
		c.solveL(col)
		for i := 0; i < c.n; i++ {
			out[i*kc+q] = col[i]
		}
	}
	return out
}

func TestCholNotPD(t *testing.T) {
	var c chol
	if err := c.factor([]float64{1, 2, 2, 1}, 2); err == nil {
		t.Fatal("indefinite matrix factorised without error")
	}
}

// The rejection moves cost one forward substitution per proposal and, when
// accepted, a row removal; the function HMC two triangular products per
// leapfrog step. n = 700 is Toy3's size once the rejections have settled.
func benchChol(b *testing.B, n int) *chol {
	b.Helper()
	var c chol
	if err := c.factor(randSPD(n, rand.New(rand.NewPCG(1, 2))), n); err != nil {
		b.Fatal(err)
	}
	return &c
}

func BenchmarkCholSolveL(b *testing.B) {
	c := benchChol(b, 700)
	v := make([]float64, c.n)
	for b.Loop() {
		for i := range v {
			v[i] = 1
		}
		c.solveL(v)
	}
}

func BenchmarkCholMulLT(b *testing.B) {
	c := benchChol(b, 700)
	v, dst := make([]float64, c.n), make([]float64, c.n)
	for i := range v {
		v[i] = 1
	}
	for b.Loop() {
		c.mulLT(dst, v)
	}
}

// BenchmarkCholRemove removes the middle row and appends it back, the cost of
// one accepted rejection move.
func BenchmarkCholRemove(b *testing.B) {
	const n = 700
	k := randSPD(n, rand.New(rand.NewPCG(1, 2)))
	var c chol
	if err := c.factor(k, n); err != nil {
		b.Fatal(err)
	}
	work := make([]float64, 2*n)
	for b.Loop() {
		c.remove(200, work, nil, 0)
		c.n++ // put the row count back: the values no longer form a factor, the work is the same
	}
}

// setFrom and toGonum carry a factor between chol and gonum's Cholesky unchanged.
func TestCholGonumRoundTrip(t *testing.T) {
	const n = 12
	k := randSPD(n, rand.New(rand.NewPCG(3, 4)))
	var c, back chol
	if err := c.factor(k, n); err != nil {
		t.Fatal(err)
	}
	var g mat.Cholesky
	c.toGonum(&g)
	if !g.Factorize(mat.NewSymDense(n, append([]float64(nil), k...))) {
		t.Fatal("gonum factorisation failed")
	}
	back.setFrom(&g)
	if d := maxFactorDiff(t, &c, &back); d > 1e-12 {
		t.Errorf("gonum's factor differs from ours by %g", d)
	}
	c.toGonum(&g)
	back.setFrom(&g)
	if d := maxFactorDiff(t, &c, &back); d != 0 {
		t.Errorf("round trip changed the factor by %g", d)
	}
	if math.Abs(g.LogDet()-c.logDet()) > 1e-12 {
		t.Errorf("log det %v, want %v", g.LogDet(), c.logDet())
	}
}
