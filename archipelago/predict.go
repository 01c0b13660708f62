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
	rng := rand.New(rand.NewPCG(seed, 0x9e37))
	return predictMixture(c.cov, c.Classes, c.Dim, c.Samples, xs, 0, func(int) *rand.Rand {
		return rng
	})
}

// predictMixture averages the softmax of eq. 1 over the samples and over draws
// of g(x*) from each sample's GP conditional; rng(i) is the source of row i's
// draws, taken in the order sample, draw, class; chunk is latent's.
func predictMixture(cov *Cov, classes, dim int, samples []Sample, xs *mat.Dense, chunk int,
	rng func(i int) *rand.Rand) ([][]float64, error) {
	if len(samples) == 0 {
		return nil, errors.New("archipelago: chain has no retained samples")
	}
	m, d := xs.Dims()
	if d != dim {
		return nil, fmt.Errorf("archipelago: test inputs have %d columns, model %d", d, dim)
	}
	probs := make([][]float64, m)
	for i := range probs {
		probs[i] = make([]float64, classes)
	}
	mu := make([]float64, m*classes)
	sd := make([]float64, m)
	g := make([]float64, classes)
	for _, s := range samples {
		if err := latent(cov, classes, dim, s, xs, mu, sd, chunk); err != nil {
			return nil, err
		}
		for i := 0; i < m; i++ {
			r := rng(i)
			for range draws {
				for k := range g {
					g[k] = mu[i*classes+k] + sd[i]*r.NormFloat64()
				}
				lse := logSumExp(g)
				for k := range g {
					probs[i][k] += math.Exp(g[k] - lse)
				}
			}
		}
	}
	w := 1 / float64(len(samples)*draws)
	for i := range probs {
		for k := range probs[i] {
			probs[i][k] *= w
		}
	}
	return probs, nil
}

// latent writes the GP conditional means (m×K) and standard deviations (m, the
// same for every function since the covariance is shared) at xs given sample s,
// factorising the sample's covariance once and taking the rows of xs chunk at a
// time (chunk ≤ 0: all at once), so that the cross-covariances held stay n×chunk.
func latent(cov *Cov, classes, dim int, s Sample, xs *mat.Dense, mu, sd []float64,
	chunk int) error {
	cv := cov.Clone()
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
	// ν = L⁻¹G.
	nu := mat.DenseCopyOf(s.G)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), nu.RawMatrix())
	if chunk <= 0 || chunk > m {
		chunk = m
	}
	for a := 0; a < m; a += chunk {
		b := min(a+chunk, m)
		xb := xs
		if a > 0 || b < m {
			xb = mat.DenseCopyOf(xs.Slice(a, b, 0, dim))
		}
		latentRows(cv, &l, nu, s.X, xb, mu[a*classes:b*classes], sd[a:b])
	}
	return nil
}

// latentRows writes the conditional means and standard deviations at the rows of xs
// given the factor l of the covariance at x and ν = L⁻¹G.
func latentRows(cv *Cov, l *mat.TriDense, nu, x, xs *mat.Dense, mu, sd []float64) {
	n, classes := nu.Dims()
	m, dim := xs.Dims()
	ks := make([]float64, n*m)
	cv.cross(ks, x, xs)
	// V = L⁻¹K*, one blocked triangular solve for all test points.
	v := blas64.General{Rows: n, Cols: m, Stride: m, Data: ks}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l.RawTriangular(), v)
	// mean = Vᵀν.
	mean := mat.NewDense(m, classes, mu[:m*classes])
	mean.Mul(mat.NewDense(n, m, ks).T(), nu)
	row := mat.NewDense(1, dim, nil)
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
}

// Evaluate returns the test error rate (the predicted class is the most
// probable one) and the perplexity exp(−mean ln p(true class)) of predictions
// probs against labels (0..K−1). A zero probability of the true class is
// floored at 1e-300 so the perplexity stays finite and reports the failure as
// a huge number.
func Evaluate(probs [][]float64, labels []int) (errRate, perplexity float64, err error) {
	if len(probs) != len(labels) || len(labels) == 0 {
		return 0, 0, fmt.Errorf("archipelago: %d predictions for %d labels",
			len(probs), len(labels))
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
