package ivm

import (
	"math"
	"testing"
)

// The pairs come in libsvm's order: (0,1), (0,2), …, (0,k−1), (1,2), …, (k−2,k−1).
func TestPairOrder(t *testing.T) {
	for k := 2; k <= 7; k++ {
		j := 0
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				if ga, gb := pairOf(j, k); ga != a || gb != b {
					t.Fatalf("pairOf(%d, %d) = (%d, %d), want (%d, %d)", j, k, ga, gb, a, b)
				}
				j++
			}
		}
		if j != pairCount(k) {
			t.Fatalf("%d pairs of %d classes, pairCount says %d", j, k, pairCount(k))
		}
	}
}

// Pairwise probabilities that are consistent, r_ij = p_i / (p_i + p_j), are coupled back
// into p exactly (Wu, Lin and Weng's method 2 has p as its unique optimum then); the
// coupled probabilities of inconsistent ones are a distribution that ranks a class that
// wins all its pairs first.
func TestCouple(t *testing.T) {
	p := []float64{0.5, 0.3, 0.15, 0.05}
	k := len(p)
	r := make([]float64, k*k)
	for i := range k {
		for j := range k {
			if i != j {
				r[i*k+j] = p[i] / (p[i] + p[j])
			}
		}
	}
	got := newCoupler(k).couple(r)
	for i := range p {
		if math.Abs(got[i]-p[i]) > 1e-12 {
			t.Fatalf("coupled %v, want %v", got, p)
		}
	}
	// Class 2 beats every other class with probability 0.9; the others are even.
	for i := range k {
		for j := range k {
			switch {
			case i == j:
			case i == 2:
				r[i*k+j] = 0.9
			case j == 2:
				r[i*k+j] = 0.1
			default:
				r[i*k+j] = 0.5
			}
		}
	}
	got = newCoupler(k).couple(r)
	sum := 0.0
	for i, v := range got {
		sum += v
		if !(v > 0) || (i != 2 && v >= got[2]) {
			t.Fatalf("coupled %v: want positive probabilities, class 2 first", got)
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Fatalf("coupled %v sums to %v", got, sum)
	}
	// Certain pairs (0 and 1) are clipped, not a singular system.
	for i := range r {
		r[i] = math.Round(r[i])
	}
	got = newCoupler(k).couple(r)
	for _, v := range got {
		if math.IsNaN(v) || v < 0 {
			t.Fatalf("coupled %v from certain pairs", got)
		}
	}
}

func TestDecompositionRule(t *testing.T) {
	for _, c := range []struct {
		dc     Decomposition
		n, k   int
		search bool
		want   Decomposition
	}{
		{DecomposeAuto, 700, 11, true, OneVsOne},
		{DecomposeAuto, ovoMaxRows, 3, true, OneVsOne},
		{DecomposeAuto, ovoMaxRows + 1, 10, true, Projected},
		{DecomposeAuto, ovoMaxRows + 1, 2, true, Projected},
		{DecomposeAuto, ovoMaxRows, 2, true, OneVsRest},
		{DecomposeAuto, 700, 11, false, OneVsRest}, // Algorithm 2, the papers' protocols
		{OneVsOne, 70000, 10, false, OneVsOne},
		{OneVsRest, 100, 3, true, OneVsRest},
	} {
		if got := c.dc.resolve(c.n, c.k, c.search); got != c.want {
			t.Errorf("%v.resolve(%d rows, %d classes, search %v) = %v, want %v", c.dc, c.n, c.k, c.search, got, c.want)
		}
	}
	part := Config{Part: Part{Index: 1, Count: 3}}
	if got := part.decomposition(ovoMaxRows+1, 10, true); got != OneVsRest {
		t.Errorf("a partitioned training above %d rows: %v, want ovr", ovoMaxRows, got)
	}
	if got := part.decomposition(ovoMaxRows, 10, true); got != OneVsOne {
		t.Errorf("a partitioned training of %d rows: %v, want ovo", ovoMaxRows, got)
	}
	probit := Config{Task: Binary}
	if got := probit.decomposition(ovoMaxRows+1, 2, true); got != OneVsRest {
		t.Errorf("-noise probit above %d rows: %v, want the probit IVM (ovr)", ovoMaxRows, got)
	}
	part.Decomposition = Projected
	if got := part.decomposition(100, 10, true); got != Projected {
		t.Errorf("a partitioned training asking for the projected model: %v (Fit refuses it)", got)
	}
	for _, s := range []string{"auto", "ovr", "ovo", "projected"} {
		if dc, err := ParseDecomposition(s); err != nil || dc.String() != s {
			t.Errorf("ParseDecomposition(%q) = %v, %v", s, dc, err)
		}
	}
	if _, err := ParseDecomposition("ova"); err == nil {
		t.Error("ParseDecomposition(ova) accepted")
	}
}
