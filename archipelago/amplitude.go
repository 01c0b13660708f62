package archipelago

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// updateAmplitude makes tries random-walk Metropolis moves on the log kernel
// amplitude ln σ² with the whitened values ν held fixed, and returns how many
// were accepted.
//
// Why: the hyperparameter HMC holds g fixed (Neal 1997), and with a few
// hundred points N(g | 0, K_θ) pins σ² to within a few per cent of
// gᵀK₁⁻¹g/n, so the amplitude can only creep; on the pinwheels it was still
// rising after 600 sweeps (ln σ² from 0 to about 4) and the class regions
// formed early were reshaped while it rose. Holding ν fixed instead moves g
// with σ: the covariance is σ²(K₁ + nugget·I) (the nugget is relative to σ²),
// so its factor is cL and g = cLν with c = σ'/σ. In the coordinates (θ, ν) the
// prior on ν is N(0, I) whatever θ, so the acceptance ratio is the prior ratio
// of θ times the ratio of the point factors of eq. 8 at cg and at g (the
// unlabelled factors raised to the annealing power, as in the function moves).
// Each proposal costs O(nK); an accepted one scales L and g, O(n²).
func (s *state) updateAmplitude(step float64, tries int, rng *rand.Rand) int {
	if s.cov.fixed || s.n == 0 || tries < 1 {
		return 0
	}
	row := make([]float64, s.nc)
	ll := func(c float64) float64 {
		var t float64
		for i := 0; i < s.n; i++ {
			g := s.grow(i)
			for k := range row {
				row[k] = c * g[k]
			}
			v := pointLogLik(s.kind[i], s.lab[i], row, nil)
			if s.kind[i] == kindUnlabelled {
				v *= s.beta
			}
			t += v
		}
		return t
	}
	theta := s.cov.Theta() // only theta[0] moves
	lp0, ll0 := s.cov.logPrior(theta, nil), ll(1)
	scale, acc := 1.0, 0 // c = σ'/σ relative to the state's g and L, which move at the end
	for it := 0; it < tries; it++ {
		cur := theta[0]
		d := step * rng.NormFloat64()
		theta[0] = cur + d
		c := scale * math.Exp(0.5*d)
		lp1, ll1 := s.cov.logPrior(theta, nil), ll(c)
		logA := lp1 + ll1 - lp0 - ll0
		if !math.IsNaN(logA) && (logA >= 0 || rng.Float64() < math.Exp(logA)) {
			lp0, ll0, scale = lp1, ll1, c
			acc++
			continue
		}
		theta[0] = cur
	}
	if acc == 0 {
		return 0
	}
	if err := s.cov.SetTheta(theta); err != nil {
		// SetTheta rejects only non-finite values, which a finite walk from a
		// finite θ cannot reach; keep the state as it was if it ever does.
		return 0
	}
	s.ch.scale(scale)
	floats.Scale(scale, s.g[:s.n*s.nc])
	return acc
}
