package optimize

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	gopt "gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/optimize/functions"
)

// fenced wraps f so that its value is NaN wherever outside(x), counting the
// calls that landed there. Like a likelihood whose Cholesky factorisation
// fails, its plain form leaves grad zeroed at such points rather than
// filling it with NaN, so only the value tells that the point is bad.
type fenced struct {
	f       fg
	outside func(x []float64) bool
	nan     int
}

func (p *fenced) Func(x []float64) float64 {
	if p.outside(x) {
		p.nan++
		return math.NaN()
	}
	return p.f.Func(x)
}

// Grad is gonum's gradient: finite everywhere (the formula does not know
// the fence), so that only Func's NaN marks a point as bad.
func (p *fenced) Grad(grad, x []float64) {
	p.f.Grad(grad, x)
}

func (p *fenced) plain() Func {
	return func(x, grad []float64) float64 {
		if p.outside(x) {
			p.nan++
			clear(grad)
			return math.NaN()
		}
		if grad != nil {
			p.f.Grad(grad, x)
		}
		return p.f.Func(x)
	}
}

// shifted is (x₀ − 3)² + 10·x₁², minimised at (3, 0).
type shifted struct{}

func (shifted) Func(x []float64) float64 { return (x[0]-3)*(x[0]-3) + 10*x[1]*x[1] }
func (shifted) Grad(g, x []float64)      { g[0], g[1] = 2*(x[0]-3), 20*x[1] }

func TestNaNRegion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       fg
		x0      []float64
		outside func(x []float64) bool
		// The answer must be inside and within fTol of fWant (lbfgsFTol for
		// L-BFGS).
		fWant, fTol, lbfgsFTol float64
		// lbfgsHits says whether L-BFGS is known to step outside too.
		lbfgsHits bool
		opt       Options
	}{
		{
			// The minimum lies beyond x₀ = 2.5, where f is undefined: SCG
			// keeps stepping into the fence and backs off until its steps
			// are below TolX. (L-BFGS's line search gives up earlier.)
			name: "minimum outside", f: shifted{}, x0: []float64{0, 1},
			outside: func(x []float64) bool { return x[0] > 2.5 },
			fWant:   0.25, fTol: 1e-3, lbfgsFTol: 1, lbfgsHits: true,
		},
		{
			// Rosenbrock from the standard start: the first, huge step
			// crosses the fence, fails like any uphill step, and the run
			// goes on to the minimum.
			name: "Rosenbrock2 overshoot", f: functions.ExtendedRosenbrock{},
			x0:      []float64{-1.2, 1},
			outside: func(x []float64) bool { return x[0] > 1.2 },
			fWant:   0, fTol: 1e-12, lbfgsFTol: 1e-12,
			opt: Options{MaxIter: 1000, SCG: tight},
		},
		{
			name: "Rosenbrock10 fenced at the minimum", f: functions.ExtendedRosenbrock{},
			x0:      rep(10, -1.2, 1),
			outside: func(x []float64) bool { return x[0] > 1.01 || x[1] > 1.01 },
			fWant:   0, fTol: 1e-12, lbfgsFTol: 1e-12, lbfgsHits: true,
			opt: Options{MaxIter: 1000, SCG: tight},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, x []float64, f float64, g []float64, nan int, fTol float64,
				needNaN bool) {
				t.Helper()
				if !allFinite(x) || math.IsNaN(f) || math.IsInf(f, 0) || !allFinite(g) {
					t.Fatalf("%s: non-finite answer x = %v, f = %g, g = %v", how, x, f, g)
				}
				if tc.outside(x) {
					t.Errorf("%s: answer %v is outside the domain", how, x)
				}
				if math.Abs(f-tc.fWant) > fTol {
					t.Errorf("%s: f = %g, want %g ± %g", how, f, tc.fWant, fTol)
				}
				if needNaN && nan == 0 {
					t.Errorf("%s: never evaluated outside the domain: the test tests nothing", how)
				}
				if want := tc.f.Func(x); f != want {
					t.Errorf("%s: reported f = %g, f(x) = %g", how, f, want)
				}
				t.Logf("%s: f = %.6g at %.6g after %d evaluations outside", how, f, x, nan)
			}

			p := &fenced{f: tc.f, outside: tc.outside}
			r, err := Minimize(p.plain(), tc.x0, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			check("Minimize", r.X, r.F, r.Grad, p.nan, tc.fTol, true)

			p = &fenced{f: tc.f, outside: tc.outside}
			s := tc.opt.SCG
			gr, err := gopt.Minimize(gopt.Problem{Func: p.Func, Grad: p.Grad}, tc.x0, nil, &s)
			if err != nil {
				t.Fatal(err)
			}
			check("gonum Minimize", gr.X, gr.F, gr.Gradient, p.nan, tc.fTol, true)

			p = &fenced{f: tc.f, outside: tc.outside}
			o := tc.opt
			o.Method = MethodLBFGS
			lr, err := Minimize(p.plain(), tc.x0, o)
			if err != nil {
				t.Fatal(err)
			}
			check("L-BFGS", lr.X, lr.F, lr.Grad, p.nan, tc.lbfgsFTol, tc.lbfgsHits)
		})
	}
}

