package archipelago

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// draws is the number of draws of g(x*) per retained sample used to average
// the softmax (the §3.5 mixture of softmaxes).
const draws = 8

// Predict returns, for each row of xs, the predictive class distribution of
// eq. 6: for every retained sample the functions at x* are drawn from the GP
// conditional on the sample's values (independently per point, which is all a
// marginal prediction needs) and the softmax of eq. 1 is averaged. seed makes
// the draws reproducible.
func (c *Chain) Predict(xs *mat.Dense, seed uint64) ([][]float64, error) {
	if len(c.Samples) == 0 {
		return nil, errors.New("archipelago: chain has no retained samples")
	}
	m, d := xs.Dims()
	if d != c.Dim {
		return nil, fmt.Errorf("archipelago: test inputs have %d columns, model %d", d, c.Dim)
	}
	probs := make([][]float64, m)
	for i := range probs {
		probs[i] = make([]float64, c.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e37))
	mu := make([]float64, m*c.Classes)
	sd := make([]float64, m)
	g := make([]float64, c.Classes)
	for _, s := range c.Samples {
		if err := c.latent(s, xs, mu, sd); err != nil {
			return nil, err
		}
		for i := 0; i < m; i++ {
			for r := 0; r < draws; r++ {
				for k := range g {
					g[k] = mu[i*c.Classes+k] + sd[i]*rng.NormFloat64()
				}
				lse := logSumExp(g)
				for k := range g {
					probs[i][k] += math.Exp(g[k] - lse)
				}
			}
		}
	}
	w := 1 / float64(len(c.Samples)*draws)
	for i := range probs {
		for k := range probs[i] {
			probs[i][k] *= w
		}
	}
	return probs, nil
}

// latent writes the GP conditional means (m×K) and standard deviations (m, the
// same for every function since the covariance is shared) at xs given sample s.
func (c *Chain) latent(s Sample, xs *mat.Dense, mu, sd []float64) error {
	cv := c.cov.Clone()
	if err := cv.SetTheta(s.Theta); err != nil {
		return err
	}
	n, _ := s.X.Dims()
	m, _ := xs.Dims()
	kb := make([]float64, n*n)
	cv.full(kb, s.X)
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, kb)) {
		return errors.New("archipelago: sample covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	ks := make([]float64, n*m)
	cv.cross(ks, s.X, xs)
	// V = L⁻¹K*, one blocked triangular solve for all test points.
	v := blas64.General{Rows: n, Cols: m, Stride: m, Data: ks}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), v)
	// ν = L⁻¹G.
	nu := mat.DenseCopyOf(s.G)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), nu.RawMatrix())
	// mean = Vᵀν.
	mean := mat.NewDense(m, c.Classes, mu[:m*c.Classes])
	mean.Mul(mat.NewDense(n, m, ks).T(), nu)
	row := mat.NewDense(1, c.Dim, nil)
	for j := 0; j < m; j++ {
		var vv float64
		for i := 0; i < n; i++ {
			a := ks[i*m+j]
			vv += a * a
		}
		row.SetRow(0, xs.RawRowView(j))
		va := cv.diag(row) - vv
		if va < 0 {
			va = 0
		}
		sd[j] = math.Sqrt(va)
	}
	return nil
}

// Evaluate returns the test error rate (the predicted class is the most
// probable one) and the perplexity exp(−mean ln p(true class)) of predictions
// probs against labels (0..K−1). A zero probability of the true class is
// floored at 1e-300 so the perplexity stays finite and reports the failure as
// a huge number.
func Evaluate(probs [][]float64, labels []int) (errRate, perplexity float64, err error) {
	if len(probs) != len(labels) || len(labels) == 0 {
		return 0, 0, fmt.Errorf("archipelago: %d predictions for %d labels", len(probs), len(labels))
	}
	var wrong int
	var nll float64
	for i, p := range probs {
		l := labels[i]
		if l < 0 || l >= len(p) {
			return 0, 0, fmt.Errorf("archipelago: test label %d outside 0..%d", l, len(p)-1)
		}
		if Mode(p) != l {
			wrong++
		}
		nll -= math.Log(math.Max(p[l], 1e-300))
	}
	n := float64(len(labels))
	return float64(wrong) / n, math.Exp(nll / n), nil
}

// Mode returns the index of the largest probability (the first on ties).
func Mode(p []float64) int {
	b := 0
	for k, v := range p {
		if v > p[b] {
			b = k
		}
	}
	return b
}

// Entropy returns −Σ p ln p in nats.
func Entropy(p []float64) float64 {
	var h float64
	for _, v := range p {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h
}
