package multiclass

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
				if ga, gb := PairOf(j, k); ga != a || gb != b {
					t.Fatalf("PairOf(%d, %d) = (%d, %d), want (%d, %d)", j, k, ga, gb, a, b)
				}
				j++
			}
		}
		if j != PairCount(k) {
			t.Fatalf("%d pairs of %d classes, PairCount says %d", j, k, PairCount(k))
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
	got := NewCoupler(k).Couple(r)
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
	got = NewCoupler(k).Couple(r)
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
	got = NewCoupler(k).Couple(r)
	for _, v := range got {
		if math.IsNaN(v) || v < 0 {
			t.Fatalf("coupled %v from certain pairs", got)
		}
	}
}
