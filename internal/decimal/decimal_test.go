package decimal

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// FuzzShort checks the fast path against strconv: wherever it answers, the value
// is strconv's to the bit; and ShortPrefix, on the text followed by another field, against
// Short on the prefix it read.
func FuzzShort(f *testing.F) {
	for _, s := range []string{"0", "-0", "+1.5", "255", "0.003921568627", "5.", ".5", "-.25",
		"9007199254740993", "0.0000000000000000000001", "1e5", "0x1p3", "1_0", "", ".", "-",
		"00012.3400", "4.9406564584124654e-324"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, end, ok := ShortPrefix([]byte(s + ",1")); ok {
			w, whole := Short([]byte(s + ",1")[:end])
			if !whole || math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("%q: prefix %q read as %v, Short %v, %v", s+",1", s[:min(end, len(s))],
					v, w, whole)
			}
		}
		v, ok := Short([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("%q: fast path %v, strconv %v (%v)", s, v, want, err)
		}
	})
}

// TestShortRandom compares the fast path with strconv on random decimals of up
// to 17 digits, where the 2⁵³ bound is crossed.
func TestShortRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for range 200000 {
		var b []byte
		if rng.IntN(3) == 0 {
			b = append(b, "+-"[rng.IntN(2)])
		}
		n := 1 + rng.IntN(17)
		point := rng.IntN(n + 2)
		for i := range n {
			if i == point {
				b = append(b, '.')
			}
			b = append(b, byte('0'+rng.IntN(10)))
		}
		v, ok := Short(b)
		want, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			t.Fatalf("%q: strconv: %v", b, err)
		}
		if ok {
			fast++
			if math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("%q: fast path %v, strconv %v", b, v, want)
			}
		}
	}
	if fast < 100000 {
		t.Fatalf("the fast path took %d of 200 000 decimals", fast)
	}
}
