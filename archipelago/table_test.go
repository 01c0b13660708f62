package archipelago

import "testing"

// Errors and ordinary perplexities print with three decimals; a perplexity from a
// probability at the 1e−300 floor prints in exponent form, not as a hundred digits.
func TestFmtStat(t *testing.T) {
	for v, want := range map[float64]string{0.0761: "0.076", 2.379: "2.379", 999999: "999999.000", 2.52e109: "2.52e+109"} {
		if got := fmtStat(v); got != want {
			t.Errorf("fmtStat(%g) = %q, want %q", v, got, want)
		}
	}
}
