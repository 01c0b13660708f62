package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ivmlab/ivm/internal/safestat"
)

// meanSquaredError returns the mean of (pred − truth)² over the rows whose truth is not NaN,
// formatted as %.6g, and the number of those rows. The values are divided by a power of
// two first (exact), so that targets near ±1e300 give their error, beyond float64's range
// if need be, instead of +Inf.
func meanSquaredError(pred, truth []float64) (string, int) {
	c := safestat.Scale(pred, truth)
	var se float64
	n := 0
	for i, y := range truth {
		if math.IsNaN(y) {
			continue
		}
		e := pred[i]/c - y/c
		se += e * e
		n++
	}
	if n == 0 {
		return "", 0
	}
	return formatScaledSquare(se/float64(n), c), n
}

// squaredCorrelation is the squared correlation coefficient of pred and truth over the rows
// whose truth is not NaN (svm-predict's figure), computed on values divided by a power of
// two, which it does not depend on.
func squaredCorrelation(pred, truth []float64) float64 {
	c := safestat.Scale(pred, truth)
	var n, sp, st, spp, stt, spt float64
	for i, y := range truth {
		if math.IsNaN(y) {
			continue
		}
		p, t := pred[i]/c, y/c
		n++
		sp, st, spp, stt, spt = sp+p, st+t, spp+p*p, stt+t*t, spt+p*t
	}
	num := n*spt - sp*st
	return num * num / ((n*spp - sp*sp) * (n*stt - st*st))
}

// formatScaledSquare formats s·c² as %.6g does, in decimal exponent form when the product
// is beyond float64's range.
func formatScaledSquare(s, c float64) string {
	if v := s * c * c; !math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	e := math.Log10(s) + 2*math.Log10(c)
	whole := math.Floor(e)
	return fmt.Sprintf("%.6ge+%d", math.Pow(10, e-whole), int(whole))
}
