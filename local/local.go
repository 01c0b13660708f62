// Package local corrects a regression's predictions by the residuals of the training rows
// nearest each input: a Gaussian process of the residuals seen through each input's
// Neighbours nearest rows only (a nearest-neighbour Gaussian process), beside a global model.
// A global model of a few thousand centres draws what varies slowly; rows near each other in
// time, place or a code often share what it misses, and their residuals say it.
package local

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/pool"
)

// Neighbours is how many training rows predict each input's residual.
const Neighbours = 16

// Model is a nearest-neighbour Gaussian process of a regression's residuals. The residuals
// of weighted rows a and b covary by Signal·exp(−Gamma/2·‖a − b‖²), plus Noise
// where a = b; an input's residual is predicted from its Neighbours nearest training rows'.
type Model struct {
	// Weights multiply each (scaled) input before distances are taken.
	Weights []float64
	// Gamma, Signal and Noise are the residuals' covariance (above).
	Gamma, Signal, Noise float64
	// Scale multiplies the predictive variance: fitted on held-out rows, whose residuals
	// are larger than the training rows' own.
	Scale float64
	// Rows are the training rows, scaled and weighted; Residuals their targets less the
	// global model's predictions.
	Rows      *mat.Dense
	Residuals []float64
	tree      *tree
}

// New returns the model of the weighted training rows and their residuals with the given
// covariance, variance scale 1, its tree built.
func New(weights []float64, rows *mat.Dense, residuals []float64, gamma, signal,
	noise float64) *Model {
	return &Model{Weights: weights, Gamma: gamma, Signal: signal, Noise: noise, Scale: 1,
		Rows: rows, Residuals: residuals, tree: newTree(rows, nil)}
}

// Predict returns, for each row of the scaled inputs xs, the predicted residual (to add to
// the global model's mean) and the predictive variance of the target about the corrected
// mean; rows are spread over workers goroutines (0: every core).
func (m *Model) Predict(xs *mat.Dense, workers int) (mean, variance []float64) {
	n, _ := xs.Dims()
	mean, variance = make([]float64, n), make([]float64, n)
	m.eachRow(xs, workers, func(i int, mu, v float64) {
		mean[i], variance[i] = mu, m.Scale*v
	})
	return mean, variance
}

// SignalVariances returns, for each row of the scaled inputs xs, the variance of its
// residual less the noise's, Scale·(Signal − what its neighbours explain): what labels of
// rows near it could still remove. Active learning reads it; rows are spread over workers
// goroutines (0: every core).
func (m *Model) SignalVariances(xs *mat.Dense, workers int) []float64 {
	n, _ := xs.Dims()
	out := make([]float64, n)
	m.eachRow(xs, workers, func(i int, _, v float64) {
		out[i] = m.Scale * (v - m.Noise)
	})
	return out
}

// NoiseVariance is the variance of a target about its latent as Predict's variance counts
// it, Scale·Noise: the least that variance can be.
func (m *Model) NoiseVariance() float64 { return m.Scale * m.Noise }

// Correlations writes into dst the correlations exp(−Gamma/2·‖a − b‖²) of the residuals'
// signal between the rows a of x and b of y, scaled inputs, weighted as the model weighs
// them.
func (m *Model) Correlations(dst *mat.Dense, x, y *mat.Dense) {
	for i := range dst.RawMatrix().Rows {
		a, row := x.RawRowView(i), dst.RawRowView(i)
		for j := range row {
			var d2 float64
			for c, v := range y.RawRowView(j) {
				e := (a[c] - v) * m.Weights[c]
				d2 += e * e
			}
			row[j] = math.Exp(-0.5 * m.Gamma * d2)
		}
	}
}

// eachRow calls fn with each row of xs's index, predicted residual and variance about it
// (signal and noise, unscaled), rows in blocks over workers goroutines.
func (m *Model) eachRow(xs *mat.Dense, workers int, fn func(i int, mean, variance float64)) {
	n, dim := xs.Dims()
	const block = 256
	k := min(Neighbours, len(m.Residuals))
	pool.ForEach((n+block-1)/block, pool.Workers(workers), func(b int) {
		h, w, q := newHood(k), newWork(k), make([]float64, dim)
		for i := b * block; i < min(n, (b+1)*block); i++ {
			for j, v := range xs.RawRowView(i) {
				q[j] = v * m.Weights[j]
			}
			h.find(m.tree, m.Rows, q, -1)
			mu, v := h.predict(m.params(), m.Residuals, w)
			fn(i, mu, v)
		}
	})
}

// params is the model's covariance.
func (m *Model) params() params {
	return params{gamma: m.Gamma, signal: m.Signal, noise: m.Noise}
}

