package archipelago

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// chol is a lower-triangular Cholesky factor L (K = L Lᵀ) that can grow by one
// row, lose any row and column, and be refactorised from scratch. The rejection
// moves of §3.1–3.2 change the point set by one point at a time, so each move
// costs O(n²) instead of the O(n³) of a fresh factorisation; gonum's mat.Cholesky
// can extend but not remove a row, hence this type.
//
// L is stored row-major with a stride (capacity) so that extending does not
// copy the factor except when the capacity doubles.
type chol struct {
	n, stride int
	l         []float64 // l[i*stride+j], j ≤ i
}

// at returns L_ij.
func (c *chol) at(i, j int) float64 { return c.l[i*c.stride+j] }

// row returns the first i+1 entries of row i of L.
func (c *chol) row(i int) []float64 { return c.l[i*c.stride : i*c.stride+i+1] }

// grow makes room for at least n rows.
func (c *chol) grow(n int) {
	if n <= c.stride {
		return
	}
	s := 2 * c.stride
	if s < n {
		s = n
	}
	if s < 16 {
		s = 16
	}
	nl := make([]float64, s*s)
	for i := 0; i < c.n; i++ {
		copy(nl[i*s:i*s+i+1], c.l[i*c.stride:i*c.stride+i+1])
	}
	c.l, c.stride = nl, s
}

var errNotPD = errors.New("archipelago: covariance matrix not positive definite")

// factor computes L from the symmetric matrix k (n×n row-major, lower triangle
// read). It returns errNotPD if a pivot is not positive.
func (c *chol) factor(k []float64, n int) error {
	c.n = 0
	c.grow(n)
	c.n = n
	s := c.stride
	for i := 0; i < n; i++ {
		ri := c.l[i*s : i*s+i+1]
		for j := 0; j <= i; j++ {
			v := k[i*n+j] - floats.Dot(ri[:j], c.l[j*s:j*s+j])
			if j == i {
				if !(v > 0) || math.IsInf(v, 0) {
					c.n = 0
					return errNotPD
				}
				ri[i] = math.Sqrt(v)
			} else {
				ri[j] = v / c.l[j*s+j]
			}
		}
	}
	return nil
}

// setFrom copies the lower factor of a gonum Cholesky into c.
func (c *chol) setFrom(ch *mat.Cholesky) {
	n := ch.SymmetricDim()
	var lt mat.TriDense
	ch.LTo(&lt)
	raw := lt.RawTriangular()
	c.n = 0
	c.grow(n)
	c.n = n
	for i := 0; i < n; i++ {
		copy(c.l[i*c.stride:i*c.stride+i+1], raw.Data[i*raw.Stride:i*raw.Stride+i+1])
	}
}

// toGonum sets ch to the factorisation whose lower factor is c.
func (c *chol) toGonum(ch *mat.Cholesky) {
	u := mat.NewTriDense(c.n, mat.Upper, nil)
	raw := u.RawTriangular()
	for i := 0; i < c.n; i++ {
		r := c.l[i*c.stride : i*c.stride+i+1]
		for j, v := range r {
			raw.Data[j*raw.Stride+i] = v
		}
	}
	ch.SetFromU(u)
}

// solveL overwrites b (length n) with L⁻¹b (forward substitution).
func (c *chol) solveL(b []float64) {
	for i := 0; i < c.n; i++ {
		r := c.l[i*c.stride : i*c.stride+i+1]
		b[i] = (b[i] - floats.Dot(r[:i], b[:i])) / r[i]
	}
}

// solveLT overwrites b with L⁻ᵀb (back substitution).
func (c *chol) solveLT(b []float64) {
	for i := c.n - 1; i >= 0; i-- {
		v := b[i] / c.l[i*c.stride+i]
		b[i] = v
		floats.AddScaled(b[:i], -v, c.l[i*c.stride:i*c.stride+i])
	}
}

// mulL writes L v into dst (dst and v distinct, length n).
func (c *chol) mulL(dst, v []float64) {
	for i := 0; i < c.n; i++ {
		dst[i] = floats.Dot(c.l[i*c.stride:i*c.stride+i+1], v[:i+1])
	}
}

// mulLT writes Lᵀ v into dst (dst and v distinct, length n).
func (c *chol) mulLT(dst, v []float64) {
	for i := range dst[:c.n] {
		dst[i] = 0
	}
	for i := 0; i < c.n; i++ {
		floats.AddScaled(dst[:i+1], v[i], c.l[i*c.stride:i*c.stride+i+1])
	}
}

// extend appends a row: v = L⁻¹k (length n) and d = √(k** − vᵀv) > 0, which is
// exactly the factor of the covariance with one more point.
func (c *chol) extend(v []float64, d float64) {
	c.grow(c.n + 1)
	r := c.l[c.n*c.stride : c.n*c.stride+c.n+1]
	copy(r, v[:c.n])
	r[c.n] = d
	c.n++
}

