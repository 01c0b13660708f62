// Package decimal parses the numbers data and model files hold most: short decimals, fast.
package decimal

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Short parses the common case of a file's number, an optional sign and decimal digits with
// at most one point, whose digits fit in 2⁵³ and whose fraction has at most 22 digits. Then
// digits ÷ 10^fraction is one correctly rounded division, the value strconv.ParseFloat
// returns, without its allocation and generality; anything else reports false and is left
// to it.
func Short(b []byte) (float64, bool) {
	v, end, ok := ShortPrefix(b)
	return v, ok && end == len(b)
}

// ShortPrefix parses the longest prefix of b that Short could accept, and returns the index
// after it: a field of a line parsed where it starts, its end found by the parse itself.
// ok reports whether Short accepts b[:end].
func ShortPrefix(b []byte) (v float64, end int, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	mant, end := digitsAt(b, i, 0)
	digits, frac := end-i, 0
	if end < len(b) && b[end] == '.' {
		point := end
		mant, end = digitsAt(b, point+1, mant)
		frac = end - point - 1
		digits += frac
	}
	// At most 19 digits cannot overflow a uint64; past that, or 2⁵³, strconv decides.
	if digits == 0 || digits > 19 || mant > 1<<53 || frac >= len(pow10) {
		return 0, end, false
	}
	v = float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, end, true
}

// digitsAt appends the decimal digits of b from i to mant (mant·10 + digit each), returning
// it and the index of the first byte that is not a digit; past 19 digits mant is garbage,
// which Short refuses.
func digitsAt(b []byte, i int, mant uint64) (uint64, int) {
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		mant = mant*10 + uint64(c)
	}
	return mant, i
}
