package archipelago

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Gaussian is the base density π(x) = N(x | μ, Σ) from which Algorithm 1 draws
// its proposals. Every proposal of the latent history — labelled, unlabelled
// and rejected — is a draw from π, so given the history the parameters of π see
// the N+P+M locations as an ordinary Gaussian sample (§3.4), and with the
// conjugate normal-inverse-Wishart prior below they are updated by Gibbs
// sampling.
type Gaussian struct {
	Mean    []float64
	chol    *mat.Cholesky // of Σ
	lchol   *mat.TriDense
	logNorm float64 // −½ ln|2πΣ|
	// Prior is the normal-inverse-Wishart prior μ|Σ ~ N(M0, Σ/Kappa0), Σ ~ IW(Nu0, Psi0).
	M0     []float64
	Kappa0 float64
	Nu0    float64
	Psi0   *mat.SymDense
}

// NewGaussian returns π = N(mean, cov).
func NewGaussian(mean []float64, cov *mat.SymDense) (*Gaussian, error) {
	g := &Gaussian{}
	if err := g.set(mean, cov); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Gaussian) set(mean []float64, cov *mat.SymDense) error {
	d := cov.SymmetricDim()
	if len(mean) != d {
		return fmt.Errorf("archipelago: base mean of length %d, covariance %d×%d", len(mean), d, d)
	}
	for _, v := range mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("archipelago: base mean not finite")
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return errors.New("archipelago: base covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	g.Mean = append(g.Mean[:0], mean...)
	g.chol, g.lchol = &ch, &l
	g.logNorm = -0.5 * (ch.LogDet() + float64(d)*math.Log(2*math.Pi))
	return nil
}

// Dim is the input dimension.
func (g *Gaussian) Dim() int { return len(g.Mean) }

// Cov returns Σ.
func (g *Gaussian) Cov() *mat.SymDense {
	var s mat.SymDense
	g.chol.ToSym(&s)
	return &s
}

// LogPDF returns ln π(x).
func (g *Gaussian) LogPDF(x []float64) float64 {
	d := len(g.Mean)
	z := make([]float64, d)
	for i := range z {
		z[i] = x[i] - g.Mean[i]
	}
	// Solve L z' = z by forward substitution.
	var q float64
	for i := 0; i < d; i++ {
		v := z[i]
		for j := 0; j < i; j++ {
			v -= g.lchol.At(i, j) * z[j]
		}
		z[i] = v / g.lchol.At(i, i)
		q += z[i] * z[i]
	}
	return g.logNorm - 0.5*q
}

// Sample writes a draw from π into dst.
func (g *Gaussian) Sample(dst []float64, rng *rand.Rand) {
	d := len(g.Mean)
	z := make([]float64, d)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	for i := 0; i < d; i++ {
		v := g.Mean[i]
		for j := 0; j <= i; j++ {
			v += g.lchol.At(i, j) * z[j]
		}
		dst[i] = v
	}
}

// SetEmpiricalPrior sets a weak normal-inverse-Wishart prior centred on the
// sample moments of x: M0 the sample mean, E[Σ] the sample covariance, with
// Nu0 = D+3 and Kappa0 = 0.01 degrees of belief.
func (g *Gaussian) SetEmpiricalPrior(x *mat.Dense) {
	n, d := x.Dims()
	mean, cov := moments(x)
	g.M0 = mean
	g.Kappa0 = 0.01
	g.Nu0 = float64(d + 3)
	g.Psi0 = mat.NewSymDense(d, nil)
	g.Psi0.ScaleSym(g.Nu0-float64(d)-1, cov)
	_ = n
}

// moments returns the sample mean and (ML) covariance of the rows of x, with a
// floor of 1e-6 of the mean variance on the diagonal so that a degenerate
// sample still gives a usable base density.
func moments(x *mat.Dense) ([]float64, *mat.SymDense) {
	n, d := x.Dims()
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			mean[j] += x.At(i, j) / float64(n)
		}
	}
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < n; i++ {
		for a := 0; a < d; a++ {
			da := x.At(i, a) - mean[a]
			for b := a; b < d; b++ {
				cov.SetSym(a, b, cov.At(a, b)+da*(x.At(i, b)-mean[b])/float64(n))
			}
		}
	}
	var tr float64
	for a := 0; a < d; a++ {
		tr += cov.At(a, a)
	}
	for a := 0; a < d; a++ {
		cov.SetSym(a, a, cov.At(a, a)+1e-6*tr/float64(d)+1e-12)
	}
	return mean, cov
}