// params is a covariance of the residuals (Model).
type params struct{ gamma, signal, noise float64 }

// hood is a query's neighbourhood: its nearest rows, their squared distances to it and to
// each other.
type hood struct {
	k    int       // how many were found
	idx  []int     // their rows
	d2   []float64 // their squared distances to the query
	pair []float64 // their squared distances to each other, k × k
}

func newHood(k int) *hood {
	return &hood{idx: make([]int, k), d2: make([]float64, k), pair: make([]float64, k*k)}
}

// find finds the query q's nearest rows of x in t, leaving out row self (−1: none).
func (h *hood) find(t *tree, x *mat.Dense, q []float64, self int) {
	h.k = t.nearest(q, self, h.idx, h.d2)
	h.weightedDistances(x, nil)
}

// weightedDistances sets the neighbours' squared distances to each other, rows of x
// weighted by w (nil: unweighted).
func (h *hood) weightedDistances(x *mat.Dense, w []float64) {
	k := h.k
	for a := range k {
		ra := x.RawRowView(h.idx[a])
		h.pair[a*k+a] = 0
		for c := a + 1; c < k; c++ {
			rc := x.RawRowView(h.idx[c])
			var d float64
			for j, v := range ra {
				e := v - rc[j]
				if w != nil {
					e *= w[j]
				}
				d += e * e
			}
			h.pair[a*k+c], h.pair[c*k+a] = d, d
		}
	}
}

// work is the scratch space of a solve.
type work struct {
	c  []float64 // the neighbours' correlations, k × k
	cq []float64 // their correlations with the query
	kl []float64 // their covariance, then its factor
	b  []float64 // right-hand sides: residuals and covariances with the query, k × 2
}

func newWork(k int) *work {
	return &work{c: make([]float64, k*k), cq: make([]float64, k), kl: make([]float64, k*k),
		b: make([]float64, 2*k)}
}

// predict returns the predicted residual at the query from its neighbours' residuals r
// (indexed by row) under p, and the variance of its residual about that prediction.
func (h *hood) predict(p params, r []float64, w *work) (mean, variance float64) {
	h.correlate(p.gamma, w)
	return h.solve(p.signal, p.noise, r, w)
}

// correlate sets w's correlations exp(−γ/2·d²) of the neighbours and the query.
func (h *hood) correlate(gamma float64, w *work) {
	k := h.k
	for a := range k {
		for c := a; c < k; c++ {
			w.c[a*k+c] = math.Exp(-0.5 * gamma * h.pair[a*k+c])
		}
		w.cq[a] = math.Exp(-0.5 * gamma * h.d2[a])
	}
}

// solve is predict with w's correlations, for the signal and noise variances given. With
// the neighbours' covariance K = LLᵀ and their covariances k with the query, the prediction
// is (L⁻¹k)·(L⁻¹r) and its variance signal + noise − ‖L⁻¹k‖²: forward solves only.
func (h *hood) solve(signal, noise float64, r []float64, w *work) (mean, variance float64) {
	k := h.k
	for a := range k {
		for c := a; c < k; c++ {
			w.kl[a*k+c] = signal * w.c[a*k+c]
		}
		w.kl[a*k+a] += noise
		w.b[2*a], w.b[2*a+1] = r[h.idx[a]], signal*w.cq[a]
	}
	if !cholesky(w.kl, k) {
		// Noise > 0 keeps K positive definite; a failure is round-off at duplicate rows,
		// where the prior is the safe answer.
		return 0, signal + noise
	}
	var q float64
	for i := range k {
		li := w.kl[i*k : i*k+i+1]
		y1, y2 := w.b[2*i], w.b[2*i+1]
		for p, l := range li[:i] {
			y1 -= l * w.b[2*p]
			y2 -= l * w.b[2*p+1]
		}
		y1, y2 = y1/li[i], y2/li[i]
		w.b[2*i], w.b[2*i+1] = y1, y2
		mean += y1 * y2
		q += y2 * y2
	}
	return mean, max(signal+noise-q, noise)
}

// cholesky factorises the k × k matrix a, symmetric positive definite with its upper
// triangle set, as LLᵀ, writing L into a's lower triangle (row i: L_i0 … L_ii); it reports
// whether a was positive definite. For the few rows of a neighbourhood, LAPACK's blocked
// routines spend more on their calls than on the arithmetic.
func cholesky(a []float64, k int) bool {
	for j := range k {
		lj := a[j*k : j*k+j]
		d := a[j*k+j] - floats.Dot(lj, lj)
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*k+j] = d
		for i := j + 1; i < k; i++ {
			a[i*k+j] = (a[j*k+i] - floats.Dot(a[i*k:i*k+j], lj)) / d
		}
	}
	return true
}
