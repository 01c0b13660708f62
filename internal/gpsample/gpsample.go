// Package gpsample draws data from a known Gaussian process and measures how far a learnt
// kernel is from it: the synthetic tasks of the multi-task regression experiment
// (reproduce) and of the multi-task learner's tests, from one generator.
package gpsample

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// TwoGaussians draws n inputs, the first half around +1 and the rest around −1 in every
// dimension, variance 0.125 per dimension.
func TwoGaussians(n, dim int, rng *rand.Rand) *mat.Dense {
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

// Sample draws y ~ N(0, K(x, x)).
func Sample(k kern.Kernel, x *mat.Dense, rng *rand.Rand) ([]float64, error) {
	n, _ := x.Dims()
	kd := mat.NewDense(n, n, nil)
	k.K(kd, x, nil)
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(n, kd.RawMatrix().Data)) {
		return nil, errors.New("gpsample: the generating covariance is not positive definite")
	}
	var l mat.TriDense
	chol.LTo(&l)
	z := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		z.SetVec(i, rng.NormFloat64())
	}
	y := mat.NewVecDense(n, nil)
	y.MulVec(&l, z)
	return y.RawVector().Data, nil
}

// KL returns KL(N(0, k0) ‖ N(0, k1)) = ½[tr(K₁⁻¹K₀) − n + ln|K₁| − ln|K₀|] for
// the covariances the two kernels give the rows of x.
func KL(k0, k1 kern.Kernel, x *mat.Dense) (float64, error) {
	n, _ := x.Dims()
	c0, c1 := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	k0.K(c0, x, nil)
	k1.K(c1, x, nil)
	var ch0, ch1 mat.Cholesky
	if !ch0.Factorize(mat.NewSymDense(n, c0.RawMatrix().Data)) ||
		!ch1.Factorize(mat.NewSymDense(n, c1.RawMatrix().Data)) {
		return math.NaN(), errors.New("gpsample: KL: a covariance is not positive definite")
	}
	var l0, l1 mat.TriDense
	ch0.LTo(&l0)
	ch1.LTo(&l1)
	// tr(K₁⁻¹K₀) = ‖L₁⁻¹L₀‖²_F.
	var w mat.Dense
	if err := w.Solve(&l1, &l0); err != nil {
		return math.NaN(), fmt.Errorf("gpsample: KL: %w", err)
	}
	tr := 0.0
	for _, v := range w.RawMatrix().Data {
		tr += v * v
	}
	kl := 0.5 * (tr - float64(n) + ch1.LogDet() - ch0.LogDet())
	if math.IsNaN(kl) || math.IsInf(kl, 0) {
		return math.NaN(), errors.New("gpsample: KL is not finite")
	}
	return kl, nil
}
