package engine

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/internal/rowdot"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Point removal and the from-scratch recomputation of the factors, used by Refine.
//
// Notation: the active set I in inclusion order, A = K_II + B⁻¹ = L Lᵀ (B the posterior,
// or factor, precisions; see Inclusion), M = L⁻¹K_{I,·}, z = L⁻¹m (m the site means), so
// that Σ = K − MᵀM and μ = Mᵀz.

// Remove takes the active point at position pos of the inclusion order (0 ≤ pos < Size()) out of
// the active set: its site is deleted, the posterior becomes the cavity posterior (the posterior
// given every other site), the point is inactive again with its ln Z, g and ν recomputed at its
// new marginal, every inactive point is rescored and Best is up to date. The later inclusions move
// up one position in Active and Steps; their site parameters are unchanged. It costs O(d·N) time
// (O((d − pos)·N) for the factors).
//
// The reference toolbox writes the removal as ς ← ς + ν s², μ ← μ + g s with the cavity
// ν = 1/(1/β_i − ς_i), g = ν(μ_i − m_i) and s = Σ_{·,i}, the column of the current
// posterior covariance at the point. Here the same update comes out of the downdate of the factors:
// deleting row and column pos of A leaves the rows of L before pos unchanged and turns the trailing
// block into the Cholesky factor of L₂₂L₂₂ᵀ + l lᵀ (l the column pos of L below the
// diagonal), a rank-one update done by Givens rotations; the same rotations, applied to the rows of
// M from pos on (and to z), give the new M (and z) and leave over one row t = ±√ν s and one
// number τ = ∓g/√ν, so that ς ← ς + t², μ ← μ − τ t. Neither the cavity ν nor g
// is formed, so nothing cancels when β_i is large (Gaussian noise) and the update is defined for
// every site precision the factor can hold.
func (s *Selector) Remove(pos int) error {
	d, n := s.size, s.n
	if pos < 0 || pos >= d {
		return fmt.Errorf("ivm: no active point at position %d (active set of %d)", pos, d)
	}
	l := s.lfac
	for q := pos; q < d; q++ {
		if v := l[tri(q)+q]; !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("ivm: factor diagonal %v at position %d; cannot remove", v, q)
		}
	}
	z := s.solveSites()
	i := s.order[pos]

	// Rotations of the trailing block of L with x = L[pos+1:, pos], kept in place in
	// column pos; rotation r zeroes x at row p = pos+1+r.
	nr := d - 1 - pos
	rot := make([]float64, 2*nr)
	for r := 0; r < nr; r++ {
		p := pos + 1 + r
		op := tri(p)
		a, b := l[op+p], l[op+pos]
		h := math.Hypot(a, b)
		c, sn := a/h, b/h
		l[op+p], l[op+pos] = h, 0
		for q := p + 1; q < d; q++ {
			oq := tri(q)
			lq, xq := l[oq+p], l[oq+pos]
			l[oq+p] = c*lq + sn*xq
			l[oq+pos] = c*xq - sn*lq
		}
		zp := z[p]
		z[p] = c*zp + sn*z[pos]
		z[pos] = c*z[pos] - sn*zp
		rot[2*r], rot[2*r+1] = c, sn
	}
	tau := z[pos]

	s.active[i] = false
	x := make([]float64, n) // the row being rotated out, t at the end
	best := s.forRanges(func(lo, hi int) candidate {
		best := candidate{idx: -1}
		for b0 := lo; b0 < hi; b0 += subBlock {
			b1 := min(b0+subBlock, hi)
			xb := x[b0:b1]
			copy(xb, s.m[pos*n+b0:pos*n+b1])
			for r := 0; r < nr; r++ {
				p := pos + 1 + r
				c, sn := rot[2*r], rot[2*r+1]
				src := s.m[p*n+b0 : p*n+b1]
				dst := s.m[(p-1)*n+b0 : (p-1)*n+b1]
				for j, mp := range src {
					xj := xb[j]
					dst[j] = c*mp + sn*xj
					xb[j] = c*xj - sn*mp
				}
			}
			vs, mu := s.varsigma[b0:b1], s.mu[b0:b1]
			for j, t := range xb {
				vs[j] += t * t
				mu[j] -= tau * t
			}
			best = best.merge(s.scoreRange(b0, b1))
		}
		return best
	})

	// Repack L without row and column pos: row q > pos becomes row q − 1 and loses its
	// entry pos (now zero). Destinations never overtake sources.
	for q := pos + 1; q < d; q++ {
		src, dst := tri(q), tri(q-1)
		copy(l[dst:dst+pos], l[src:src+pos])
		copy(l[dst+pos:dst+q], l[src+pos+1:src+q+1])
	}
	s.lfac = l[:tri(d-1)]
	s.m = s.m[:(d-1)*n]
	s.order = append(s.order[:pos], s.order[pos+1:]...)
	s.steps = append(s.steps[:pos], s.steps[pos+1:]...)
	s.size--
	s.setBest(best)
	return s.err
}

