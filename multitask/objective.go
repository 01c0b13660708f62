package multitask

import (
	"errors"
	"fmt"
	"math"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
)

// Objective picks the per-task active-set objective whose sum over tasks Learn minimises.
type Objective int

const (
	// EPEvidence, the default, is −Σ_m ln Z_EP(y_{I_m} | θ) − ln p(θ): each task's
	// expectation-propagation approximation of the marginal likelihood of its active labels,
	// with the sites refitted for every θ the optimiser tries. For Gaussian noise it is the
	// exact marginal likelihood of the active subsets.
	EPEvidence Objective = iota
	// FixedSites is the papers' objective, Σ_m [½ ln|A_m| + ½ m_mᵀA_m⁻¹m_m] − ln p(θ) with
	// A_m = K_{I_m} + B_m⁻¹ and the sites of the last selection held fixed (IVM paper eq. 32
	// per task, engine.ActiveSetObjective).
	FixedSites
)

// String returns "ep" or "fixed".
func (o Objective) String() string {
	if o == FixedSites {
		return "fixed"
	}
	return "ep"
}

// ParseObjective parses "ep" or "fixed".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "ep", "":
		return EPEvidence, nil
	case "fixed":
		return FixedSites, nil
	}
	return 0, fmt.Errorf("multitask: unknown objective %q (want ep or fixed)", s)
}

// engine is the engine's objective of the same meaning.
func (o Objective) engine() engine.Objective {
	if o == FixedSites {
		return engine.FixedSites
	}
	return engine.EPEvidence
}

// Objective returns the multi-task kernel objective (kind) on the selector's current active
// sets at the kernel's current parameters, and its gradient with respect to the kernel's free
// parameters in grad when grad is not nil. The kernel must be the selector's, a *kern.Sum.
func (s *Selector) Objective(kind Objective, priors map[string]engine.Prior, grad []float64) (float64, error) {
	sum, ok := s.Kernel.(*kern.Sum)
	if !ok {
		return math.NaN(), fmt.Errorf("multitask: the objective needs a *kern.Sum kernel, not %T", s.Kernel)
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
		return f, errors.New("multitask: the objective is undefined at these parameters (a factorisation or EP failed)")
	}
	return f, nil
}

// objective is the multi-task kernel objective on the selector's current active sets: the
// engine's, with one term per task.
func (s *Selector) objective(sum *kern.Sum, kind Objective, priors []engine.Prior) *engine.KernelObjective {
	return engine.NewKernelObjective(sum, s.sels, engine.ObjectiveOptions{Kind: kind.engine(), Priors: priors, Workers: s.workers})
}

func nan() float64 { return math.NaN() }
