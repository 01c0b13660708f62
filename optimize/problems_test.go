package optimize

import (
	"fmt"
	"math"
	"testing"

	gopt "gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/optimize/functions"
)

// fg is a test function of gonum's optimize/functions.
type fg interface {
	Func(x []float64) float64
	Grad(grad, x []float64)
}

// plain adapts a gonum test function to a Func.
func plain(p fg) Func {
	return func(x, grad []float64) float64 {
		if grad != nil {
			p.Grad(grad, x)
		}
		return p.Func(x)
	}
}

func problem(p fg) gopt.Problem {
	return gopt.Problem{Func: p.Func, Grad: p.Grad}
}

// testProblem is a problem of gonum's optimize/functions with a starting
// point and one of the minima listed by its Minima method.
type testProblem struct {
	name string
	f    fg
	x0   []float64
	min  functions.Minimum
	// xTol bounds |x_i − x*_i| / max(1, |x*_i|) at the answer; fTol bounds
	// |f − f*|.
	xTol, fTol float64
}

// minimum returns the i-th entry of p.Minima().
func minimum(p interface{ Minima() []functions.Minimum }, i int) functions.Minimum {
	return p.Minima()[i]
}

func rep(n int, v ...float64) []float64 {
	var x []float64
	for len(x) < n {
		x = append(x, v...)
	}
	return x[:n]
}

var testProblems = []testProblem{
	{"Beale", functions.Beale{}, []float64{1, 1}, minimum(functions.Beale{}, 0), 1e-7, 1e-14},
	{"BiggsEXP6", functions.BiggsEXP6{}, []float64{1, 2, 1, 1, 1, 1},
		minimum(functions.BiggsEXP6{}, 1), 1e-6, 1e-12},
	{"Box3D", functions.Box3D{}, []float64{0, 10, 20}, minimum(functions.Box3D{}, 0), 1e-7, 1e-14},
	{"BrownBadlyScaled", functions.BrownBadlyScaled{}, []float64{1, 1},
		minimum(functions.BrownBadlyScaled{}, 0), 1e-9, 1e-14},
	{"ExtendedPowellSingular4", functions.ExtendedPowellSingular{}, []float64{3, -1, 0, 3},
		minimum(functions.ExtendedPowellSingular{}, 0), 1e-3, 1e-12},
	{"ExtendedPowellSingular8", functions.ExtendedPowellSingular{}, rep(8, 3, -1, 0, 3),
		minimum(functions.ExtendedPowellSingular{}, 1), 1e-3, 1e-12},
	{"ExtendedRosenbrock2", functions.ExtendedRosenbrock{}, []float64{-1.2, 1},
		minimum(functions.ExtendedRosenbrock{}, 0), 1e-6, 1e-14},
	{"ExtendedRosenbrock4", functions.ExtendedRosenbrock{}, rep(4, -1.2, 1),
		minimum(functions.ExtendedRosenbrock{}, 2), 1e-6, 1e-14},
	{"ExtendedRosenbrock10", functions.ExtendedRosenbrock{}, rep(10, -1.2, 1),
		minimum(functions.ExtendedRosenbrock{}, 8), 1e-6, 1e-14},
	{"Gaussian", functions.Gaussian{}, []float64{0.4, 1, 0},
		minimum(functions.Gaussian{}, 0), 1e-5, 1e-14},
	{"HelicalValley", functions.HelicalValley{}, []float64{-1, 0, 0},
		minimum(functions.HelicalValley{}, 0), 1e-7, 1e-14},
	{"PenaltyI4", functions.PenaltyI{}, []float64{1, 2, 3, 4},
		minimum(functions.PenaltyI{}, 0), 1e-6, 1e-14},
	{"PowellBadlyScaled", functions.PowellBadlyScaled{}, []float64{0, 1},
		minimum(functions.PowellBadlyScaled{}, 0), 1e-4, 1e-12},
	{"Trigonometric10", functions.Trigonometric{}, rep(10, 0.1),
		minimum(functions.Trigonometric{}, 1), 1e-5, 1e-12},
	{"VariablyDimensioned10", functions.VariablyDimensioned{},
		[]float64{0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0},
		minimum(functions.VariablyDimensioned{}, 4), 1e-8, 1e-14},
	{"Watson6", functions.Watson{}, rep(6, 0), minimum(functions.Watson{}, 0), 1e-5, 1e-12},
	{"Wood", functions.Wood{}, []float64{-3, -1, -3, -1},
		minimum(functions.Wood{}, 0), 1e-6, 1e-14},
}

// tight are SCG settings for reaching the minima accurately: Netlab's 1e-4
// tolerances stop far earlier.
var tight = SCG{TolX: 1e-12, TolF: 1e-20, DirEps: 1e-30}

const tightMaxIter = 5000

