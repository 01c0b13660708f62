package multitask

import (
	"fmt"

	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/param"
)

// NewZeroMeanGaussian returns a Gaussian noise model of the given variance whose bias stays
// zero: for tasks drawn from a zero-mean GP, p(y | θ) = N(0, K_θ), where an offset is the
// kernel's bias term to learn. The Gaussian model's start-up bias (the mean of the targets)
// would take that offset away from the kernel and leave its bias variance undetermined.
// The noise step (LearnOptions.NoiseIters) learns its variance alone. Model files cannot
// hold it.
func NewZeroMeanGaussian(variance float64) noise.Model {
	return &zeroMeanGaussian{noise.NewGaussian(variance)}
}

// zeroMeanGaussian is the model NewZeroMeanGaussian returns.
type zeroMeanGaussian struct{ *noise.Gaussian }

// Init checks the targets as the Gaussian model does and sets the bias to zero.
func (g *zeroMeanGaussian) Init(y []float64) error {
	if err := g.Gaussian.Init(y); err != nil {
		return err
	}
	g.Bias = 0
	return nil
}

// NumParams implements noise.Model: the variance.
func (g *zeroMeanGaussian) NumParams() int { return 1 }

// ParamNames implements noise.Model.
func (g *zeroMeanGaussian) ParamNames() []string { return []string{"variance"} }

// ParamKinds implements noise.Model.
func (g *zeroMeanGaussian) ParamKinds() []param.Kind { return []param.Kind{param.Positive} }

// Params implements noise.Model.
func (g *zeroMeanGaussian) Params(dst []float64) {
	var both [2]float64
	g.Gaussian.Params(both[:])
	dst[0] = both[1]
}

// SetParams implements noise.Model.
func (g *zeroMeanGaussian) SetParams(src []float64) error {
	if len(src) != 1 {
		return fmt.Errorf("multitask: the zero-mean Gaussian has 1 parameter, got %d", len(src))
	}
	return g.Gaussian.SetParams([]float64{0, src[0]})
}

// GradParams implements noise.Model.
func (g *zeroMeanGaussian) GradParams(dst []float64, n int, y, mu, varsigma float64) {
	var both [2]float64
	g.Gaussian.GradParams(both[:], n, y, mu, varsigma)
	dst[0] += both[1]
}
