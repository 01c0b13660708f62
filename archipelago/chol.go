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
// work needs n−j−1+kc entries.
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
	// Rank-one update of the trailing block, now at rows/cols j..n-2.
	for k := 0; k < m; k++ {
		kk := (j+k)*s + j + k
		lkk := c.l[kk]
		r := math.Hypot(lkk, x[k])
		cs, sn := r/lkk, x[k]/lkk
		c.l[kk] = r
		for i := k + 1; i < m; i++ {
			ik := (j+i)*s + j + k
			v := (c.l[ik] + sn*x[i]) / cs
			c.l[ik] = v
			x[i] = cs*x[i] - sn*v
		}
		if nu != nil {
			gc, gs := lkk/r, x[k]/r
			row := nu[(j+k)*kc : (j+k+1)*kc]
			for q := range row {
				a := row[q]
				row[q] = gc*a + gs*w[q]
				w[q] = gc*w[q] - gs*a
			}
		}
	}
}

// scale multiplies L by a (the factor of a²K).
func (c *chol) scale(a float64) {
	for i := 0; i < c.n; i++ {
		floats.Scale(a, c.row(i))
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
