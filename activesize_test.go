package ivm

import (
	"math"
	"slices"
	"testing"
)

func TestDefaultActiveSize(t *testing.T) {
	for _, c := range []struct{ n, problems, want int }{
		{150, 3, 150}, {1000, 1, 1000}, {1000, 3, 253}, {7291, 10, 683}, {60000, 10, 1250},
	} {
		if got := DefaultActiveSize(c.n, c.problems); got != c.want {
			t.Errorf("DefaultActiveSize(%d, %d) = %d, want %d", c.n, c.problems, got, c.want)
		}
	}
}

// The final model of the search grows to 12√n (at most 1 250) or about 10¹⁰ flops of
// selection, never below DefaultActiveSize and never above n; past ten rows per active
// point, the same selection time buys more active points from fewer candidates.
func TestSearchActiveSize(t *testing.T) {
	for _, c := range []struct{ n, problems, want, pool int }{
		{150, 3, 150, 150}, {1000, 3, 1000, 1000}, {3220, 1, 1762, 3220}, {693, 11, 693, 693},
		{7291, 10, 1025, 7291}, {10000, 10, 1200, 10000}, {12500, 26, 1250, 12500},
		{14000, 26, 1298, 12980}, {60000, 10, 2108, 21080},
	} {
		d := SearchActiveSize(c.n, c.problems)
		if pool := SearchCandidates(c.n, d); d != c.want || pool != c.pool {
			t.Errorf("SearchActiveSize(%d, %d) = %d of %d candidates, want %d of %d",
				c.n, c.problems, d, pool, c.want, c.pool)
		}
		if big := max(1250, DefaultActiveSize(c.n, c.problems)); c.n > 10*big {
			if cost, same := float64(d)*float64(d)*float64(SearchCandidates(c.n, d)),
				float64(big)*float64(big)*float64(c.n); math.Abs(cost/same-1) > 0.01 {
				t.Errorf("n = %d: selection cost d²·candidates %.3g, want that of %d of all "+
					"rows, %.3g", c.n, cost, big, same)
			}
		}
	}
}

// The candidate pool is every row when it is no smaller, else a sorted random subset
// that depends on the seed only.
func TestCandidateRows(t *testing.T) {
	if rows := candidateRows(100, 100, 1); rows != nil {
		t.Errorf("pool of all 100 rows: %v, want nil (every row)", rows)
	}
	a, b := candidateRows(1000, 300, 7), candidateRows(1000, 300, 7)
	if len(a) != 300 || !slices.Equal(a, b) || !slices.IsSorted(a) {
		t.Fatalf("pool of 300 of 1000 rows: %d rows, sorted %v, same for one seed %v",
			len(a), slices.IsSorted(a), slices.Equal(a, b))
	}
	if len(slices.Compact(slices.Clone(a))) != 300 || a[0] < 0 || a[299] >= 1000 {
		t.Errorf("pool rows repeat or fall outside [0, 1000): %v…%v", a[0], a[299])
	}
	if slices.Equal(a, candidateRows(1000, 300, 8)) {
		t.Error("two seeds drew the same pool")
	}
}
