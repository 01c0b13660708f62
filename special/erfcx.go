package special

import "math"

// Constants of the standard normal distribution, to full double precision.
const (
	invSqrt2    = 0.70710678118654752440084436210484903928483593768847 // 1/√2
	invSqrt2Pi  = 0.39894228040143267793994605993438186847585863116493 // 1/√(2π)
	sqrt2OverPi = 0.79788456080286535587989211986876373695171726232986 // √(2/π)
	invSqrtPi   = 0.56418958354775628694807945156077258584405062932900 // 1/√π
	ln2         = 0.69314718055994530941723212145817656807550013436026 // ln 2
	lnSqrtPi    = 0.57236494292470008707171367567652935582364740645766 // ln √π
	lnSqrt2Pi   = 0.91893853320467274178032973640561763986139747363778 // ln √(2π)
)

// asymX is where Erfcx switches from e^{x²}·erfc(x) to its asymptotic series. At x ≥ 16
// the series below, truncated after 11 terms, is exact to double precision (the first
// omitted term is below 2e−17 relative), and erfc(x) has not yet come near underflow
// (erfc(16) ≈ 5e−113).
const asymX = 16

// Erfcx returns the scaled complementary error function e^{x²}·erfc(x).
//
// It is accurate to a few units in the last place for all x. For 0 ≤ x < 16 it is a
// degree-6 polynomial on one of 80 pieces in the variable 4/(4 + x) (erfcx_table.go,
// fitted to 40-digit values by testdata/gen_erfcx_table.py); for x ≥ 16 it is the
// asymptotic series (√π x)⁻¹ Σₙ (−1)ⁿ (2n−1)!! / (2x²)ⁿ; for x < 0 it is
// e^{x²}·erfc(x) = 2e^{x²} − erfcx(−x), with x² split exactly into a double and its
// rounding error (math.FMA) so that the exponential adds no error of size x²·eps, and it
// overflows to +Inf exactly when that value exceeds the largest double (x < −26.628…).
// Erfcx(+Inf) = 0, Erfcx(−Inf) = +Inf and Erfcx(NaN) = NaN.
func Erfcx(x float64) float64 {
	switch {
	case x >= asymX:
		return asymS(x) * invSqrtPi / x
	case x >= 0:
		return erfcxMid(x)
	}
	return expSquare(x) * math.Erfc(x) // NaN propagates
}

//go:generate python3 testdata/gen_erfcx_table.py

// erfcxMid returns erfcx(x) for 0 ≤ x < asymX from the piecewise polynomials of
// erfcxTable: piece k covers 100·4/(4+x) ∈ [k, k+1).
func erfcxMid(x float64) float64 {
	y := 400 / (4 + x) // in (20, 100]
	k := int(y)
	if k > 99 { // x = 0 lies on the closed end of the last piece
		k = 99
	}
	t := y - float64(k) - 0.5
	c := &erfcxTable[k-20]
	return c[0] + t*(c[1]+t*(c[2]+t*(c[3]+t*(c[4]+t*(c[5]+t*c[6])))))
}

// asymS returns S = √π·x·erfcx(x) = 1 − t·P(t) with t = 1/(2x²), for x ≥ asymX.
func asymS(x float64) float64 {
	t := 0.5 / (x * x)
	return 1 - t*asymP(t)
}

// asymP returns P(t) = Σₙ (−1)ⁿ (2n+1)!! tⁿ, truncated after 11 terms (t ≤ 1/512), in
// the nested form 1 − 3t(1 − 5t(1 − 7t(…))). With S = 1 − tP the series gives both
// erfcx(x) = S/(√π x) and the probit curvature r(r+u) = P/S² without cancellation.
func asymP(t float64) float64 {
	p := 1 - 23*t
	p = 1 - 21*t*p
	p = 1 - 19*t*p
	p = 1 - 17*t*p
	p = 1 - 15*t*p
	p = 1 - 13*t*p
	p = 1 - 11*t*p
	p = 1 - 9*t*p
	p = 1 - 7*t*p
	p = 1 - 5*t*p
	return 1 - 3*t*p
}

// expSquare returns e^{x²}. The square is split exactly, x² = hi + lo, so the result
// carries only the exponential's own rounding error, not x²·eps.
func expSquare(x float64) float64 {
	hi := x * x
	if hi > 710 { // e^{x²} > MaxFloat64; also avoids Inf·0 below.
		return math.Inf(1)
	}
	lo := math.FMA(x, x, -hi)
	return math.Exp(hi) * (1 + lo)
}

// expNegHalfSquare returns e^{−x²/2} with x² split exactly as in expSquare.
func expNegHalfSquare(x float64) float64 {
	hi := x * x
	if hi > 1500 { // below the smallest subnormal; also catches x = ±Inf.
		return 0
	}
	lo := math.FMA(x, x, -hi)
	return math.Exp(-0.5*hi) * (1 - 0.5*lo)
}
