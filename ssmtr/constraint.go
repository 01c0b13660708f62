package ssmtr

import (
	"fmt"
	"math"

	"github.com/ivmlab/ivm/special"
)

// Pair is the pairwise constraint (i, u, v, d) of paper §4: y_u − y_v ≥ D for the task it
// belongs to. In Config.Pairs, U and V are rows of Fit's x (0-based), labelled or not, of
// one task. D is in the targets' units.
type Pair struct {
	U, V int
	D    float64
}

// Quad is the constraint y_U − y_V ≥ y_W − y_Z of paper §4.2, its rows given like Pair's.
type Quad struct {
	U, V, W, Z int
}

// constraint is one probit site Φ(ω), ω = (aᵀf − d)/(s ε), with a the sparse vector
// e_u − e_v (pairs) or e_u − e_v − e_w + e_z (quadruples) and s = ‖a‖. The paper's
// noise model adds independent N(0, ε²) to every latent value involved, so aᵀδ has
// standard deviation ε‖a‖: √2 ε for a pair and 2ε for four distinct points, its
// formulas; when points repeat (v = w) ‖a‖ counts them correctly.
type constraint struct {
	idx  []int
	coef []float64
	d, s float64
}

func (c *constraint) dot(f []float64) float64 {
	var v float64
	for k, i := range c.idx {
		v += c.coef[k] * f[i]
	}
	return v
}

// newConstraint merges repeated indices and checks them against n points.
func newConstraint(idx []int, coef []float64, d float64, n int) (constraint, error) {
	var c constraint
	for k, i := range idx {
		if i < 0 || i >= n {
			return c, fmt.Errorf("index %d outside the task's %d training points", i, n)
		}
		found := false
		for m, j := range c.idx {
			if j == i {
				c.coef[m] += coef[k]
				found = true
			}
		}
		if !found {
			c.idx = append(c.idx, i)
			c.coef = append(c.coef, coef[k])
		}
	}
	// Drop entries that cancel (u = z in a quadruple).
	var ii []int
	var cc []float64
	var s2 float64
	for m, v := range c.coef {
		if v != 0 {
			ii = append(ii, c.idx[m])
			cc = append(cc, v)
			s2 += v * v
		}
	}
	if s2 == 0 {
		return c, fmt.Errorf("constraint involves no latent difference (indices %v)", idx)
	}
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return c, fmt.Errorf("constraint offset %v is not finite", d)
	}
	return constraint{idx: ii, coef: cc, d: d, s: math.Sqrt(s2)}, nil
}

// probitTerms returns, for one constraint at latent f and noise ε: ω, ln Φ(ω), the
// inverse Mills ratio r = N(ω)/Φ(ω), h = −d² lnΦ/dω² = r(r + ω) and h' = dh/dω =
// r − h(ω + 2r) (from r' = −h).
func probitTerms(c *constraint, f []float64, eps float64) (omega, logPhi, r, h, hp float64) {
	omega = (c.dot(f) - c.d) / (c.s * eps)
	logPhi, r, h = special.LogPhiMills(omega)
	hp = r - h*(omega+2*r)
	return
}
