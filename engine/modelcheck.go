package engine

import (
	"fmt"

	"github.com/ivmlab/ivm/noise"
)

// MaxInputDim is the largest input dimension a model file may declare.
const MaxInputDim = 1<<31 - 1

// CheckSites validates the site precisions (and the factor precisions, nil when they are the
// site precisions) of a model read from a file: for a log-concave noise model every site
// precision is positive, so a negative or zero one means the file was edited or corrupted,
// and would otherwise be hidden by the jitter that factorising then needs.
func CheckSites(nm noise.Model, siteBeta, factorBeta []float64) error {
	if !nm.LogConcave() {
		return nil
	}
	for name, vs := range map[string][]float64{"site precision": siteBeta,
		"factor precision": factorBeta} {
		for i, v := range vs {
			if !(v > 0) {
				return fmt.Errorf(
					"active point %d has %s %g, which the %s noise model (log-concave) "+
						"cannot give: the file was edited or is corrupt",
					i, name, v, nm.Name())
			}
		}
	}
	return nil
}
