package infer

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MaxJitterTries, like the reference toolbox, bounds the retries of a failed Cholesky
// factorisation in FactorizeJitter.
const MaxJitterTries = 10

// FactorizeJitter factorises the symmetric matrix a into c. Jitter is a recorded fallback,
// never silent: only when a is not numerically positive definite does it retry with
// |mean diag a|·1e−6 added to the diagonal, ×10 per retry, up to MaxJitterTries times, and
// it returns the jitter that made the factorisation succeed (0 when none was needed) for
// the caller to store and report. a's diagonal holds the jitter on return. name says what
// a is in the error when even the largest jitter fails.
func FactorizeJitter(c *mat.Cholesky, a *mat.SymDense, name string) (jitter float64, err error) {
	d := a.SymmetricDim()
	mean := 0.0
	for i := 0; i < d; i++ {
		mean += a.At(i, i)
	}
	mean = math.Abs(mean / float64(d))
	for try := 0; ; try++ {
		if c.Factorize(a) {
			return jitter, nil
		}
		if try == MaxJitterTries {
			return jitter, fmt.Errorf("ivm: %s is not positive definite even with jitter %g",
				name, jitter)
		}
		add := mean * 1e-6 * math.Pow(10, float64(try))
		for i := 0; i < d; i++ {
			a.SetSym(i, i, a.At(i, i)+add-jitter)
		}
		jitter = add
	}
}
