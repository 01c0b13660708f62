package special

import "math"

// narrowPhiDiff bounds h·(1 + |m|) (h the half-width, m the midpoint of [b, a]) below which
// LogPhiDiffRatios integrates N over [b, a] by its Taylor series about m. There the next
// term, He₈(m)h⁸/9!, is below 1e−16 relative; above it the erfcx form cancels at most a
// factor of about 100.
const narrowPhiDiff = 0.02

// LogPhiDiff returns ln(Φ(a) − Φ(b)) for a > b; see LogPhiDiffRatios.
func LogPhiDiff(a, b float64) float64 {
	l, _, _ := LogPhiDiffRatios(a, b)
	return l
}

// LogPhiDiffRatios returns, for a > b, logD = ln D with D = Φ(a) − Φ(b), and the ratios ra =
// N(a)/D and rb = N(b)/D (the B₁, B₂ of the ordered categorical model, IVM paper eqs. 24–25),
// accurate to about 1e−14 relative even when a and b lie far in the same tail, where D, N(a) and
// N(b) all underflow.
//
// a may be +Inf and b may be −Inf (one-sided intervals: then ra or rb is 0 and the other ratio is
// an inverse Mills ratio). For a == b it returns (−Inf, +Inf, +Inf); for a < b or a NaN argument
// it returns NaNs.
//
// Method: a narrow interval uses the Taylor series of ∫N about the midpoint m, D = 2h·N(m)·(1 +
// He₂(m)h²/3! + He₄(m)h⁴/5! + He₆(m)h⁶/7!). Otherwise, for b < a ≤ 0, D =
// ½e^{−a²/2}(erfcx(−a/√2) − e^{(a²−b²)/2}·erfcx(−b/√2)), so that ra =
// √(2/π)/(…) and rb = e^{(a²−b²)/2}·ra involve no large exponentials; 0 ≤ b < a is the
// mirror image (D = Φ(−b) − Φ(−a)); b < 0 < a gives D = 1 − Φ(−a) − Φ(b) (ln D by
// log1p) when the tails are small and ½(erf(a/√2) + erf(−b/√2)), a sum of positive terms,
// otherwise.
func LogPhiDiffRatios(a, b float64) (logD, ra, rb float64) {
	switch {
	case !(a >= b): // a < b or NaN
		return math.NaN(), math.NaN(), math.NaN()
	case a == b:
		return math.Inf(-1), math.Inf(1), math.Inf(1)
	case math.IsInf(a, 1):
		if math.IsInf(b, -1) {
			return 0, 0, 0
		}
		l, r, _ := LogPhiMills(-b)
		return l, 0, r
	case math.IsInf(b, -1):
		l, r, _ := LogPhiMills(a)
		return l, r, 0
	}
	h := 0.5*a - 0.5*b
	m := 0.5*a + 0.5*b
	if h*(1+math.Abs(m)) < narrowPhiDiff {
		m2 := m * m
		h2 := h * h
		he2 := m2 - 1
		he4 := (m2-6)*m2 + 3
		he6 := ((m2-15)*m2+45)*m2 - 15
		s := h2 * (he2/6 + h2*(he4/120+h2*he6/5040)) // series minus 1
		w := 2 * h * (1 + s)
		logD = LogNormPDF(m) + math.Log(2*h) + math.Log1p(s)
		return logD, math.Exp(-0.5*h*(2*m+h)) / w, math.Exp(0.5*h*(2*m-h)) / w
	}
	switch {
	case a <= 0:
		return lowerTailDiff(a, b)
	case b >= 0:
		logD, rb, ra = lowerTailDiff(-b, -a)
		return logD, ra, rb
	}
	// b < 0 < a: D = 1 − Φ(−a) − Φ(b). When the two tails are small, D is close to 1 and
	// ln D = log1p(−tails) keeps its relative accuracy; otherwise erf(a/√2) and erf(−b/√2)
	// are both positive and their sum loses nothing.
	var d float64
	if tails := lowerPhi(-a) + lowerPhi(b); tails < 0.5 {
		d, logD = 1-tails, math.Log1p(-tails)
	} else {
		d = 0.5 * (math.Erf(a*invSqrt2) + math.Erf(-b*invSqrt2))
		logD = math.Log(d)
	}
	return logD, NormPDF(a) / d, NormPDF(b) / d
}

// lowerTailDiff is LogPhiDiffRatios for b < a ≤ 0, outside the narrow case.
func lowerTailDiff(a, b float64) (logD, ra, rb float64) {
	e := math.Exp(0.5 * (a - b) * (a + b)) // N(b)/N(a) ≤ 1; 0 if the exponent overflows
	ea := Erfcx(-a * invSqrt2)
	var eb float64
	if e > 0 {
		eb = Erfcx(-b * invSqrt2)
	}
	dd := ea - e*eb // D = ½e^{−a²/2}·dd
	ra = sqrt2OverPi / dd
	return -0.5*a*a - ln2 + math.Log(dd), ra, e * ra
}
