package ivm_test

import (
	"encoding/json"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/multitask"
)

// Config's enums: the zero value is the documented default, every value reads back from
// its name, JSON holds names, and the multi-task IVM's enums are the same types with the
// same numbers (ivm.EPEvidence was 1 and multitask.EPEvidence 0 before they were one).
func TestConfigEnums(t *testing.T) {
	var cfg ivm.Config
	if cfg.Criterion != ivm.CriterionAuto || cfg.Transform != ivm.TransformAuto || cfg.Learn.Optimizer != ivm.OptimizerSCG ||
		cfg.Learn.Objective != ivm.ObjectiveAuto || cfg.Learning != ivm.LearnAuto || cfg.Task != ivm.TaskAuto || cfg.Scale != ivm.ScaleAuto {
		t.Errorf("zero Config's enums are not the defaults: %+v", cfg)
	}
	type enums struct {
		Criterion ivm.CriterionChoice
		Transform ivm.Transform
		Optimizer ivm.Optimizer
		Objective ivm.Objective
		Learning  ivm.Learning
		Task      ivm.Task
	}
	in := enums{ivm.CriterionExpected, ivm.TransformExp, ivm.OptimizerLBFGS, ivm.FixedSites, ivm.Algorithm2, ivm.Ordinal}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Criterion":"expected","Transform":"exp","Optimizer":"lbfgs","Objective":"fixed","Learning":"alg2","Task":"ordinal"}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back enums
	if err := json.Unmarshal(b, &back); err != nil || back != in {
		t.Errorf("read back %+v (%v), want %+v", back, err, in)
	}
	for _, s := range []string{"auto", "full", "ep", "fixed"} {
		if o, err := ivm.ParseObjective(s); err != nil || o.String() != s {
			t.Errorf("ParseObjective(%q) = %v, %v", s, o, err)
		}
	}
	for _, s := range []string{"auto", "entropy", "expected"} {
		if c, err := ivm.ParseCriterionChoice(s); err != nil || c.String() != s {
			t.Errorf("ParseCriterionChoice(%q) = %v, %v", s, c, err)
		}
	}
	if _, err := json.Marshal(enums{Optimizer: ivm.Optimizer(7)}); err == nil {
		t.Error("an optimizer without a name was written")
	}
	// One enum, one numbering, in both families.
	var mo multitask.Objective = ivm.EPEvidence
	if mo != multitask.EPEvidence || multitask.ObjectiveAuto != 0 || ivm.FullData != 1 || ivm.EPEvidence != 2 || ivm.FixedSites != 3 {
		t.Errorf("objective numbering differs: ivm.EPEvidence %d, multitask.EPEvidence %d", ivm.EPEvidence, multitask.EPEvidence)
	}
	var mc multitask.Criterion = ivm.CriterionExpected
	var mt multitask.Transform = ivm.TransformExp
	var mopt multitask.Optimizer = ivm.OptimizerLBFGS
	if mc != multitask.CriterionExpected || mt != multitask.TransformExp || mopt != multitask.OptimizerLBFGS {
		t.Error("the families' enums differ")
	}
	// CriterionAuto is not a score: Resolve gives the family's choice, the others their own.
	if ivm.CriterionAuto.Resolve(ivm.ExpectedEntropy) != ivm.ExpectedEntropy || ivm.CriterionEntropy.Resolve(ivm.ExpectedEntropy) != ivm.Entropy {
		t.Error("CriterionChoice.Resolve")
	}
}