// checkMinimum reports whether x, f match tp's minimum within its tolerances.
func checkMinimum(t *testing.T, tp testProblem, how string, x []float64, f float64) {
	t.Helper()
	if len(x) != len(tp.min.X) {
		t.Fatalf("%s: %s: answer has %d entries, minimum %d", tp.name, how, len(x), len(tp.min.X))
	}
	if math.IsNaN(f) || math.Abs(f-tp.min.F) > tp.fTol {
		t.Errorf("%s: %s: f = %.17g, want %.17g ± %g", tp.name, how, f, tp.min.F, tp.fTol)
	}
	for i, v := range x {
		if d := math.Abs(v-tp.min.X[i]) / math.Max(1, math.Abs(tp.min.X[i])); !(d <= tp.xTol) {
			t.Errorf("%s: %s: x[%d] = %.17g, want %.17g (relative error %.2g > %g)",
				tp.name, how, i, v, tp.min.X[i], d, tp.xTol)
		}
	}
}

// TestSCGMinima runs SCG on gonum's test problems through gonum's Minimize
// and through the plain Minimize, which must agree step for step.
func TestSCGMinima(t *testing.T) {
	for _, tp := range testProblems {
		t.Run(tp.name, func(t *testing.T) {
			m := tight
			r, err := gopt.Minimize(problem(tp.f), tp.x0, &gopt.Settings{
				MajorIterations: tightMaxIter, Converger: gopt.NeverTerminate{}}, &m)
			if err != nil {
				t.Fatalf("gonum Minimize: %v", err)
			}
			if r.Status != gopt.MethodConverge && r.Status != gopt.GradientThreshold {
				t.Errorf("gonum Minimize: status %v, want MethodConverge or GradientThreshold",
					r.Status)
			}
			checkMinimum(t, tp, "gonum Minimize", r.X, r.F)

			p, err := Minimize(plain(tp.f), tp.x0, Options{MaxIter: tightMaxIter, SCG: tight})
			if err != nil {
				t.Fatalf("Minimize: %v", err)
			}
			if !p.Converged {
				t.Errorf("Minimize: not converged: %v (%s)", p.Status, p.Reason)
			}
			checkMinimum(t, tp, "Minimize", p.X, p.F)
			if p.Status != r.Status || p.Iterations != r.MajorIterations || p.F != r.F {
				t.Errorf("plain and gonum runs differ: %v/%v, %d/%d iterations, f %g/%g",
					p.Status, r.Status, p.Iterations, r.MajorIterations, p.F, r.F)
			}
			// The plain run evaluates f and ∇f at x0 in one call.
			if p.FuncEvals != r.FuncEvaluations+r.GradEvaluations-1 ||
				p.GradEvals != r.GradEvaluations {
				t.Errorf("plain run made %d calls (%d with gradient), gonum %d Func + %d Grad",
					p.FuncEvals, p.GradEvals, r.FuncEvaluations, r.GradEvaluations)
			}
			t.Logf("%d iterations, %d cycles, %d calls, f − f* = %.2g, max|g| = %.2g, %v",
				p.Iterations, p.Cycles, p.FuncEvals, p.F-tp.min.F, maxAbs(p.Grad), p.Status)
		})
	}
}

// TestSCGNetlabDefaults checks that the zero SCG stops by its own 1e-4
// tests with MethodConverge close to the minimum on well-scaled problems.
func TestSCGNetlabDefaults(t *testing.T) {
	for _, tc := range []struct {
		tp   testProblem
		fTol float64
	}{
		{testProblems[0], 1e-8},  // Beale
		{testProblems[6], 1e-4},  // ExtendedRosenbrock2
		{testProblems[10], 1e-4}, // HelicalValley
		{testProblems[14], 1e-8}, // VariablyDimensioned10
	} {
		r, err := gopt.Minimize(problem(tc.tp.f), tc.tp.x0, nil, &SCG{})
		if err != nil {
			t.Fatalf("%s: %v", tc.tp.name, err)
		}
		if r.Status != gopt.MethodConverge {
			t.Errorf("%s: status %v, want MethodConverge", tc.tp.name, r.Status)
		}
		if d := r.F - tc.tp.min.F; !(d >= 0 && d < tc.fTol) {
			t.Errorf("%s: f − f* = %g, want in [0, %g)", tc.tp.name, d, tc.fTol)
		}
		if r.MajorIterations > DefaultMaxIter {
			t.Errorf("%s: %d iterations", tc.tp.name, r.MajorIterations)
		}
	}
}

