package optimize

import (
	"errors"
	"math"
	"slices"
	"testing"

	gopt "gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/optimize/functions"
)

// countRecorder counts the operations gonum records.
type countRecorder struct {
	ops   map[gopt.Operation]int
	fs    []float64 // F at each MajorIteration
	inits int
}

func (r *countRecorder) Init() error {
	r.inits++
	r.ops = map[gopt.Operation]int{}
	return nil
}

func (r *countRecorder) Record(loc *gopt.Location, op gopt.Operation, _ *gopt.Stats) error {
	r.ops[op]++
	if op == gopt.MajorIteration {
		r.fs = append(r.fs, loc.F)
	}
	return nil
}

var rosen10 = testProblems[8]

func TestMethodRecorder(t *testing.T) {
	rec := &countRecorder{}
	r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0,
		&gopt.Settings{Recorder: rec, MajorIterations: 1000}, &SCG{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != gopt.MethodConverge {
		t.Fatalf("status %v, want MethodConverge", r.Status)
	}
	if rec.inits != 1 || rec.ops[gopt.InitIteration] != 1 || rec.ops[gopt.PostIteration] != 1 {
		t.Errorf("Init %d times, InitIteration %d, PostIteration %d; want 1 each",
			rec.inits, rec.ops[gopt.InitIteration], rec.ops[gopt.PostIteration])
	}
	// SCG ended the run by itself, so every iteration was recorded.
	if got := rec.ops[gopt.MajorIteration]; got != r.MajorIterations || got == 0 {
		t.Errorf("recorded %d major iterations, result says %d", got, r.MajorIterations)
	}
	if got := rec.ops[gopt.FuncEvaluation]; got != r.FuncEvaluations-1 { // x0 is Func|Grad
		t.Errorf("recorded %d function evaluations, result says %d", got, r.FuncEvaluations)
	}
	if got := rec.ops[gopt.GradEvaluation]; got != r.GradEvaluations-1 {
		t.Errorf("recorded %d gradient evaluations, result says %d", got, r.GradEvaluations)
	}
	if rec.ops[gopt.FuncEvaluation|gopt.GradEvaluation] != 1 {
		t.Errorf("starting point evaluated %d times",
			rec.ops[gopt.FuncEvaluation|gopt.GradEvaluation])
	}
	// Accepted steps never increase f.
	for i := 1; i < len(rec.fs); i++ {
		if rec.fs[i] > rec.fs[i-1] {
			t.Errorf("f increased at iteration %d: %g → %g", i+1, rec.fs[i-1], rec.fs[i])
		}
	}
	if last := rec.fs[len(rec.fs)-1]; last != r.F {
		t.Errorf("last recorded f %g, result f %g", last, r.F)
	}
}

// TestMethodIterationLimit checks that Settings.MajorIterations = K allows
// exactly K successful SCG steps, and that the plain Minimize with MaxIter =
// K stops at the same point.
func TestMethodIterationLimit(t *testing.T) {
	for _, k := range []int{1, 2, 3, 10, 37} {
		rec := &countRecorder{}
		r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0, &gopt.Settings{
			MajorIterations: k, Recorder: rec, Converger: gopt.NeverTerminate{}}, &SCG{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != gopt.IterationLimit || r.MajorIterations != k {
			t.Errorf("K = %d: status %v after %d iterations", k, r.Status, r.MajorIterations)
		}
		// gonum does not record the major iteration that ends the run.
		if got := rec.ops[gopt.MajorIteration]; got != k-1 {
			t.Errorf("K = %d: recorded %d major iterations, want %d", k, got, k-1)
		}
		p, err := Minimize(plain(rosen10.f), rosen10.x0, Options{MaxIter: k})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != gopt.IterationLimit || p.Iterations != k || p.Converged {
			t.Errorf("K = %d: plain run: status %v after %d iterations, converged %v",
				k, p.Status, p.Iterations, p.Converged)
		}
		if !slices.Equal(p.X, r.X) || p.F != r.F {
			t.Errorf("K = %d: plain run ends at f = %g, gonum run at f = %g", k, p.F, r.F)
		}
	}
}

// TestMethodCycleLimit checks MaxCycles, Netlab's count of all cycles.
func TestMethodCycleLimit(t *testing.T) {
	r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0, nil, &SCG{MaxCycles: 40})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Minimize(plain(rosen10.f), rosen10.x0, Options{SCG: SCG{MaxCycles: 40}})
	if r.Status != gopt.IterationLimit || p.Status != gopt.IterationLimit || p.Cycles != 40 {
		t.Errorf("status %v (plain %v) after %d cycles", r.Status, p.Status, p.Cycles)
	}
	if p.Iterations >= 40 || p.Iterations != r.MajorIterations {
		t.Errorf("%d successful steps in 40 cycles (gonum run %d); Rosenbrock has failures",
			p.Iterations, r.MajorIterations)
	}
}

// TestMethodSettings checks gonum's own stopping rules with SCG.
func TestMethodSettings(t *testing.T) {
	t.Run("GradientThreshold", func(t *testing.T) {
		r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0,
			&gopt.Settings{GradientThreshold: 1e-3}, &SCG{TolX: -1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != gopt.GradientThreshold || maxAbs(r.Gradient) >= 1e-3 {
			t.Errorf("status %v, max|g| = %g", r.Status, maxAbs(r.Gradient))
		}
	})
	t.Run("FuncEvaluations", func(t *testing.T) {
		r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0,
			&gopt.Settings{FuncEvaluations: 25}, &SCG{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != gopt.FunctionEvaluationLimit || r.FuncEvaluations != 25 {
			t.Errorf("status %v after %d evaluations", r.Status, r.FuncEvaluations)
		}
		if r.MajorIterations == 0 || r.F >= rosen10.f.Func(rosen10.x0) {
			t.Errorf("%d iterations, f = %g", r.MajorIterations, r.F)
		}
	})
	t.Run("Converger", func(t *testing.T) {
		r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0, &gopt.Settings{
			Converger: &gopt.FunctionConverge{Absolute: 1e-2, Iterations: 3}}, &SCG{TolX: -1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != gopt.FunctionConvergence {
			t.Errorf("status %v, want FunctionConvergence", r.Status)
		}
	})
	t.Run("InitValues", func(t *testing.T) {
		x0 := rosen10.x0
		g0 := make([]float64, len(x0))
		rosen10.f.Grad(g0, x0)
		a, _ := gopt.Minimize(problem(rosen10.f), x0, nil, &SCG{})
		b, err := gopt.Minimize(problem(rosen10.f), x0, &gopt.Settings{
			InitValues: &gopt.Location{F: rosen10.f.Func(x0), Gradient: g0}}, &SCG{})
		if err != nil {
			t.Fatal(err)
		}
		if b.FuncEvaluations != a.FuncEvaluations-1 || b.GradEvaluations != a.GradEvaluations-1 ||
			b.F != a.F {
			t.Errorf("with InitValues %d/%d evaluations, without %d/%d",
				b.FuncEvaluations, b.GradEvaluations, a.FuncEvaluations, a.GradEvaluations)
		}
	})
	t.Run("NoGradient", func(t *testing.T) {
		if _, err := (&SCG{}).Uses(gopt.Available{}); !errors.Is(err, gopt.ErrMissingGrad) {
			t.Errorf("Uses without gradient: %v", err)
		}
	})
	t.Run("BadConfig", func(t *testing.T) {
		r, err := gopt.Minimize(problem(rosen10.f), rosen10.x0, nil,
			&SCG{LambdaMin: 10, LambdaMax: 1})
		if err == nil || r.Status != gopt.Failure {
			t.Errorf("status %v, error %v", r.Status, err)
		}
		if _, err := Minimize(plain(rosen10.f), rosen10.x0,
			Options{SCG: SCG{Sigma0: math.NaN()}}); err == nil {
			t.Error("NaN Sigma0 accepted")
		}
		if _, err := Minimize(plain(rosen10.f), rosen10.x0, Options{Method: "bfgs"}); err == nil {
			t.Error("unknown method accepted")
		}
	})
	t.Run("Reuse", func(t *testing.T) {
		// One SCG value serves consecutive runs.
		s := &SCG{}
		a, _ := gopt.Minimize(problem(rosen10.f), rosen10.x0, nil, s)
		b, _ := gopt.Minimize(problem(rosen10.f), rosen10.x0, nil, s)
		if a.F != b.F || a.MajorIterations != b.MajorIterations || a.Status != b.Status {
			t.Errorf("second run differs: f %g/%g", a.F, b.F)
		}
	})
}

// TestMethodNoSuccess covers runs that end before any successful step:
// gonum's Result must still hold the starting point, not an empty location.
func TestMethodNoSuccess(t *testing.T) {
	// A quadratic whose minimum is the starting point: the search direction
	// vanishes at once.
	sq := functions.ExtendedRosenbrock{}
	one := []float64{1, 1, 1}
	r, err := gopt.Minimize(problem(sq), one, nil, &SCG{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != gopt.MethodConverge || !slices.Equal(r.X, one) || r.F != 0 {
		t.Errorf("stationary start: status %v, x %v, f %g", r.Status, r.X, r.F)
	}
	// An evaluation limit hit by the first trial point.
	x0 := rosen10.x0
	r, err = gopt.Minimize(problem(rosen10.f), x0, &gopt.Settings{FuncEvaluations: 2}, &SCG{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != gopt.FunctionEvaluationLimit || !slices.Equal(r.X, x0) ||
		r.F != rosen10.f.Func(x0) || len(r.Gradient) != len(x0) {
		t.Errorf("limit before the first step: status %v, x %v, f %g", r.Status, r.X, r.F)
	}
}
