package archipelago

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// Cov is the covariance function shared by the K latent functions: a squared
// exponential k(x, x') = σ²·exp(−½ Σ_d c_d (x_d − x'_d)²) from package kern
// (rbf when isotropic, rbfard with ARD), plus a fixed nugget on the diagonal.
//
// The nugget is part of the model (a tiny white-noise term, so that a new point
// close to an old one has a positive conditional variance); it is not a
// fallback. Its default, 1e-6·σ², is far below the scale at which g matters.
//
// The sampled hyperparameters are θ = (ln σ², ln c_1, …, ln c_G) with
// independent Gaussian priors; G is 1 (isotropic) or the input dimension (ARD).
// kern's RBFARD keeps its input scales in (0, 1) and multiplies them by one γ,
// so c_d = γ·α_d is stored with γ = 2·max c_d; the kernel, and the chain rule
// ∂/∂ln c_d = α_d ∂/∂α_d, do not depend on that choice.
type Cov struct {
	ard    bool
	dim    int
	theta  []float64
	nugget float64 // relative to σ²
	// PriorMean and PriorSD are the Gaussian prior on θ.
	PriorMean, PriorSD []float64
	k                  kern.Kernel
	nat                []float64 // natural-parameter gradient buffer
	// fixed marks a covariance built by newFixedCov: any kern.Kernel, an absolute
	// nugget, no hyperparameters to sample (used by the tests).
	fixed bool
}

// newFixedCov wraps any kernel with an absolute nugget; its hyperparameters are
// not sampled.
func newFixedCov(k kern.Kernel, nugget float64) *Cov {
	return &Cov{k: k, nugget: nugget, fixed: true, theta: []float64{0}}
}

// NewCov returns a covariance on dim inputs with variance σ², inverse squared
// length-scales c (one value, or dim values with ard) and the given relative
// nugget (0: 1e-6). The prior on θ is centred on these values with standard
// deviation priorSD (0: 1.5) in every coordinate.
func NewCov(dim int, ard bool, variance float64, c []float64, nugget, priorSD float64) (*Cov,
	error) {
	g := 1
	if ard {
		g = dim
	}
	if dim < 1 {
		return nil, fmt.Errorf("archipelago: input dimension %d", dim)
	}
	if len(c) == 1 && g > 1 {
		c = repeat(c[0], g)
	}
	if len(c) != g {
		return nil, fmt.Errorf("archipelago: %d length-scale values for %d scales", len(c), g)
	}
	if !(variance > 0) || math.IsInf(variance, 0) {
		return nil, fmt.Errorf("archipelago: kernel variance %v", variance)
	}
	if nugget == 0 {
		nugget = 1e-6
	}
	if !(nugget > 0) {
		return nil, fmt.Errorf("archipelago: nugget %v", nugget)
	}
	if priorSD == 0 {
		priorSD = 1.5
	}
	cv := &Cov{ard: ard, dim: dim, nugget: nugget, theta: make([]float64, 1+g)}
	cv.theta[0] = math.Log(variance)
	for i, v := range c {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("archipelago: inverse squared length-scale %v", v)
		}
		cv.theta[1+i] = math.Log(v)
	}
	cv.PriorMean = append([]float64(nil), cv.theta...)
	cv.PriorSD = repeat(priorSD, 1+g)
	var err error
	if ard {
		cv.k, err = kern.NewRBFARD(1, 1, repeat(0.5, g), nil)
	} else {
		cv.k, err = kern.NewRBF(1, 1)
	}
	if err != nil {
		return nil, err
	}
	cv.nat = make([]float64, cv.k.NumParams())
	return cv, cv.SetTheta(cv.theta)
}

