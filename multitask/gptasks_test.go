package multitask

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/toys"
	"github.com/ivmlab/ivm/kern"
)

// The learning tests use tasks drawn from a known GP, as the regression experiment of the
// learning-to-learn paper does (internal/reproduce/mtivm_regression.go, whose kernels these are).
const (
	RegressionTrueKernel     = "rbf(gamma=1,variance=1)+white(variance=0.01)"
	RegressionStartKernel    = "rbf(gamma=10,variance=10)+white(variance=0.1)+bias(variance=10)"
	regressionStartNoiseless = "rbf(gamma=10,variance=10)+bias(variance=10)"
	regressionStartNoise     = 0.1
)

// RegressionConfig sizes the tasks of RegressionTasks: Tasks tasks of PerTask points on 4
// inputs, and Test test inputs.
type RegressionConfig struct{ Tasks, PerTask, Test int }

// RegressionTasks draws the tasks (zero-mean Gaussian noise models) and test inputs.
func RegressionTasks(c RegressionConfig, rng *rand.Rand) ([]Task, *mat.Dense, error) {
	const dim = 4
	truth, err := kern.Parse(RegressionTrueKernel, dim)
	if err != nil {
		return nil, nil, err
	}
	tasks := make([]Task, c.Tasks)
	for m := range tasks {
		x := toys.MultiTaskInputs(c.PerTask, dim, rng)
		y, err := toys.SampleGP(x, truth, rng)
		if err != nil {
			return nil, nil, err
		}
		tasks[m] = Task{Name: fmt.Sprint(m + 1), X: x, Y: y, Noise: NewZeroMeanGaussian(0)}
	}
	return tasks, toys.MultiTaskInputs(c.Test, dim, rng), nil
}

// GaussianKL is toys.KernelKL.
func GaussianKL(k0, k1 kern.Kernel, x *mat.Dense) (float64, error) {
	return toys.KernelKL(k0, k1, x)
}
