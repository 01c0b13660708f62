package noise

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/special"
)

// Eps is the floor on ν (and the null category model's slope variance σ²): the double
// precision machine epsilon, MATLAB's eps, as the reference toolbox uses it.
const Eps = 2.220446049250313e-16

// floorNu applies the reference's rule to ν: |ν| < Eps is reported as Eps.
func floorNu(nu float64) float64 {
	if math.Abs(nu) < Eps {
		return Eps
	}
	return nu
}

// probs returns p.Prob resized to n, reusing its backing array when it is large enough,
// so that a caller predicting many points with one Prediction allocates once.
func probs(p *Prediction, n int) []float64 {
	if cap(p.Prob) >= n {
		p.Prob = p.Prob[:n]
	} else {
		p.Prob = make([]float64, n)
	}
	return p.Prob
}

// predictBinary fills p for the two-class models: Prob = [Φ(−z), Φ(z)] with
// z = (μ + b)/√(σ² + ς), each computed in its own lower tail so that neither loses
// precision to 1 − Φ; Label = +1 when μ + b ≥ 0 and −1 otherwise; Mean = μ + b; Var = ς.
func predictBinary(p *Prediction, mu, varsigma, bias, sigma2 float64) {
	f := mu + bias
	z := f / math.Sqrt(sigma2+varsigma)
	pr := probs(p, 2)
	pr[0], pr[1] = special.Phi(-z), special.Phi(z)
	p.Label = 1
	if f < 0 {
		p.Label = -1
	}
	if math.IsNaN(f) {
		p.Label = math.NaN()
	}
	p.Mean, p.Var = f, varsigma
}

// binaryClasses are the labels of the two-class models, in the order of Prediction.Prob.
func binaryClasses() []float64 { return []float64{-1, 1} }

// checkLen returns an error when a parameter vector has the wrong length.
func checkLen(model string, got, want int) error {
	if got != want {
		return fmt.Errorf("noise: %s has %d parameters, got %d values", model, want, got)
	}
	return nil
}

// checkFinite returns an error naming a parameter that is NaN or infinite.
func checkFinite(model, name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("noise: %s parameter %s = %v; want a finite value", model, name, v)
	}
	return nil
}

// checkPositive returns an error naming a parameter that is not positive and finite.
func checkPositive(model, name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("noise: %s parameter %s = %v; want a positive finite value",
			model, name, v)
	}
	return nil
}

// checkUnit returns an error naming a parameter outside the open interval (0, 1).
func checkUnit(model, name string, v float64) error {
	if !(v > 0 && v < 1) {
		return fmt.Errorf("noise: %s parameter %s = %v; want a value in (0, 1)", model, name, v)
	}
	return nil
}

// probitBias returns Φ⁻¹(nPos/(nPos+nNeg)), the start-up bias of the binary models.
func probitBias(nPos, nNeg int) float64 {
	return special.PhiInv(float64(nPos) / float64(nPos+nNeg))
}
