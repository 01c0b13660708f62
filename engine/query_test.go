package engine_test

import (
	"math"
	"testing"
)

// LatentBound's means are Latent's; its variances bound Latent's from above, tighter as
// more leading active points are used, and are Latent's to the bit with all of them.
func TestLatentBound(t *testing.T) {
	m, x, _, _ := oldAndNew(t, 40)
	n, _ := x.Dims()
	mu, vs := m.Latent(x, nil, nil)
	prev := make([]float64, n)
	for i := range prev {
		prev[i] = math.Inf(1)
	}
	for _, r := range []int{0, 1, 7, 20, 39, 40, 99} {
		bm, bv := make([]float64, n), make([]float64, n)
		m.LatentBound(x, r, bm, bv)
		for i := range n {
			if bm[i] != mu[i] {
				t.Fatalf("r = %d, row %d: mean %v, Latent's %v", r, i, bm[i], mu[i])
			}
			if bv[i] < vs[i]-1e-12 || bv[i] > prev[i]+1e-12 {
				t.Fatalf("r = %d, row %d: bound %v, not in [%v, %v]", r, i, bv[i], vs[i], prev[i])
			}
			if r >= 40 && bv[i] != vs[i] {
				t.Fatalf("r = %d, row %d: bound %v, Latent's variance %v", r, i, bv[i], vs[i])
			}
		}
		prev = bv
	}
}