func repeat(v float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// Theta returns a copy of θ = (ln σ², ln c_1, …).
func (c *Cov) Theta() []float64 { return append([]float64(nil), c.theta...) }

// Variance returns σ².
func (c *Cov) Variance() float64 { return math.Exp(c.theta[0]) }

// Clone returns an independent copy.
func (c *Cov) Clone() *Cov {
	cc := *c
	if c.fixed {
		return &cc // the kernel is never changed through a fixed covariance
	}
	cc.theta = append([]float64(nil), c.theta...)
	cc.PriorMean = append([]float64(nil), c.PriorMean...)
	cc.PriorSD = append([]float64(nil), c.PriorSD...)
	if c.ard {
		cc.k, _ = kern.NewRBFARD(1, 1, repeat(0.5, len(c.theta)-1), nil)
	} else {
		cc.k, _ = kern.NewRBF(1, 1)
	}
	cc.nat = make([]float64, cc.k.NumParams())
	if err := cc.SetTheta(cc.theta); err != nil {
		panic(err) // θ was valid in c
	}
	return &cc
}

// SetTheta sets θ; it fails (leaving c unchanged) when a value is not finite or
// outside what kern accepts.
func (c *Cov) SetTheta(theta []float64) error {
	if len(theta) != len(c.theta) {
		return fmt.Errorf("archipelago: %d hyperparameters, want %d", len(theta), len(c.theta))
	}
	for _, v := range theta {
		if math.IsNaN(v) || math.Abs(v) > 50 {
			return fmt.Errorf("archipelago: hyperparameter %v out of range", v)
		}
	}
	v := math.Exp(theta[0])
	if c.ard {
		cs := make([]float64, len(theta)-1)
		var mx float64
		for i := range cs {
			cs[i] = math.Exp(theta[1+i])
			mx = math.Max(mx, cs[i])
		}
		gamma := 2 * mx
		p := make([]float64, 2+len(cs))
		p[0], p[1] = gamma, v
		for i := range cs {
			p[2+i] = cs[i] / gamma
		}
		if err := c.k.SetParams(p); err != nil {
			return err
		}
	} else if err := c.k.SetParams([]float64{math.Exp(theta[1]), v}); err != nil {
		return err
	}
	copy(c.theta, theta)
	return nil
}

// nug returns the nugget in absolute terms.
func (c *Cov) nug() float64 {
	if c.fixed {
		return c.nugget
	}
	return math.Exp(c.theta[0]) * c.nugget
}

// diag returns k(x, x) + nugget for the row x (1×D).
func (c *Cov) diag(x *mat.Dense) float64 {
	if c.fixed {
		var d [1]float64
		c.k.Diag(d[:], x)
		return d[0] + c.nugget
	}
	return math.Exp(c.theta[0]) * (1 + c.nugget)
}

// full writes K(X, X) with the nugget into dst (n×n, row-major).
func (c *Cov) full(dst []float64, x *mat.Dense) {
	n, _ := x.Dims()
	d := mat.NewDense(n, n, dst[:n*n])
	c.k.K(d, x, x) // x2 given: no white-noise term from kern
	nug := c.nug()
	for i := 0; i < n; i++ {
		dst[i*n+i] += nug
	}
}

// cross writes K(X, x*) for the rows of xs into dst (n×m).
func (c *Cov) cross(dst []float64, x, xs *mat.Dense) {
	n, _ := x.Dims()
	m, _ := xs.Dims()
	c.k.K(mat.NewDense(n, m, dst[:n*m]), x, xs)
}

// gradTheta adds Σ_ij dK_ij ∂K_ij/∂θ to dst, K including the nugget (which
// scales with σ², so it contributes through ln σ²).
func (c *Cov) gradTheta(dst []float64, x *mat.Dense, dK []float64) {
	n, _ := x.Dims()
	for i := range c.nat {
		c.nat[i] = 0
	}
	c.k.Grad(c.nat, x, x, mat.NewDense(n, n, dK[:n*n]))
	v := math.Exp(c.theta[0])
	var tr float64
	for i := 0; i < n; i++ {
		tr += dK[i*n+i]
	}
	if c.ard {
		// nat = [γ, σ², α_1, …]; ∂/∂ln σ² = σ² ∂/∂σ², ∂/∂ln c_d = α_d
		// ∂/∂α_d.
		dst[0] += v*c.nat[1] + v*c.nugget*tr
		p := make([]float64, c.k.NumParams())
		c.k.Params(p)
		for d := 1; d < len(c.theta); d++ {
			dst[d] += p[1+d] * c.nat[1+d]
		}
		return
	}
	// nat = [γ, σ²].
	dst[0] += v*c.nat[1] + v*c.nugget*tr
	dst[1] += math.Exp(c.theta[1]) * c.nat[0]
}

// logPrior returns ln p(θ) and adds its gradient to grad (if not nil).
func (c *Cov) logPrior(theta, grad []float64) float64 {
	var lp float64
	for i, v := range theta {
		z := (v - c.PriorMean[i]) / c.PriorSD[i]
		lp -= 0.5*z*z + math.Log(c.PriorSD[i])
		if grad != nil {
			grad[i] -= z / c.PriorSD[i]
		}
	}
	return lp - 0.5*float64(len(theta))*math.Log(2*math.Pi)
}