// TestNaNGradientOnly: the value is finite everywhere but the gradient is
// not beyond a fence; such a trial point must not be accepted.
func TestNaNGradientOnly(t *testing.T) {
	badGrad := 0
	p := gopt.Problem{
		Func: shifted{}.Func,
		Grad: func(g, x []float64) {
			shifted{}.Grad(g, x)
			if x[0] > 2.5 {
				badGrad++
				g[0] = math.NaN()
			}
		},
	}
	r, err := gopt.Minimize(p, []float64{0, 1}, nil, &SCG{})
	if err != nil {
		t.Fatal(err)
	}
	if badGrad == 0 || r.X[0] > 2.5 || !allFinite(r.Gradient) || math.Abs(r.F-0.25) > 1e-3 {
		t.Errorf("%d NaN gradients; answer x = %v, f = %g, g = %v, %v",
			badGrad, r.X, r.F, r.Gradient, r.Status)
	}
}

// TestNaNOnGradientCall: the plain objective's value is finite when only the
// value is asked for, but the call with a gradient fails (NaN, gradient left
// zeroed) beyond a fence — say, a factorisation only the gradient needs. Such
// a point must not be accepted with a zero gradient.
func TestNaNOnGradientCall(t *testing.T) {
	failed := 0
	f := func(x, grad []float64) float64 {
		if grad != nil {
			if x[0] > 2.5 {
				failed++
				clear(grad)
				return math.NaN()
			}
			shifted{}.Grad(grad, x)
		}
		return shifted{}.Func(x)
	}
	r, err := Minimize(f, []float64{0, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if failed == 0 || r.X[0] > 2.5 || math.Abs(r.F-0.25) > 1e-3 || r.Grad[0] == 0 {
		t.Errorf("%d failed gradient calls; answer x = %v, f = %g, g = %v, %v",
			failed, r.X, r.F, r.Grad, r.Status)
	}
}

func TestNaNStart(t *testing.T) {
	nan := func(x, grad []float64) float64 { return math.NaN() }
	for _, m := range []string{MethodSCG, MethodLBFGS} {
		r, err := Minimize(nan, []float64{1, 2}, Options{Method: m})
		if err == nil || !strings.Contains(err.Error(), "NaN") ||
			!strings.Contains(err.Error(), "starting point") {
			t.Errorf("%s: error %v, want one naming NaN at the starting point", m, err)
		}
		if r.Status != gopt.Failure || r.Converged {
			t.Errorf("%s: status %v", m, r.Status)
		}
	}
	badGrad := func(x, grad []float64) float64 {
		if grad != nil {
			grad[0], grad[1] = 1, math.Inf(1)
		}
		return 0
	}
	if _, err := Minimize(badGrad, []float64{1, 2}, Options{}); err == nil ||
		!strings.Contains(err.Error(), "gradient entry 1") {
		t.Errorf("infinite starting gradient: error %v", err)
	}
	r, err := gopt.Minimize(gopt.Problem{Func: func([]float64) float64 { return math.NaN() },
		Grad: func(g, x []float64) {}}, []float64{1}, nil, &SCG{})
	if err == nil || r.Status != gopt.Failure {
		t.Errorf("gonum Minimize from a NaN start: status %v, error %v", r.Status, err)
	}
	if _, err := Minimize(nan, nil, Options{}); err == nil {
		t.Error("empty x0 accepted")
	}
}

// TestLambdaExhausted: f is defined only at the starting point, so every
// step fails, λ climbs to its bound and the run stops with Failure at x0.
func TestLambdaExhausted(t *testing.T) {
	x0 := []float64{0, 0}
	f := func(x, grad []float64) float64 {
		if x[0] != 0 || x[1] != 0 {
			return math.NaN()
		}
		if grad != nil {
			grad[0], grad[1] = 1, -2
		}
		return 5
	}
	r, err := Minimize(f, x0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != gopt.Failure || r.Converged || !slices.Equal(r.X, x0) || r.F != 5 ||
		r.Iterations != 0 {
		t.Errorf("status %v, x %v, f %g, %d iterations", r.Status, r.X, r.F, r.Iterations)
	}
	// λ goes 1 → 4 → … → 1e100: about 167 failed cycles, then one more.
	if r.Cycles < 160 || r.Cycles > 175 {
		t.Errorf("%d cycles", r.Cycles)
	}
	g, err := gopt.Minimize(gopt.Problem{
		Func: func(x []float64) float64 { return f(x, nil) },
		Grad: func(g, x []float64) { f(x, g) },
	}, x0, nil, &SCG{})
	if !errors.Is(err, ErrLambdaExhausted) || g.Status != gopt.Failure || g.F != 5 {
		t.Errorf("gonum Minimize: status %v, f %g, error %v", g.Status, g.F, err)
	}
}

func TestPlainOptions(t *testing.T) {
	f := plain(rosen10.f)
	t.Run("Callback", func(t *testing.T) {
		var its []Iteration
		r, err := Minimize(f, rosen10.x0, Options{Callback: func(it Iteration) bool {
			its = append(its,
				Iteration{Iter: it.Iter, F: it.F, Lambda: it.Lambda, FuncEvals: it.FuncEvals})
			return it.Iter == 3
		}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Iterations != 3 || len(its) != 3 || r.Status != gopt.Success || r.Converged ||
			r.F != its[2].F {
			t.Errorf("stopped after %d iterations (%d callbacks), %v, converged %v",
				r.Iterations, len(its), r.Status, r.Converged)
		}
		for i, it := range its {
			if it.Iter != i+1 || !(it.Lambda > 0) || it.FuncEvals == 0 {
				t.Errorf("callback %d: %+v", i, it)
			}
		}
		l, err := Minimize(f, rosen10.x0, Options{Method: MethodLBFGS,
			Callback: func(it Iteration) bool { return it.Iter == 3 }})
		if err != nil {
			t.Fatal(err)
		}
		if l.Iterations != 3 || l.Status != gopt.Success || l.Converged {
			t.Errorf("L-BFGS stopped after %d iterations, %v (%s)",
				l.Iterations, l.Status, l.Reason)
		}
	})
	t.Run("MaxFuncEvals", func(t *testing.T) {
		calls := 0
		counted := func(x, grad []float64) float64 { calls++; return f(x, grad) }
		r, err := Minimize(counted, rosen10.x0, Options{MaxFuncEvals: 30})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != gopt.FunctionEvaluationLimit || r.FuncEvals != 30 || calls != 30 {
			t.Errorf("status %v, %d evaluations counted, %d made", r.Status, r.FuncEvals, calls)
		}
	})
	t.Run("GradTol", func(t *testing.T) {
		for _, m := range []string{MethodSCG, MethodLBFGS} {
			r, err := Minimize(f, rosen10.x0,
				Options{Method: m, MaxIter: -1, GradTol: 1e-3, SCG: SCG{TolX: -1}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != gopt.GradientThreshold || !r.Converged || maxAbs(r.Grad) >= 1e-3 {
				t.Errorf("%s: status %v, max|g| = %g", m, r.Status, maxAbs(r.Grad))
			}
		}
	})
	t.Run("DefaultMaxIter", func(t *testing.T) {
		r, _ := Minimize(f, rosen10.x0, Options{SCG: SCG{TolX: -1}})
		if r.Iterations != DefaultMaxIter || r.Status != gopt.IterationLimit {
			t.Errorf("%d iterations, %v", r.Iterations, r.Status)
		}
	})
	t.Run("x0 untouched", func(t *testing.T) {
		x0 := slices.Clone(rosen10.x0)
		for _, m := range []string{MethodSCG, MethodLBFGS} {
			r, _ := Minimize(f, x0, Options{Method: m})
			if !slices.Equal(x0, rosen10.x0) || r.F0 != rosen10.f.Func(x0) {
				t.Errorf("%s: x0 modified or F0 = %g wrong", m, r.F0)
			}
		}
	})
}