// tri is the offset of row q in the packed lower triangle.
func tri(q int) int { return q * (q + 1) / 2 }

// postBeta is the precision of the site at position k as the posterior uses it: the factor
// precision, or for models with exact sites the exact site precision (the factor
// precision ν/(1 − νς) is then the same number computed with cancellation).
func (s *Selector) postBeta(k int) float64 {
	if s.exact != nil {
		return s.steps[k].SiteBeta
	}
	return s.steps[k].FactorBeta
}

// solveSites returns z = L⁻¹m for the site means m of the active set.
func (s *Selector) solveSites() []float64 {
	d := s.size
	z := make([]float64, d)
	for q := 0; q < d; q++ {
		row := s.lfac[tri(q) : tri(q)+q+1]
		v := s.steps[q].SiteM
		for p, lp := range row[:q] {
			v -= lp * z[p]
		}
		z[q] = v / row[q]
	}
	return z
}

// includeSite adds the inactive point i with the given site (mean m, posterior precision
// beta, recorded precision siteBeta) instead of the ADF site at its current marginal: the
// posterior update uses ν = β/(1 + βς) and g = ν(m − μ), the ADF quantities that would
// have produced that site. ν must be positive (the factor L needs 1/√ν).
func (s *Selector) includeSite(i int, m, beta, siteBeta float64) error {
	mu, vs := s.mu[i], s.varsigma[i]
	nu := beta / (1 + beta*vs)
	g := nu * (m - mu)
	if !(nu > 0) || math.IsInf(nu, 0) || math.IsNaN(g) {
		return fmt.Errorf(
			"ivm: site (m = %v, β = %v) cannot be included at point %d (μ = %v, ς = %v): ν = %v",
			m, beta, i, mu, vs, nu)
	}
	s.g[i], s.nu[i] = g, nu
	return s.add(Inclusion{Index: i, Delta: delta(vs, nu), G: g, Nu: nu,
		SiteM: m, SiteBeta: siteBeta, FactorBeta: beta})
}

// solveBlock sets columns [b0, b1) of M to L⁻¹K(I, x_j): the rows' kernel values against the
// active inputs xa (white noise on the active rows' own), solved as rows, k_jᵀU⁻¹ with
// U = Lᵀ, by the blocked solve (several times gonum's triangular solve), then transposed.
// sc holds the buffers, reused by one goroutine's blocks.
func (s *Selector) solveBlock(xa *mat.Dense, upper blas64.Triangular, b0, b1 int,
	white float64, sc *blockScratch) {
	d, n := s.size, s.n
	if cap(sc.kt) < (b1-b0)*d {
		sc.kt = make([]float64, (b1-b0)*d)
	}
	kt := mat.NewDense(b1-b0, d, sc.kt[:(b1-b0)*d])
	s.Kernel.K(kt, s.X.Slice(b0, b1, 0, s.dim), xa)
	for r, idx := range s.order {
		if b0 <= idx && idx < b1 {
			kt.Set(idx-b0, r, kt.At(idx-b0, r)+white)
		}
	}
	sc.solve = rowdot.SolveUpperRight(kt.RawMatrix(), upper, sc.solve)
	raw := kt.RawMatrix()
	for j := range b1 - b0 {
		row := raw.Data[j*raw.Stride : j*raw.Stride+d]
		for r, v := range row {
			s.m[r*n+b0+j] = v
		}
	}
}

