package toys

// Data from a known Gaussian process and how far a learnt kernel is from it: the synthetic
// tasks of the multi-task regression experiment (internal/reproduce) and of the multi-task
// learner's tests, from one generator.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// MultiTaskInputs draws the inputs of one task of the multi-task regression experiment: n
// inputs, the first half around +1 and the rest around −1 in every dimension, variance
// 0.125 per dimension. The targets are SampleGP's draws at them.
func MultiTaskInputs(n, dim int, rng *rand.Rand) *mat.Dense {
	x := mat.NewDense(n, dim, nil)
	sd := math.Sqrt(0.125)
	for i := 0; i < n; i++ {
		mean := 1.0
		if i >= n/2 {
			mean = -1
		}
		for j := 0; j < dim; j++ {
			x.Set(i, j, mean+sd*rng.NormFloat64())
		}
	}
	return x
}

// KernelKL returns KL(N(0, k0) ‖ N(0, k1)) = ½[tr(K₁⁻¹K₀) − n + ln|K₁| − ln|K₀|]
// for the covariances the two kernels give the rows of x.
func KernelKL(k0, k1 kern.Kernel, x *mat.Dense) (float64, error) {
	n, _ := x.Dims()
	c0, c1 := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	k0.K(c0, x, nil)
	k1.K(c1, x, nil)
	var ch0, ch1 mat.Cholesky
	if !ch0.Factorize(mat.NewSymDense(n, c0.RawMatrix().Data)) ||
		!ch1.Factorize(mat.NewSymDense(n, c1.RawMatrix().Data)) {
		return math.NaN(), errors.New("toys: KernelKL: a covariance is not positive definite")
	}
	var l0, l1 mat.TriDense
	ch0.LTo(&l0)
	ch1.LTo(&l1)
	// tr(K₁⁻¹K₀) = ‖L₁⁻¹L₀‖²_F.
	var w mat.Dense
	if err := w.Solve(&l1, &l0); err != nil {
		return math.NaN(), fmt.Errorf("toys: KernelKL: %w", err)
	}
	tr := 0.0
	for _, v := range w.RawMatrix().Data {
		tr += v * v
	}
	kl := 0.5 * (tr - float64(n) + ch1.LogDet() - ch0.LogDet())
	if math.IsNaN(kl) || math.IsInf(kl, 0) {
		return math.NaN(), errors.New("toys: KernelKL is not finite")
	}
	return kl, nil
}
