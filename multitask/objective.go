package multitask

import (
	"errors"
	"fmt"
	"math"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
)

// Objective is the kernel objective whose sum over tasks Learn minimises: the engine's
// enum (engine.Objective), so the names and numbers are those of every family. Its zero
// value, ObjectiveAuto, is EPEvidence here, the multi-task papers' objective:
// −Σ_m ln Z_EP(y_{I_m} | θ) − ln p(θ), each task's expectation-propagation approximation of
// the marginal likelihood of its active labels (for Gaussian noise, the exact marginal
// likelihood of the active subsets). FixedSites is the papers' reference objective,
// Σ_m [½ ln|A_m| + ½ m_mᵀA_m⁻¹m_m] − ln p(θ) with the sites of the last selection held
// fixed (IVM paper eq. 32 per task). FullData adds every task's predictive term over its
// inactive points (engine.FullData), which the shared loop supports for several tasks.
type Objective = engine.Objective

// The kernel objectives (see Objective).
const (
	ObjectiveAuto = engine.ObjectiveAuto
	FullData      = engine.FullData
	EPEvidence    = engine.EPEvidence
	FixedSites    = engine.FixedSites
)

// ParseObjective parses "auto" (or ""), "full", "ep" or "fixed" (engine.ParseObjective).
func ParseObjective(s string) (Objective, error) { return engine.ParseObjective(s) }

// defaultObjective is the multi-task IVM's objective for ObjectiveAuto.
const defaultObjective = EPEvidence

// Objective returns the multi-task kernel objective (kind) on the selector's current active
// sets at the kernel's current parameters, and its gradient with respect to the kernel's free
// parameters in grad when grad is not nil. The kernel must be the selector's, a *kern.Sum.
func (s *Selector) Objective(kind Objective, priors map[string]engine.Prior,
	grad []float64) (float64, error) {
	sum, ok := s.Kernel.(*kern.Sum)
	if !ok {
		return math.NaN(), fmt.Errorf("multitask: the objective needs a *kern.Sum kernel, not %T",
			s.Kernel)
	}
	pr, err := engine.FreePriors(sum, priors)
	if err != nil {
		return math.NaN(), err
	}
	p := s.objective(sum, kind, pr)
	x := make([]float64, sum.NumFree())
	sum.Free(x)
	f := p.Eval(x, grad)
	if math.IsNaN(f) {
		return f, errors.New("multitask: the objective is undefined at these parameters " +
			"(a factorisation or EP failed)")
	}
	return f, nil
}

// objective is the multi-task kernel objective on the selector's current active sets: the
// engine's, with one term per task.
func (s *Selector) objective(sum *kern.Sum, kind Objective,
	priors []engine.Prior) *engine.KernelObjective {
	return engine.NewKernelObjective(sum, s.sels, engine.ObjectiveOptions{
		Kind: kind.Or(defaultObjective), Priors: priors, Workers: s.workers})
}

func nan() float64 { return math.NaN() }
