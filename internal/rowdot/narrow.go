package rowdot

import (
	"runtime"
	"sync"
)

// narrowProduct sets C to alpha·A·B + beta·C for A m×k and B k×n, neither transposed, with
// n below minPacked, as gonum's Dgemm does and with its bits: each element of C, scaled by
// beta, gains alpha·a_il·b_lj for l in order, the terms of A's zeros left out. gonum
// updates a row of C, n elements, for each of A's m·k values, which for a few columns (a
// model's weights of one class or ten) costs more in calls than in arithmetic; here four
// columns' sums stay in registers while a row of A passes, and the rows are shared among
// the cores.
func narrowProduct(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int,
	beta float64, c []float64, ldc int) {
	rows := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			narrowRow(n, alpha, a[i*lda:i*lda+k], b, ldb, beta, c[i*ldc:i*ldc+n])
		}
	}
	parts := 1
	if m*n*k >= parallelWork {
		parts = min(runtime.GOMAXPROCS(0), m/narrowRows)
	}
	if parts <= 1 {
		rows(0, m)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { rows(p*m/parts, (p+1)*m/parts) })
	}
	wg.Wait()
}

// narrowRows is the fewest rows of C a core takes in narrowProduct.
const narrowRows = 64

// narrowRow sets ci, a row of C, to alpha·ai·B + beta·ci (see narrowProduct). The explicit
// conversions keep each product rounded before its sum, as gonum's assembly rounds it.
func narrowRow(n int, alpha float64, ai, b []float64, ldb int, beta float64, ci []float64) {
	switch beta {
	case 0: // C's old values, NaN included, are not read
		clear(ci)
	case 1:
	default:
		for j := range ci {
			ci[j] *= beta
		}
	}
	j := 0
	for ; j+4 <= n; j += 4 {
		s0, s1, s2, s3 := ci[j], ci[j+1], ci[j+2], ci[j+3]
		for l, v := range ai {
			if t := alpha * v; t != 0 {
				bl := b[l*ldb+j : l*ldb+j+4]
				s0 += float64(t * bl[0])
				s1 += float64(t * bl[1])
				s2 += float64(t * bl[2])
				s3 += float64(t * bl[3])
			}
		}
		ci[j], ci[j+1], ci[j+2], ci[j+3] = s0, s1, s2, s3
	}
	for ; j < n; j++ {
		s := ci[j]
		for l, v := range ai {
			if t := alpha * v; t != 0 {
				s += float64(t * b[l*ldb+j])
			}
		}
		ci[j] = s
	}
}