// TestLBFGSMinima runs the L-BFGS path of Minimize on the same problems.
func TestLBFGSMinima(t *testing.T) {
	for _, tp := range testProblems {
		t.Run(tp.name, func(t *testing.T) {
			r, err := Minimize(plain(tp.f), tp.x0,
				Options{Method: MethodLBFGS, MaxIter: tightMaxIter})
			if err != nil {
				t.Fatalf("Minimize: %v", err)
			}
			checkMinimum(t, tp, "L-BFGS", r.X, r.F)
			if r.Iterations == 0 || r.FuncEvals < r.Iterations {
				t.Errorf("%d iterations, %d calls", r.Iterations, r.FuncEvals)
			}
			t.Logf("%d iterations, %d calls, f − f* = %.2g, %v (%s)",
				r.Iterations, r.FuncEvals, r.F-tp.min.F, r.Status, r.Reason)
		})
	}
}

// TestQuadraticConjugacy checks the conjugate-gradient property: on a
// strictly convex quadratic in n variables, SCG with a negligible scale λ
// takes exact line-minimising steps along conjugate directions and reaches
// the minimum in about n successful steps. With Netlab's λ₀ = 1 the first
// steps are damped, but it still converges in a few multiples of n.
func TestQuadraticConjugacy(t *testing.T) {
	for _, n := range []int{2, 5, 10, 20} {
		// A = QᵀDQ with eigenvalues 1…100 and a fixed dense Q; b = A·x*.
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					d := 1 + 99*float64(k)/float64(max(n-1, 1))
					s += q(k, i, n) * d * q(k, j, n)
				}
				a[i*n+j] = s
			}
		}
		xStar := make([]float64, n)
		for i := range xStar {
			xStar[i] = math.Sin(float64(i + 1))
		}
		f := func(x, grad []float64) float64 {
			var v float64
			for i := 0; i < n; i++ {
				var ax float64
				for j := 0; j < n; j++ {
					ax += a[i*n+j] * (x[j] - xStar[j])
				}
				if grad != nil {
					grad[i] = ax
				}
				v += 0.5 * (x[i] - xStar[i]) * ax
			}
			return v
		}
		for _, tc := range []struct {
			name     string
			s        SCG
			maxSteps int
		}{
			{"λ₀=1e-15", SCG{Lambda0: 1e-15, TolX: 1e-10, TolF: 1e-20}, n + 1},
			{"Netlab λ₀=1", SCG{TolX: 1e-10, TolF: 1e-20}, 4*n + 10},
		} {
			reached := -1
			r, err := Minimize(f, make([]float64, n), Options{SCG: tc.s, MaxIter: 1000,
				Callback: func(it Iteration) bool {
					if reached < 0 && dist(it.X, xStar) < 1e-6 {
						reached = it.Iter
					}
					return false
				}})
			if err != nil {
				t.Fatal(err)
			}
			if reached < 0 || reached > tc.maxSteps {
				t.Errorf("n = %d, %s: reached |x − x*| < 1e-6 after %d steps, want ≤ %d",
					n, tc.name, reached, tc.maxSteps)
			}
			if d := dist(r.X, xStar); d > 1e-6 {
				t.Errorf("n = %d, %s: final |x − x*| = %g", n, tc.name, d)
			}
			t.Logf("n = %d, %s: within 1e-6 after %d steps; %d steps, %d cycles in all, %v",
				n, tc.name, reached, r.Iterations, r.Cycles, r.Status)
		}
	}
}

// q is entry (k, i) of an orthogonal n×n matrix (the DCT-II basis).
func q(k, i, n int) float64 {
	s := math.Sqrt(2 / float64(n))
	if k == 0 {
		s = math.Sqrt(1 / float64(n))
	}
	return s * math.Cos(math.Pi*float64(k)*(float64(i)+0.5)/float64(n))
}

func dist(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += (x[i] - y[i]) * (x[i] - y[i])
	}
	return math.Sqrt(s)
}

func ExampleMinimize() {
	// The Rosenbrock function in 4 variables, from the standard start.
	rosen := functions.ExtendedRosenbrock{}
	f := func(x, grad []float64) float64 {
		if grad != nil {
			rosen.Grad(grad, x)
		}
		return rosen.Func(x)
	}
	r, err := Minimize(f, []float64{-1.2, 1, -1.2, 1},
		Options{MaxIter: 1000, SCG: SCG{TolX: 1e-10, TolF: 1e-16}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = %.6f, converged: %v (%v)\n", r.X, r.Converged, r.Status)
	// Output: x = [1.000000 1.000000 1.000000 1.000000], converged: true (MethodConverge)
}

func ExampleSCG() {
	// SCG as a gonum optimize.Method, with Netlab's defaults and at most 100
	// successful steps.
	p := gopt.Problem{Func: functions.Beale{}.Func, Grad: functions.Beale{}.Grad}
	r, err := gopt.Minimize(p, []float64{1, 1}, &gopt.Settings{MajorIterations: 100}, &SCG{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = %.3f, f < 1e-8: %v, %v\n", r.X, r.F < 1e-8, r.Status)
	// Output: x = [3.000 0.500], f < 1e-8: true, MethodConverge
}
