package ssmtr

import (
	"math"
	"slices"

	"github.com/ivmlab/ivm/internal/safestat"
)

// NMSE returns the normalised mean squared error of each task, MSE divided by the
// (population) variance of that task's targets, averaged over the tasks whose targets vary,
// and the pooled form Σ_t SSE_t / Σ_t n_t var_t.
func NMSE(pred, truth [][]float64) (mean, pooled float64, used int) {
	var sse, sv float64
	c := safestat.Scale(append(slices.Clone(truth), pred...)...) // the ratios do not depend on it
	for t := range truth {
		n := len(truth[t])
		if n < 2 {
			continue
		}
		m, _ := safestat.MeanSD(truth[t], 1)
		var v, e float64
		for i, y := range truth[t] {
			d, r := (y-m)/c, (pred[t][i]-y)/c
			v += d * d
			e += r * r
		}
		if v == 0 {
			continue
		}
		mean += e / v
		used++
		sse += e
		sv += v
	}
	if used == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return mean / float64(used), sse / sv, used
}
