package ssmtr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// toyTask builds a task with n points in 2-D (the first l labelled), a graph when
// withGraph, and the given constraints.
func toyTask(t *testing.T, seed uint64, n, l int, spec string, withGraph bool,
	pairs []Pair, quads []Quad) *task {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, l)
	for i := 0; i < n; i++ {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		if i < l {
			y[i] = math.Sin(2*x.At(i, 0)) + 0.5*x.At(i, 1) + 0.1*rng.NormFloat64()
		}
	}
	k, err := kern.Parse(spec, 2)
	if err != nil {
		t.Fatal(err)
	}
	tk := &task{x: x, l: l, n: n, y: y, k: k, p: k.NumParams()}
	if withGraph {
		s, err := SimilarityGraph(x, 4)
		if err != nil {
			t.Fatal(err)
		}
		if tk.r, err = laplacianFactor(GraphLaplacian(s, Normalized)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pairs {
		c, err := newConstraint([]int{p.U, p.V}, []float64{1, -1}, p.D, n)
		if err != nil {
			t.Fatal(err)
		}
		tk.cons = append(tk.cons, c)
	}
	for _, q := range quads {
		c, err := newConstraint([]int{q.U, q.V, q.W, q.Z}, []float64{1, -1, -1, 1}, 0, n)
		if err != nil {
			t.Fatal(err)
		}
		tk.cons = append(tk.cons, c)
	}
	return tk
}

// evalLog evaluates a task at z = [ln θ, ln α, ln σ, ln ε] with the exact or the Laplace
// objective, returning F and the gradient in the same order.
func evalLog(t *testing.T, tk *task, z []float64, graph, lap bool,
	wantGrad bool) (float64, []float64) {
	t.Helper()
	p := tk.p
	h := hyper{theta: make([]float64, p), alpha: math.Exp(z[p]), sigma2: math.Exp(2 * z[p+1]),
		eps: math.Exp(z[p+2])}
	for i := 0; i < p; i++ {
		h.theta[i] = math.Exp(z[i])
	}
	var g *hgrad
	if wantGrad {
		g = &hgrad{theta: make([]float64, p)}
	}
	var f float64
	var err error
	if lap {
		f, _, err = tk.laplace(h, graph, g)
	} else {
		f, err = tk.exact(h, graph, g)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !wantGrad {
		return f, nil
	}
	return f, append(append([]float64(nil), g.theta...), g.alpha, g.sigma, g.epsilo)
}

func checkGrad(t *testing.T, name string, tk *task, z []float64, graph, lap bool) {
	t.Helper()
	_, g := evalLog(t, tk, z, graph, lap, true)
	const h = 1e-5
	for i := range z {
		zp := append([]float64(nil), z...)
		zm := append([]float64(nil), z...)
		zp[i] += h
		zm[i] -= h
		fp, _ := evalLog(t, tk, zp, graph, lap, false)
		fm, _ := evalLog(t, tk, zm, graph, lap, false)
		fd := (fp - fm) / (2 * h)
		scale := math.Max(math.Abs(fd), 1e-3)
		if rel := math.Abs(fd-g[i]) / scale; rel > 1e-6 || math.IsNaN(g[i]) {
			t.Errorf("%s: d/dz[%d]: analytic %.12g, finite difference %.12g (rel %.2g)",
				name, i, g[i], fd, rel)
		}
	}
}

func TestGradExact(t *testing.T) {
	z := []float64{math.Log(0.7), math.Log(1.3), math.Log(2), math.Log(0.3), math.Log(0.5)}
	checkGrad(t, "SMTR (no graph)", toyTask(t, 1, 14, 14, "rbf", false, nil, nil), z, false, false)
	checkGrad(t, "SSMTR (graph)", toyTask(t, 2, 20, 7, "rbf", true, nil, nil), z, true, false)
	zl := []float64{math.Log(0.2), math.Log(0.7), math.Log(1.3), math.Log(2), math.Log(0.3),
		math.Log(0.5)}
	checkGrad(t, "SSMTR lin+rbf", toyTask(t, 3, 20, 7, "lin+rbf", true, nil, nil), zl, true, false)
}

func TestGradLaplace(t *testing.T) {
	z := []float64{math.Log(0.7), math.Log(1.3), math.Log(2), math.Log(0.3), math.Log(0.4)}
	pairs := []Pair{{0, 9, 0.3}, {10, 12, -0.5}, {11, 3, 0}, {14, 15, 1.2}, {16, 2, 0.1}}
	quads := []Quad{{12, 13, 17, 18}, {10, 11, 11, 19}}
	checkGrad(t, "SSMTRPI pairs", toyTask(t, 4, 20, 7, "rbf", true, pairs, nil), z, true, true)
	checkGrad(t, "SSMTRPI pairs+quads", toyTask(t, 5, 20, 7, "rbf", true, pairs, quads),
		z, true, true)
	checkGrad(t, "pairs without graph", toyTask(t, 6, 20, 7, "rbf", false, pairs, nil),
		z, false, true)
}

// TestLaplaceExactWithoutConstraints: with Gaussian likelihood only, the Laplace
// approximation is exact, so its evidence and gradient must equal the exact ones.
func TestLaplaceExactWithoutConstraints(t *testing.T) {
	z := []float64{math.Log(0.7), math.Log(1.3), math.Log(2), math.Log(0.3), math.Log(0.4)}
	for _, graph := range []bool{false, true} {
		tk := toyTask(t, 8, 22, 8, "rbf", graph, nil, nil)
		fe, ge := evalLog(t, tk, z, graph, false, true)
		fl, gl := evalLog(t, tk, z, graph, true, true)
		if math.Abs(fe-fl) > 1e-9*math.Abs(fe) {
			t.Errorf("graph=%v: exact evidence %.15g, Laplace %.15g", graph, fe, fl)
		}
		for i := range ge {
			if math.Abs(ge[i]-gl[i]) > 1e-7*math.Max(1, math.Abs(ge[i])) {
				t.Errorf("graph=%v: gradient %d: exact %.12g, Laplace %.12g",
					graph, i, ge[i], gl[i])
			}
		}
	}
}