// Gibbs draws (μ, Σ) from their normal-inverse-Wishart posterior given the rows
// of x (all N+P+M proposals of the latent history).
func (g *Gaussian) Gibbs(x *mat.Dense, rng *rand.Rand) error {
	if g.Psi0 == nil {
		return errors.New("archipelago: base density has no prior (SetEmpiricalPrior)")
	}
	n, d := x.Dims()
	xbar := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			xbar[j] += x.At(i, j) / float64(n)
		}
	}
	kn := g.Kappa0 + float64(n)
	nun := g.Nu0 + float64(n)
	mn := make([]float64, d)
	for j := range mn {
		mn[j] = (g.Kappa0*g.M0[j] + float64(n)*xbar[j]) / kn
	}
	psi := mat.NewSymDense(d, nil)
	psi.CopySym(g.Psi0)
	for i := 0; i < n; i++ {
		for a := 0; a < d; a++ {
			da := x.At(i, a) - xbar[a]
			for b := a; b < d; b++ {
				psi.SetSym(a, b, psi.At(a, b)+da*(x.At(i, b)-xbar[b]))
			}
		}
	}
	c := g.Kappa0 * float64(n) / kn
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			psi.SetSym(a, b, psi.At(a, b)+c*(xbar[a]-g.M0[a])*(xbar[b]-g.M0[b]))
		}
	}
	sigma, err := sampleInvWishart(nun, psi, rng)
	if err != nil {
		return err
	}
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		return errors.New("archipelago: sampled base covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	mu := make([]float64, d)
	s := 1 / math.Sqrt(kn)
	z := make([]float64, d)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	for i := 0; i < d; i++ {
		v := mn[i]
		for j := 0; j <= i; j++ {
			v += s * l.At(i, j) * z[j]
		}
		mu[i] = v
	}
	return g.set(mu, sigma)
}

// sampleInvWishart draws Σ ~ IW(nu, psi) as the inverse of a Wishart(nu, psi⁻¹)
// draw made by the Bartlett decomposition W = C A Aᵀ Cᵀ, CCᵀ = psi⁻¹, A lower
// triangular with A_ii² ~ χ²(nu − i) and N(0, 1) below the diagonal.
func sampleInvWishart(nu float64, psi *mat.SymDense, rng *rand.Rand) (*mat.SymDense, error) {
	d := psi.SymmetricDim()
	if nu <= float64(d-1) {
		return nil, fmt.Errorf("archipelago: inverse-Wishart degrees of freedom %v "+
			"for dimension %d", nu, d)
	}
	var pc mat.Cholesky
	if !pc.Factorize(psi) {
		return nil, errors.New("archipelago: inverse-Wishart scale not positive definite")
	}
	var pinv mat.SymDense
	if err := pc.InverseTo(&pinv); err != nil {
		return nil, err
	}
	var ic mat.Cholesky
	if !ic.Factorize(&pinv) {
		return nil, errors.New("archipelago: inverse-Wishart scale badly conditioned")
	}
	var c mat.TriDense
	ic.LTo(&c)
	a := mat.NewTriDense(d, mat.Lower, nil)
	for i := 0; i < d; i++ {
		chi := distuv.ChiSquared{K: nu - float64(i), Src: rng}
		a.SetTri(i, i, math.Sqrt(chi.Rand()))
		for j := 0; j < i; j++ {
			a.SetTri(i, j, rng.NormFloat64())
		}
	}
	var ca mat.Dense
	ca.Mul(&c, a)
	// Σ = W⁻¹ = (CA)⁻ᵀ(CA)⁻¹.
	var cainv mat.Dense
	if err := cainv.Inverse(&ca); err != nil {
		return nil, err
	}
	sigma := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			var s float64
			for k := 0; k < d; k++ {
				s += cainv.At(k, i) * cainv.At(k, j)
			}
			sigma.SetSym(i, j, s)
		}
	}
	return sigma, nil
}
