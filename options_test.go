package ivm_test

import (
	"encoding/json"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/multitask"
)

// Config's enums: the zero value is the documented default, every value reads back from
// its name, JSON holds names, and the multi-task IVM's enums are the same types with the
// same numbers (ivm.EPEvidence was 1 and multitask.EPEvidence 0 before they were one).
func TestConfigEnums(t *testing.T) {
	var cfg ivm.Config
	if cfg.Criterion != engine.CriterionAuto || cfg.Transform != engine.TransformAuto ||
		cfg.Learn.Optimizer != engine.OptimizerSCG ||
		cfg.Learn.Objective != engine.ObjectiveAuto || cfg.Learning != ivm.LearnAuto ||
		cfg.Task != ivm.TaskAuto || cfg.Scale != dataset.ScaleAuto {
		t.Errorf("zero Config's enums are not the defaults: %+v", cfg)
	}
	type enums struct {
		Criterion engine.CriterionChoice
		Transform engine.Transform
		Optimizer engine.Optimizer
		Objective engine.Objective
		Learning  ivm.Learning
		Task      ivm.Task
	}
	in := enums{engine.CriterionExpected, engine.TransformExp, engine.OptimizerLBFGS,
		engine.FixedSites, ivm.Algorithm2, ivm.Ordinal}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Criterion":"expected","Transform":"exp","Optimizer":"lbfgs",` +
		`"Objective":"fixed","Learning":"alg2","Task":"ordinal"}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back enums
	if err := json.Unmarshal(b, &back); err != nil || back != in {
		t.Errorf("read back %+v (%v), want %+v", back, err, in)
	}
	for _, s := range []string{"auto", "full", "ep", "fixed"} {
		if o, err := engine.ParseObjective(s); err != nil || o.String() != s {
			t.Errorf("ParseObjective(%q) = %v, %v", s, o, err)
		}
	}
	for _, s := range []string{"auto", "entropy", "expected"} {
		if c, err := engine.ParseCriterionChoice(s); err != nil || c.String() != s {
			t.Errorf("ParseCriterionChoice(%q) = %v, %v", s, c, err)
		}
	}
	if _, err := json.Marshal(enums{Optimizer: engine.Optimizer(7)}); err == nil {
		t.Error("an optimizer without a name was written")
	}
	// One enum, one numbering, in both families.
	var mo multitask.Objective = engine.EPEvidence
	if mo != multitask.EPEvidence || multitask.ObjectiveAuto != 0 || engine.FullData != 1 ||
		engine.EPEvidence != 2 || engine.FixedSites != 3 {
		t.Errorf("objective numbering differs: engine.EPEvidence %d, multitask.EPEvidence %d",
			engine.EPEvidence, multitask.EPEvidence)
	}
	var mc multitask.Criterion = engine.CriterionExpected
	var mt multitask.Transform = engine.TransformExp
	var mopt multitask.Optimizer = engine.OptimizerLBFGS
	if mc != multitask.CriterionExpected || mt != multitask.TransformExp ||
		mopt != multitask.OptimizerLBFGS {
		t.Error("the families' enums differ")
	}
	// CriterionAuto is not a score: Resolve gives the family's choice, the others their own.
	if engine.CriterionAuto.Resolve(engine.ExpectedEntropy) != engine.ExpectedEntropy ||
		engine.CriterionEntropy.Resolve(engine.ExpectedEntropy) != engine.Entropy {
		t.Error("CriterionChoice.Resolve")
	}
}
