package multitask

import (
	"math"
	"testing"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
)

// Single-task and multi-task learning are one loop (engine.RunLearn): with one task, the
// same objective and no noise step, multitask.Learn and engine.Learn take the same steps
// to the same kernel.
func TestOneTaskLearnIsEngineLearn(t *testing.T) {
	for _, classify := range []bool{true, false} {
		mt := toyTasks(t, 1, 150, classify, 21)
		st := toyTasks(t, 1, 150, classify, 21)[0] // its own noise model instance
		k1, _ := kern.Parse("rbf+bias+white", 2)
		k2, _ := kern.Parse("rbf+bias+white", 2)
		_, mres, err := Learn(mt, k1,
			LearnOptions{ActiveSize: 30, Iters: 3, KernelIters: 20, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, eres, err := engine.Learn(st.X, st.Y, k2, st.Noise, engine.LearnOptions{
			ActiveSize: 30, Iters: 3, KernelIters: 20, Objective: engine.EPEvidence, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(mres.Trace) != len(eres.Trace) || mres.Best != eres.Best {
			t.Fatalf("classify=%v: %d records (best %d) multi-task, %d (best %d) single-task",
				classify, len(mres.Trace), mres.Best, len(eres.Trace), eres.Best)
		}
		for i, m := range mres.Trace {
			e := eres.Trace[i]
			// The pooled held-out figure is the single task's times n/n: equal to rounding.
			if m.Steps != e.KernelSteps || m.After != e.KernelAfter ||
				math.Abs(m.HeldOut-e.HeldOut) > 1e-12 {
				t.Errorf("classify=%v, record %d: multi-task %d steps to %v (held out %v), "+
					"single-task %d steps to %v (held out %v)", classify, i,
					m.Steps, m.After, m.HeldOut, e.KernelSteps, e.KernelAfter, e.HeldOut)
			}
		}
		if mres.Trace[0].Steps == 0 {
			t.Errorf("classify=%v: the kernel step did not run", classify)
		}
		if k1.String() != k2.String() {
			t.Errorf("classify=%v: multi-task learnt %s, single-task %s", classify, k1, k2)
		}
	}
}
