package archipelago

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Generated is the output of Algorithm 1: the accepted data with their labels
// and the number of proposals that were rejected on the way.
type Generated struct {
	X          *mat.Dense
	Labels     []int
	Rejections int
}

// maxProposals bounds the proposals of one generative run, so that a prior
// under which acceptance is vanishingly rare gives an error, not a hang.
const maxProposals = 100000

// Generate draws q labelled data from the prior (Algorithm 1): propose x̃ ~ π,
// draw g_1..g_K at x̃ from the GPs conditional on every value drawn so far,
// split the unit interval at ρ_k = Σ_{j≤k} e^{g_j}/(1+Λ) (eq. 5) and accept
// with label k when r ~ U(0,1) falls in (ρ_{k−1}, ρ_k), else reject. The
// conditioning sets grow with every proposal, accepted or not.
func Generate(base *Gaussian, cov *Cov, nClass, q int, rng *rand.Rand) (*Generated, error) {
	if nClass < 1 || q < 0 {
		return nil, fmt.Errorf("archipelago: generate %d points of %d classes", q, nClass)
	}
	if base.Dim() != cov.dim && !cov.fixed {
		return nil, fmt.Errorf("archipelago: base density on %d inputs, covariance on %d",
			base.Dim(), cov.dim)
	}
	s := newState(base.Dim(), nClass, cov)
	out := &Generated{Labels: make([]int, 0, q)}
	var xs []float64
	for len(out.Labels) < q {
		l, x, err := s.propose(base, rng)
		if err != nil {
			return nil, err
		}
		if l < 0 {
			out.Rejections++
			if out.Rejections > maxProposals {
				return nil, errors.New("archipelago: too many rejections while generating")
			}
			continue
		}
		xs = append(xs, x...)
		out.Labels = append(out.Labels, l)
	}
	if q > 0 {
		out.X = mat.NewDense(q, base.Dim(), xs)
	}
	return out, nil
}

// propose runs one step of Algorithm 1 from the current state: it returns the
// label of the accepted proposal or −1 for a rejection. The proposal and its
// function values join the state (as a point with no likelihood factor) either way.
func (s *state) propose(base *Gaussian, rng *rand.Rand) (int, []float64, error) {
	x := make([]float64, s.dim)
	g := make([]float64, s.nc)
	for try := 0; ; try++ {
		base.Sample(x, rng)
		d, ok := s.conditional(x)
		if ok {
			s.drawConditional(g, d, rng)
			s.appendPoint(x, g, kindFree, -1, d)
			break
		}
		if try > 100 {
			return 0, nil, errors.New("archipelago: no positive conditional variance at proposals")
		}
	}
	sp := softplus(logSumExp(g)) // ln(1+Λ)
	r := rng.Float64()
	var rho float64
	for k, v := range g {
		rho += math.Exp(v - sp)
		if r < rho {
			return k, x, nil
		}
	}
	return -1, x, nil
}

// Fantasy runs the generative process forward from retained sample s until a
// datum of class k is accepted (§3.5, class-conditional predictive fantasies)
// and returns its location. Proposals accepted into other classes and
// rejections join the conditioning set and the process continues.
func (c *Chain) Fantasy(s Sample, k int, rng *rand.Rand) ([]float64, error) {
	if k < 0 || k >= c.Classes {
		return nil, fmt.Errorf("archipelago: class %d outside 0..%d", k, c.Classes-1)
	}
	if s.BaseCov == nil {
		return nil, errors.New("archipelago: sample has no base density (not an Archipelago chain)")
	}
	base, err := NewGaussian(s.BaseMean, s.BaseCov)
	if err != nil {
		return nil, err
	}
	cv := c.cov.Clone()
	if err := cv.SetTheta(s.Theta); err != nil {
		return nil, err
	}
	n, _ := s.X.Dims()
	st := newState(c.Dim, c.Classes, cv)
	st.x = append(st.x, s.X.RawMatrix().Data[:n*c.Dim]...)
	st.g = append(st.g, s.G.RawMatrix().Data[:n*c.Classes]...)
	st.lab = make([]int, n)
	st.kind = make([]kind, n)
	for i := range st.kind {
		st.kind[i] = kindFree
	}
	st.n = n
	if err := st.refactor(); err != nil {
		return nil, err
	}
	for i := 0; i < maxProposals; i++ {
		l, x, err := st.propose(base, rng)
		if err != nil {
			return nil, err
		}
		if l == k {
			return x, nil
		}
	}
	return nil, errors.New("archipelago: no fantasy of the class accepted")
}
