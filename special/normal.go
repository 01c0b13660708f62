// Package special provides the standard normal functions the IVM's noise models need,
// accurate in the far tails: Φ, ln Φ, the inverse Mills ratio N(u)/Φ(u) (the probit
// ratio of IVM paper eq. 20) and its derivative, ln(Φ(a) − Φ(b)) with the two ratios of
// the ordered categorical model (IVM paper eqs. 24–25), the quantile Φ⁻¹ and the scaled
// complementary error function erfcx(x) = e^{x²} erfc(x) they are all built on.
//
// The papers warn (footnotes to eqs. 20 and 25) that N(u) and Φ(u) both underflow when
// |u| is large; every function here works through erfcx or in the log domain instead,
// following the reference toolbox: for u ≤ 0, N(u)/Φ(u) = 2/(√(2π)·erfcx(−u/√2)) and
// ln Φ(u) = −u²/2 + ln ½ + ln erfcx(−u/√2).
//
// Accuracy: LogPhi, InvMills, Phi and Erfcx agree with 50-digit mpmath values
// (testdata/golden.csv, written by testdata/gen_golden.py) to better than 1e−14 relative
// wherever the true value is a normal double; results that are subnormal (Φ(u) or
// N(u)/Φ(u) for u beyond about ±37.5) are as accurate as subnormals allow. No function
// allocates, and NaN in gives NaN out.
package special

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// LogNormPDF returns ln N(u) = −u²/2 − ln √(2π), the log density of the standard normal.
func LogNormPDF(u float64) float64 {
	return -0.5*u*u - lnSqrt2Pi
}

// NormPDF returns the standard normal density N(u) = e^{−u²/2}/√(2π).
func NormPDF(u float64) float64 {
	return invSqrt2Pi * expNegHalfSquare(u)
}

// Phi returns the standard normal distribution function Φ(u), with full relative accuracy in the
// lower tail (Φ(u) for u ≤ 0 is ½·erfcx(−u/√2)·e^{−u²/2}). For u > 0 it is 1 −
// Φ(−u); use Phi(−u) for the upper-tail probability.
func Phi(u float64) float64 {
	if u > 0 {
		return 1 - lowerPhi(-u)
	}
	return lowerPhi(u)
}

// lowerPhi returns Φ(u) for u ≤ 0 (and NaN for NaN).
func lowerPhi(u float64) float64 {
	return 0.5 * Erfcx(-u*invSqrt2) * expNegHalfSquare(u)
}

// LogPhi returns ln Φ(u). For u ≤ 0 it is −u²/2 + ln ½ + ln erfcx(−u/√2), a sum of
// non-positive terms; for u > 0 it is log1p(−Φ(−u)). LogPhi(−Inf) = −Inf, LogPhi(+Inf) =
// 0, and LogPhi(u) = −Inf when −u²/2 overflows (u < −1.9e154), as the true value does.
func LogPhi(u float64) float64 {
	if u > 0 {
		return math.Log1p(-lowerPhi(-u))
	}
	x := -u * invSqrt2
	if x >= asymX {
		return -0.5*u*u - ln2 - lnSqrtPi - math.Log(x) + math.Log1p(-asymT(x))
	}
	return -0.5*u*u - ln2 + math.Log(Erfcx(x)) // NaN propagates
}

// asymT returns 1 − √π·x·erfcx(x) = t·P(t), t = 1/(2x²), for x ≥ asymX.
func asymT(x float64) float64 {
	t := 0.5 / (x * x)
	return t * asymP(t)
}

// InvMills returns the inverse Mills ratio r(u) = N(u)/Φ(u), the probit ratio of IVM paper eq. 20.
// For u ≤ 0 it is √(2/π)/erfcx(−u/√2), so r(u) ≈ −u for u → −∞ without overflow
// or cancellation; InvMills(−Inf) = +Inf and InvMills(+Inf) = 0.
func InvMills(u float64) float64 {
	if u > 0 {
		e := expNegHalfSquare(u)
		q := 0.5 * Erfcx(u*invSqrt2) * e // Φ(−u)
		return invSqrt2Pi * e / (1 - q)
	}
	x := -u * invSqrt2
	if !(x >= 0) {
		return x // NaN
	}
	if x < asymX {
		return sqrt2OverPi / erfcxMid(x)
	}
	return -u / asymS(x)
}

// LogPhiMills returns, with one evaluation of erfcx, lnΦ(u), the inverse Mills ratio r =
// N(u)/Φ(u) and d = r(r + u) = −dr/du, which lies in (0, 1) (it is one minus the variance of a
// standard normal truncated to (−∞, u]).
//
// These are the probit quantities of IVM paper eqs. 19–21 for c = 1: ln Z = lnΦ(u), g = c·r and
// ν = c²·d. The product d is computed without the cancellation of r + u for u → −∞ (where
// r ≈ −u): for u ≤ −16√2 it comes from the asymptotic series of erfcx, d = P/S², so d
// → 1 correctly even where r + u would round to 0. Above that, r + u loses about log10(u²)
// digits: d is accurate to 3e−13 relative (measured), ln Φ and r to 1e−15.
func LogPhiMills(u float64) (logPhi, r, d float64) {
	if u > 0 {
		e := expNegHalfSquare(u)
		q := 0.5 * Erfcx(u*invSqrt2) * e // Φ(−u)
		logPhi = math.Log1p(-q)
		r = invSqrt2Pi * e / (1 - q)
		if r == 0 {
			return logPhi, 0, 0 // also u = +Inf, where r·u would be NaN
		}
		return logPhi, r, r * (r + u)
	}
	x := -u * invSqrt2
	if !(x >= 0) {
		return x, x, x // NaN
	}
	if x < asymX {
		e := erfcxMid(x)
		r = sqrt2OverPi / e
		return -0.5*u*u - ln2 + math.Log(e), r, r * (r + u)
	}
	t := 0.5 / (x * x) // 0 when x² overflows: the limits r = −u, d = 1 are then exact.
	p := asymP(t)
	s := 1 - t*p // √π·x·erfcx(x)
	logPhi = -0.5*u*u - ln2 - lnSqrtPi - math.Log(x) + math.Log1p(-t*p)
	return logPhi, -u / s, p / (s * s)
}

// PhiInv returns the standard normal quantile Φ⁻¹(p) (Wichura's AS 241, via gonum's
// mathext.NormalQuantile, accurate to about 1e−16 relative). PhiInv(0) = −Inf,
// PhiInv(1) = +Inf, and it returns NaN for p outside [0, 1] or NaN.
func PhiInv(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return mathext.NormalQuantile(p)
}
