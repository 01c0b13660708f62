package archipelago

import (
	"math"

	"github.com/ivmlab/ivm/internal/safestat"
)

// Autocorrelation returns the sample autocorrelation of v at lags 0..maxLag
// (Fig. 4 plots it for the number of rejections). A constant series has
// autocorrelation 1 at lag 0 and NaN elsewhere.
func Autocorrelation(v []float64, maxLag int) []float64 {
	n := len(v)
	if maxLag >= n {
		maxLag = n - 1
	}
	if maxLag < 0 {
		return nil
	}
	var mean float64
	for _, x := range v {
		mean += x / float64(n)
	}
	var c0 float64
	for _, x := range v {
		c0 += (x - mean) * (x - mean)
	}
	out := make([]float64, maxLag+1)
	out[0] = 1
	for lag := 1; lag <= maxLag; lag++ {
		if c0 == 0 {
			out[lag] = math.NaN()
			continue
		}
		var c float64
		for i := 0; i+lag < n; i++ {
			c += (v[i] - mean) * (v[i+lag] - mean)
		}
		out[lag] = c / c0
	}
	return out
}

// ESS returns the effective sample size n/(1 + 2Σρ_t) of v, summing the
// autocorrelations ρ_t in pairs while the pair sums stay positive (Geyer's
// initial positive sequence estimator).
func ESS(v []float64) float64 {
	n := len(v)
	if n < 4 {
		return float64(n)
	}
	rho := Autocorrelation(v, n/2)
	if math.IsNaN(rho[len(rho)-1]) && len(rho) > 1 {
		return float64(n) // constant series: nothing to correct
	}
	tau := -1.0
	for t := 0; t+1 < len(rho); t += 2 {
		p := rho[t] + rho[t+1]
		if p <= 0 {
			break
		}
		tau += 2 * p
	}
	if tau < 1 {
		tau = 1
	}
	return float64(n) / tau
}

// RejectionTrace returns the number of rejections after each sweep.
func (c *Chain) RejectionTrace() []float64 {
	out := make([]float64, len(c.Trace))
	for i, s := range c.Trace {
		out[i] = float64(s.Rejections)
	}
	return out
}

// SweepsToConverge estimates when the number of rejections reached its
// stationary range: the first sweep at which the trace comes within one
// standard deviation of the mean of its second half. It returns len(trace)
// when the trace never does.
func SweepsToConverge(trace []float64) int {
	n := len(trace)
	if n < 4 {
		return n
	}
	mean, sd := safestat.MeanSD(trace[n/2:], 1)
	for i, v := range trace {
		if math.Abs(v-mean) <= sd {
			return i
		}
	}
	return n
}
