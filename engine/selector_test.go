package engine_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

func refProblem(t testing.TB, train string) (*mat.Dense, []float64, *kern.Sum) {
	x, y := readXY(t, train)
	_, dim := x.Dims()
	k, err := kern.Parse(refKernel, dim)
	if err != nil {
		t.Fatal(err)
	}
	return x, y, k
}

// Selection on several goroutines must give exactly what one goroutine gives (the blocks are
// merged with the same tie rule), on a problem large enough to be split.
func TestParallelSelectionEqualsSerial(t *testing.T) {
	x, y, k := refProblem(t, "class_train_5000.csv")
	run := func(workers int) *engine.Selector {
		s, err := engine.NewSelector(x, y, k, noise.NewProbit(), engine.Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Select(60); err != nil {
			t.Fatal(err)
		}
		return s
	}
	one, many := run(1), run(3)
	for i, st := range one.Steps() {
		if many.Steps()[i] != st {
			t.Fatalf("inclusion %d: serial %+v, parallel %+v", i, st, many.Steps()[i])
		}
	}
	for i := range one.Mean() {
		if one.Mean()[i] != many.Mean()[i] || one.Var()[i] != many.Var()[i] {
			t.Fatalf("point %d: serial μ, ς = %v, %v; parallel %v, %v", i, one.Mean()[i],
				one.Var()[i], many.Mean()[i], many.Var()[i])
		}
	}
}

// With few inputs the kernel columns come from gonum's Dgemv, which rounds a row's dot
// product by its place in a group of rows: on any number of goroutines, selection, removal
// and refinement (its recomputations too) still give exactly what one gives (uneven splits
// of a problem just above the parallel path's size).
func TestParallelEqualsSerialFewInputs(t *testing.T) {
	x, y := twoGaussians(1503, 5, 0.3, 1)
	k, err := kern.Parse("rbf(gamma=0.5)+bias+white(variance=0.01)", 5)
	if err != nil {
		t.Fatal(err)
	}
	run := func(workers int) *engine.Selector {
		s, err := engine.NewSelector(x, y, k, noise.NewProbit(), engine.Options{
			Workers: workers, Criterion: engine.ExpectedEntropy})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Select(150); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Refine(engine.RefineOptions{MaxSwaps: 10, MaxSweeps: 2,
			RecomputeEvery: 25}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	one := run(1)
	for _, w := range []int{2, 3, 5, 7} {
		many := run(w)
		if !slices.Equal(one.Steps(), many.Steps()) || !slices.Equal(one.Mean(), many.Mean()) ||
			!slices.Equal(one.Var(), many.Var()) {
			t.Fatalf("%d workers: selection and refinement differ from one worker's", w)
		}
	}
}

// Reset restores the prior; selecting again reproduces the first selection exactly.
func TestResetReproducesSelection(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	s, err := engine.NewSelector(x, y, k, noise.NewProbit(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(30); err != nil {
		t.Fatal(err)
	}
	first := append([]int(nil), s.Active()...)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if s.Size() != 0 || s.Mean()[0] != 0 {
		t.Fatalf("after Reset: size %d, μ₀ %v", s.Size(), s.Mean()[0])
	}
	if err := s.Select(30); err != nil {
		t.Fatal(err)
	}
	for i, v := range s.Active() {
		if v != first[i] {
			t.Fatalf("inclusion %d: %d after Reset, %d before", i, v, first[i])
		}
	}
	// Selecting in two calls equals selecting in one.
	s.Reset()
	s.Select(10)
	s.Select(20)
	for i, v := range s.Active() {
		if v != first[i] {
			t.Fatalf("inclusion %d: %d in two calls, %d in one", i, v, first[i])
		}
	}
}

// The point Best names is the argmax of −½log₂(1 − ςν) over the inactive points, and
// including a point by hand (not the best) is allowed.
func TestIncludeByHand(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	s, err := engine.NewSelector(x, y, k, noise.NewProbit(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i, d, ties := s.Best(); i != 0 || ties != 232 || math.Abs(d-0.7650084821728893) > 1e-12 {
		t.Fatalf("Best = %d, %v, %d; reference 0, 0.7650084821728893, 232", i, d, ties)
	}
	if err := s.Include(17); err != nil {
		t.Fatal(err)
	}
	if err := s.Include(17); err == nil || !strings.Contains(err.Error(), "already active") {
		t.Errorf("including twice: %v", err)
	}
	if err := s.Include(500); err == nil {
		t.Error("including point 500 of 500: no error")
	}
	if !s.IsActive(17) || s.Active()[0] != 17 || s.Var()[17] >= 1 {
		t.Errorf("after Include(17): active %v, ς₁₇ = %v", s.Active(), s.Var()[17])
	}
	if err := s.Select(500); err == nil {
		t.Error("selecting more points than remain: no error")
	}
}

func TestBadInput(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	if _, err := engine.NewSelector(x, y[:10], k, noise.NewProbit(), engine.Options{}); err == nil {
		t.Error("mismatched targets: no error")
	}
	xn := mat.DenseCopyOf(x)
	xn.Set(3, 1, math.NaN())
	if _, err := engine.NewSelector(xn, y, k, noise.NewProbit(), engine.Options{}); err == nil ||
		!strings.Contains(err.Error(), "row 3") {
		t.Errorf("NaN input: %v", err)
	}
	yb := append([]float64(nil), y...)
	yb[5] = 0.5
	if _, err := engine.NewSelector(x, yb, k, noise.NewProbit(), engine.Options{}); err == nil {
		t.Error("probit target 0.5: no error")
	}
}

// leakyNoise is a non-log-concave test model whose ν exceeds 1/ς at chosen points, making the
// ADF site precision negative there.
type leakyNoise struct {
	noise.Model
	concave bool
}

func (l leakyNoise) LogConcave() bool { return l.concave }
func (l leakyNoise) Moments(n int, y, mu, vs float64) (float64, float64, float64) {
	lz, g, nu := l.Model.Moments(n, y, mu, vs)
	if n == 0 {
		nu = 2 / vs // νς = 2 > 1: a site precision ν/(1 − νς) = −ν < 0
	}
	return lz, g, nu
}

func TestNegativeSitePrecisionRule(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	for _, concave := range []bool{true, false} {
		s, err := engine.NewSelector(x, y, k, leakyNoise{noise.NewProbit(), concave},
			engine.Options{})
		if concave {
			if err == nil || !strings.Contains(err.Error(), "numerical breakdown") {
				t.Errorf("log-concave model with νς > 1: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if i, d, _ := s.Best(); i != 0 || !math.IsInf(d, 1) {
			t.Fatalf("Best = %d, %v; want point 0 with an infinite score", i, d)
		}
		if err := s.Include(0); err != nil {
			t.Fatal(err)
		}
		st := s.Steps()[0]
		if st.SiteBeta != engine.NegativeSitePrecision || !(st.FactorBeta < 0) {
			t.Errorf("site β %v, factor β %v; want %v and a negative factor precision",
				st.SiteBeta, st.FactorBeta, engine.NegativeSitePrecision)
		}
		if err := s.Select(20); err != nil {
			t.Fatal(err)
		}
		m, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		// The model predicts at the inactive training inputs what the selector's posterior
		// holds (at active ones the selector's latent includes the white-noise term).
		mu, vs := m.Latent(x, nil, nil)
		for i := range mu {
			if s.IsActive(i) {
				continue
			}
			if math.Abs(mu[i]-s.Mean()[i]) > 1e-8*(1+math.Abs(mu[i])) ||
				math.Abs(vs[i]-s.Var()[i]) > 1e-8 {
				t.Fatalf("point %d: model μ, ς = %v, %v; selector %v, %v", i, mu[i], vs[i],
					s.Mean()[i], s.Var()[i])
			}
		}
	}
}

// TestBestIsArgmaxOfDelta checks the selector's choice against the Entropy criterion
// computed by brute force after every inclusion: Δ_j = −½ log₂(1 − ς_j ν_j) over the
// inactive points, the largest winning and ties going to the lowest index. Every row appears
// twice, so exact ties occur at every step (scoreRange skips the logarithm of points clearly
// below the best so far; this is what must not change the choice).
func TestBestIsArgmaxOfDelta(t *testing.T) {
	x0, y0, k := refProblem(t, "class_train_500.csv")
	n0, dim := x0.Dims()
	x := mat.NewDense(2*n0, dim, nil)
	y := make([]float64, 2*n0)
	for i := 0; i < n0; i++ {
		x.SetRow(i, x0.RawRowView(i))
		x.SetRow(n0+i, x0.RawRowView(i))
		y[i], y[n0+i] = y0[i], y0[i]
	}
	for _, nm := range []noise.Model{noise.NewProbit(), noise.NewGaussian(0.1)} {
		sel, err := engine.NewSelector(x, y, k, nm, engine.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		tied := 0
		for step := 0; step < 40; step++ {
			mu, vs := sel.Mean(), sel.Var()
			want, wantD, wantTies := -1, 0.0, 0
			for j := range y {
				if sel.IsActive(j) {
					continue
				}
				_, _, nu := nm.Moments(j, y[j], mu[j], vs[j])
				d := -0.5 * math.Log2(1-vs[j]*nu)
				switch {
				case want < 0 || d > wantD:
					want, wantD, wantTies = j, d, 1
				case d == wantD:
					wantTies++
				}
			}
			got, gotD, gotTies := sel.Best()
			if got != want || gotD != wantD || gotTies != wantTies {
				t.Fatalf("%s, step %d: Best() = (%d, %v, %d ties), brute force (%d, %v, %d ties)",
					nm.Name(), step, got, gotD, gotTies, want, wantD, wantTies)
			}
			if wantTies > 1 {
				tied++
			}
			if err := sel.Include(got); err != nil {
				t.Fatal(err)
			}
		}
		if tied < 10 {
			t.Errorf("%s: the best point was tied at %d of 40 steps; "+
				"the duplicated rows should tie more often", nm.Name(), tied)
		}
	}
}

// Selection with the inputs' inner products precomputed (Options.Inner, shared by two
// selectors of different kernels) includes the same points as selection without them, with
// posteriors equal up to the rounding of the products' other summation order; inner
// products of other inputs are refused.
func TestSelectionWithInnerProducts(t *testing.T) {
	x, y, _ := refProblem(t, "class_train_500.csv")
	in := kern.NewInner(x)
	_, dim := x.Dims()
	for _, spec := range []string{"rbf(gamma=1,variance=1)+bias+white(variance=0.01)",
		"rbf(gamma=4,variance=2)+lin(variance=0.1)+bias"} {
		run := func(opt engine.Options) *engine.Selector {
			k, err := kern.Parse(spec, dim)
			if err != nil {
				t.Fatal(err)
			}
			s, err := engine.NewSelector(x, y, k, noise.NewProbit(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Select(60); err != nil {
				t.Fatal(err)
			}
			return s
		}
		plain, shared := run(engine.Options{}), run(engine.Options{Inner: in})
		for i, st := range plain.Steps() {
			if got := shared.Steps()[i]; got.Index != st.Index ||
				math.Abs(got.Delta-st.Delta) > 1e-9 {
				t.Fatalf("%s: inclusion %d: without inner products %+v, with %+v", spec, i, st, got)
			}
		}
		for i := range plain.Mean() {
			if math.Abs(plain.Mean()[i]-shared.Mean()[i]) > 1e-9 ||
				math.Abs(plain.Var()[i]-shared.Var()[i]) > 1e-9 {
				t.Fatalf("%s: point %d: μ, ς = %v, %v without inner products, %v, %v with", spec, i,
					plain.Mean()[i], plain.Var()[i], shared.Mean()[i], shared.Var()[i])
			}
		}
	}
	other := kern.NewInner(mat.DenseCopyOf(x))
	k, _ := kern.Parse(refKernel, dim)
	if _, err := engine.NewSelector(x, y, k, noise.NewProbit(),
		engine.Options{Inner: other}); err == nil ||
		!strings.Contains(err.Error(), "other inputs") {
		t.Errorf("inner products of another matrix: error %v", err)
	}
}
