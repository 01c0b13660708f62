package multitask

import (
	"bytes"
	"testing"

	"github.com/ivmlab/ivm/dataset"
)

// ObjectiveAuto, the zero value, is the multi-task IVM's documented default, EPEvidence: a
// fit with either writes the same model file byte for byte. FullData, which the engine's
// enum adds to this family, runs on several tasks (a predictive term per task) and learns
// something else.
func TestObjectiveAutoIsEP(t *testing.T) {
	x, y, task := fitData(90, true, 1)
	file := func(obj Objective) string {
		cfg := Config{Kernel: "rbf+bias+white", Scaling: dataset.ScaleStd,
			ActiveSize: 20, Iters: 1, KernelIters: 5, Workers: 1, Objective: obj}
		m, err := Fit(x, y, task, cfg)
		if err != nil {
			t.Fatalf("%v: %v", obj, err)
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	auto, ep, full := file(ObjectiveAuto), file(EPEvidence), file(FullData)
	if auto != ep {
		t.Error("ObjectiveAuto and EPEvidence fit different models")
	}
	if full == ep {
		t.Error("FullData fits the EPEvidence model: its predictive term is missing")
	}
}