// remove deletes row and column j. Writing L = [L11 0 0; aᵀ δ 0; B b C], the
// factor without j is [L11 0; B C'] with C'C'ᵀ = CCᵀ + bbᵀ: a rank-one update
// of the trailing block, O((n−j)²) by Givens rotations [C b]Q = [C' 0].
//
// nu (n rows of kc columns, row-major; may be nil) holds whitened values
// ν = L⁻¹g. The same rotations carry ν to the new factor: from
// g_trail = Bν_head + bν_j + Cν_trail = Bν_head + C'ν'_trail, ν'_trail is the
// first part of Qᵀ[ν_trail; ν_j]. So g is kept exactly, in O((n−j)·kc) more.
// work needs 4(n−j−1)+kc entries.
func (c *chol) remove(j int, work []float64, nu []float64, kc int) {
	n, s := c.n, c.stride
	m := n - j - 1
	x := work[:m]
	for i := 0; i < m; i++ {
		x[i] = c.l[(j+1+i)*s+j]
	}
	// Shift rows j+1.. up by one and drop column j.
	for i := j + 1; i < n; i++ {
		src := c.l[i*s : i*s+i+1]
		dst := c.l[(i-1)*s : (i-1)*s+i]
		copy(dst[:j], src[:j])
		copy(dst[j:], src[j+1:])
	}
	c.n = n - 1
	var w []float64
	if nu != nil {
		w = work[m : m+kc]
		copy(w, nu[j*kc:(j+1)*kc])
		copy(nu[j*kc:], nu[(j+1)*kc:n*kc])
	}
	// Rank-one update of the trailing block, now at rows/cols j..n-2, row by
	// row so that L is read contiguously: row k first meets rotations 0..k−1
	// (already fixed by the rows above) and then fixes rotation k from its
	// diagonal. Rotation k is (c_k, s_k) = (r/L_kk, x_k/L_kk) with r = hypot.
	// Rows are taken four at a time so that four independent chains of x
	// updates overlap.
	ics, sn, cs := work[m+kc:m+kc+m], work[m+kc+m:m+kc+2*m], work[m+kc+2*m:m+kc+3*m]
	for k := 0; k < m; {
		nb := min(4, m-k)
		// Rotations 0..k−1 on rows k..k+nb−1, interleaved.
		rows := [4][]float64{}
		for b := 0; b < nb; b++ {
			rows[b] = c.l[(j+k+b)*s+j : (j+k+b)*s+j+k+b+1]
		}
		if nb == 4 {
			r0, r1, r2, r3 := rows[0][:k], rows[1][:k], rows[2][:k], rows[3][:k]
			x0, x1, x2, x3 := x[k], x[k+1], x[k+2], x[k+3]
			for q := 0; q < k; q++ {
				ic, sq, cq := ics[q], sn[q], cs[q]
				v0 := (r0[q] + sq*x0) * ic
				v1 := (r1[q] + sq*x1) * ic
				v2 := (r2[q] + sq*x2) * ic
				v3 := (r3[q] + sq*x3) * ic
				x0 = cq*x0 - sq*v0
				x1 = cq*x1 - sq*v1
				x2 = cq*x2 - sq*v2
				x3 = cq*x3 - sq*v3
				r0[q], r1[q], r2[q], r3[q] = v0, v1, v2, v3
			}
			x[k], x[k+1], x[k+2], x[k+3] = x0, x1, x2, x3
		} else {
			for b := 0; b < nb; b++ {
				r, xb := rows[b][:k], x[k+b]
				for q := 0; q < k; q++ {
					v := (r[q] + sn[q]*xb) * ics[q]
					xb = cs[q]*xb - sn[q]*v
					r[q] = v
				}
				x[k+b] = xb
			}
		}
		// The small triangle: fix rotation k+b, apply it to the rows below in the block.
		for b := 0; b < nb; b++ {
			kb := k + b
			lkk := rows[b][kb]
			r := math.Hypot(lkk, x[kb])
			ic, sq := lkk/r, x[kb]/lkk
			rows[b][kb] = r
			ics[kb], sn[kb], cs[kb] = ic, sq, r/lkk
			for b2 := b + 1; b2 < nb; b2++ {
				v := (rows[b2][kb] + sq*x[k+b2]) * ic
				x[k+b2] = cs[kb]*x[k+b2] - sq*v
				rows[b2][kb] = v
			}
			if nu != nil {
				gc, gs := ic, x[kb]/r
				row := nu[(j+kb)*kc : (j+kb+1)*kc]
				for q := range row {
					a := row[q]
					row[q] = gc*a + gs*w[q]
					w[q] = gc*w[q] - gs*a
				}
			}
		}
		k += nb
	}
}

// logDet returns ln|K| = 2 Σ ln L_ii.
func (c *chol) logDet() float64 {
	var s float64
	for i := 0; i < c.n; i++ {
		s += math.Log(c.l[i*c.stride+i])
	}
	return 2 * s
}

// inverse writes K⁻¹ into dst (n×n row-major, full), using L⁻¹ column by column.
func (c *chol) inverse(dst []float64) {
	n := c.n
	col := make([]float64, n)
	for j := 0; j < n; j++ {
		for i := range col {
			col[i] = 0
		}
		col[j] = 1
		c.solveL(col)
		c.solveLT(col)
		for i := 0; i < n; i++ {
			dst[i*n+j] = col[i]
		}
	}
}