// blockScratch is solveBlock's buffers: the block's kernel rows and the solve's scratch.
type blockScratch struct{ kt, solve []float64 }

// recomputeBlock is the number of columns of M computed together by recompute.
const recomputeBlock = 256

// recompute rebuilds the state from the sites alone, in the current inclusion order: L =
// chol(K_II + B⁻¹), M = L⁻¹K_{I,·} from kernel blocks (K is never formed), ς = diag K −
// column sums of M², μ = MᵀL⁻¹m, and rescores every inactive point. It costs O(d²N) time
// and removes the rounding drift of many rank-one updates. If K_II + B⁻¹ is not
// numerically positive definite it returns an error and changes nothing.
func (s *Selector) recompute() error {
	d := s.size
	xa := s.activeInputs()
	var upper blas64.Triangular
	if d > 0 {
		kd := mat.NewDense(d, d, nil)
		s.Kernel.K(kd, xa, nil)
		a := mat.NewSymDense(d, nil)
		for p := 0; p < d; p++ {
			for q := p; q < d; q++ {
				a.SetSym(p, q, kd.At(p, q))
			}
			a.SetSym(p, p, kd.At(p, p)+1/s.postBeta(p))
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			return fmt.Errorf(
				"ivm: K_II + B⁻¹ of the %d active points is not numerically positive definite",
				d)
		}
		var ut mat.TriDense
		ch.UTo(&ut)
		upper = ut.RawTriangular()
	}
	return s.recomputeFrom(xa, upper)
}

// activeInputs returns the active rows' inputs in inclusion order (one row of zeros when
// there are none).
func (s *Selector) activeInputs() *mat.Dense {
	xa := mat.NewDense(max(s.size, 1), s.dim, nil)
	for k, idx := range s.order {
		xa.SetRow(k, s.X.RawRowView(idx))
	}
	if s.size == 0 {
		return xa
	}
	return xa.Slice(0, s.size, 0, s.dim).(*mat.Dense)
}

// recomputeFrom is recompute given the active inputs xa and the upper factor U = Lᵀ of
// K_II + B⁻¹, which it copies into L.
func (s *Selector) recomputeFrom(xa *mat.Dense, upper blas64.Triangular) error {
	d, n := s.size, s.n
	for q := 0; q < d; q++ {
		row := s.lfac[tri(q) : tri(q)+q+1]
		for p := range row {
			row[p] = upper.Data[p*upper.Stride+q]
		}
	}
	z := s.solveSites()
	s.Kernel.Diag(s.varsigma, s.X)
	white := s.Kernel.White()
	s.setBest(s.forRanges(func(lo, hi int) candidate {
		best := candidate{idx: -1}
		var sc blockScratch
		for b0 := lo; b0 < hi; b0 += recomputeBlock {
			b1 := min(b0+recomputeBlock, hi)
			vs, mu := s.varsigma[b0:b1], s.mu[b0:b1]
			for j := range mu {
				mu[j] = 0
			}
			if d > 0 {
				s.solveBlock(xa, upper, b0, b1, white, &sc)
				for r := 0; r < d; r++ {
					row, zr := s.m[r*n+b0:r*n+b1], z[r]
					for j, v := range row {
						vs[j] -= v * v
						mu[j] += v * zr
					}
				}
			}
			for j, v := range vs {
				if v < 0 {
					vs[j] = 0
				}
			}
			best = best.merge(s.scoreRange(b0, b1))
		}
		return best
	}))
	return s.err
}
