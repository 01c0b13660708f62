package multiclass

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// PairOf returns the classes (a, b), a < b, of pair j of k classes, in the order
// (0,1), (0,2), …, (0,k−1), (1,2), …, (k−2,k−1): libsvm's.
func PairOf(j, k int) (a, b int) {
	for a = 0; j >= k-1-a; a++ {
		j -= k - 1 - a
	}
	return a, a + 1 + j
}

// PairCount is the number of pairs of k classes.
func PairCount(k int) int { return k * (k - 1) / 2 }

// MinPairProb bounds the pairwise probabilities coupling sees to [MinPairProb,
// 1 − MinPairProb], as libsvm does: a pair probability of exactly 0 or 1 would make the
// system singular.
const MinPairProb = 1e-7

// Coupler solves Wu, Lin and Weng's second coupling problem for k classes: the p on the
// simplex minimising Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)², with r_ij = p(i | i or j, x). Its
// optimum solves the (k+1)×(k+1) linear system [Q 1; 1ᵀ 0] [p; b] = [0; 1] with
// Q_ii = Σ_{j≠i} r_ji² and Q_ij = −r_ji r_ij. A Coupler reuses its system from row to row
// and is not safe for concurrent use.
type Coupler struct {
	k   int
	a   *mat.Dense
	rhs *mat.VecDense
	sol *mat.VecDense
}

// NewCoupler returns a Coupler for k classes.
func NewCoupler(k int) *Coupler {
	rhs := mat.NewVecDense(k+1, nil)
	rhs.SetVec(k, 1)
	return &Coupler{k: k, a: mat.NewDense(k+1, k+1, nil), rhs: rhs, sol: mat.NewVecDense(k+1, nil)}
}

// Couple returns the class probabilities for the pairwise ones r (r[i·k+j] = r_ij).
func (c *Coupler) Couple(r []float64) []float64 {
	k := c.k
	at := func(i, j int) float64 { return min(max(r[i*k+j], MinPairProb), 1-MinPairProb) }
	for i := range k {
		qii := 0.0
		for j := range k {
			if j == i {
				continue
			}
			qii += at(j, i) * at(j, i)
			c.a.Set(i, j, -at(j, i)*at(i, j))
		}
		c.a.Set(i, i, qii)
		c.a.Set(i, k, 1)
		c.a.Set(k, i, 1)
	}
	c.a.Set(k, k, 0)
	p := make([]float64, k)
	if err := c.sol.SolveVec(c.a, c.rhs); err != nil {
		// Q is positive definite for pairwise probabilities inside (0, 1) (Wu, Lin and
		// Weng, Theorem 2), so the system is regular; should rounding make it singular,
		// the votes of the pairs are the answer.
		return c.votes(r)
	}
	for i := range p {
		p[i] = math.Max(c.sol.AtVec(i), MinPairProb)
	}
	floats.Scale(1/floats.Sum(p), p)
	return p
}

// votes returns the normalised pairwise votes Σ_j r_ij for a system that cannot be solved.
func (c *Coupler) votes(r []float64) []float64 {
	k := c.k
	p := make([]float64, k)
	for i := range k {
		for j := range k {
			if j != i {
				p[i] += r[i*k+j]
			}
		}
	}
	floats.Scale(1/floats.Sum(p), p)
	return p
}
