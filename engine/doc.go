// Package engine is the Informative Vector Machine's engine: Algorithm 1 of Lawrence,
// Seeger and Herbrich's IVM paper (greedy selection of an active set by information gain,
// with assumed-density filtering for non-Gaussian noise models), the model it leaves,
// swap refinement of an active set, and Algorithm 2 (learning the kernel and noise
// parameters by alternating selection and optimisation).
//
// Algorithm 1 runs in the representation Σ = K − MᵀM of the paper's eqs. 27–30: kernel
// columns are computed on demand and the N×N kernel matrix is never formed, so selecting d
// points from N costs O(d²N) time and O(dN) memory. A Selector runs the selection on one
// data set; its Model predicts from the active set alone.
//
// Algorithm 2 is one loop, RunLearn, over a Tasks: the selectors of one task, or of
// several tasks that share the kernel being learnt. Its kernel objective (KernelObjective)
// is a sum of one term per active set, its noise objective (NoiseObjective) ties the
// tasks' noise parameters, and its safeguard accepts an outer iteration only if the
// held-out likelihood does not drop. Learn is the single-task case.
//
// Users seldom call the engine directly. Package ivm (ivm.Fit) wraps it with the task
// choice (binary, one-vs-rest multi-class, regression, ordinal, semi-supervised), input
// scaling, the kernel search and model files; its Config takes the engine's option types
// (engine.LearnOptions, engine.CriterionChoice, …) as they are. Package multitask runs one
// Selector per task behind its own Selector and learns their shared kernel with RunLearn.
// Both predict through the shared inference layer, package infer (EP on site
// approximations, Cholesky factorisation with recorded jitter).
//
// The conventions — start-up bias, ν floor, tie-breaking by lowest index, the
// negative-site-precision rule — are those of the reference MATLAB toolbox, whose outputs
// the tests reproduce.
package engine

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// FitFixed selects an active set of d points from the rows of x with targets y and returns the
// trained model. It is NewSelector, Select and Model in one call.
func FitFixed(x *mat.Dense, y []float64, k kern.Kernel, nm noise.Model, d int, opt Options) (*Model,
	error) {
	s, err := NewSelector(x, y, k, nm, opt)
	if err != nil {
		return nil, err
	}
	if err := s.Select(d); err != nil {
		return nil, err
	}
	return s.Model()
}
