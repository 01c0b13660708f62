// Package ivm is the Informative Vector Machine: a sparse Gaussian-process learner that
// keeps a small active set of d training points chosen greedily by information gain, with
// assumed-density filtering (ADF) for non-Gaussian noise models (Lawrence, Seeger and
// Herbrich, "The Informative Vector Machine: a practical probabilistic alternative to the
// SVM"; the papers are listed in README.md).
//
// Most callers need Fit and the Predictor it returns: Fit picks the task from the targets
// (binary, multi-class by one-vs-rest, regression, ordinal, semi-supervised), scales the
// inputs, chooses the active set size and the kernel — by default (Search) one rbf kernel
// for all of a task's classes, with the input scaling and the selection criterion, by the
// log loss of held-out rows; Algorithm 2 of the paper on request and for ordinal and
// semi-supervised tasks — and tempers the reported probabilities (Predictor.Sharpness);
// Predict gives labels, class probabilities and latent moments; Save and Load read and
// write versioned model files. The command-line tool is a thin layer over them.
//
// The engine is Algorithm 1 of that paper in the representation Σ = K − MᵀM of its
// eqs. 27–30: kernel columns are computed on demand and the N×N kernel matrix is never
// formed, so selecting d points from N costs O(d²N) time and O(dN) memory. A Selector runs
// the selection on one data set; its Model predicts from the active set alone.
//
// Kernels live in package kern and noise models (Gaussian, probit, ordered categorical,
// null category) in package noise. The conventions — start-up bias, ν floor, tie-breaking
// by lowest index, the negative-site-precision rule — are those of the reference MATLAB
// toolbox, whose outputs the tests reproduce.
package ivm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// FitFixed selects an active set of d points from the rows of x with targets y and returns the
// trained model. It is NewSelector, Select and Model in one call.
func FitFixed(x *mat.Dense, y []float64, k kern.Kernel, nm noise.Model, d int, opt Options) (*Model, error) {
	s, err := NewSelector(x, y, k, nm, opt)
	if err != nil {
		return nil, err
	}
	if err := s.Select(d); err != nil {
		return nil, err
	}
	return s.Model()
}
