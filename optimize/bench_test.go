package optimize

import (
	"testing"

	gopt "gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/optimize/functions"
)

// The benchmarks run 100 iterations (Netlab's default, the papers' "100 SCG
// iterations") on the 20-variable Rosenbrock function from the standard
// start, which does not converge in that budget.

var benchX0 = rep(20, -1.2, 1)

func BenchmarkRosenbrock20(b *testing.B) {
	f := plain(functions.ExtendedRosenbrock{})
	for _, m := range []string{MethodSCG, MethodLBFGS} {
		b.Run(m, func(b *testing.B) {
			b.ReportAllocs()
			var r Result
			for b.Loop() {
				r, _ = Minimize(f, benchX0, Options{Method: m, MaxIter: 100, SCG: SCG{TolX: -1}})
			}
			b.ReportMetric(float64(r.FuncEvals), "calls/op")
			b.ReportMetric(r.F, "f")
		})
	}
	b.Run("scg-gonum", func(b *testing.B) {
		b.ReportAllocs()
		p := problem(functions.ExtendedRosenbrock{})
		var r *gopt.Result
		for b.Loop() {
			r, _ = gopt.Minimize(p, benchX0, &gopt.Settings{
				MajorIterations: 100, Converger: gopt.NeverTerminate{}}, &SCG{TolX: -1})
		}
		b.ReportMetric(float64(r.FuncEvaluations+r.GradEvaluations), "evals/op")
		b.ReportMetric(r.F, "f")
	})
}
