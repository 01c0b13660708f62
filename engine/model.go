package engine

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/infer"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/rowdot"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// Model is a trained IVM: the kernel, the noise model, and the active set's inputs and
// site parameters — everything prediction needs, and nothing of size N.
//
// Predictions use A = K_II + diag(1/β) (β the factor precisions; see Inclusion) factorised
// afresh when the model is made, so a model rebuilt from a file predicts exactly what the
// model that was saved predicted.
type Model struct {
	// Kernel and Noise are the covariance function and the noise model.
	Kernel kern.Kernel
	Noise  noise.Model
	// XActive holds the active inputs (d×D) in inclusion order.
	XActive *mat.Dense
	// Active holds the training rows of the active points, in inclusion order (provenance).
	Active []int
	// SiteM and SiteBeta are the site means and precisions of the active points.
	SiteM, SiteBeta []float64
	// FactorBeta are the precisions the posterior factor uses; equal to SiteBeta except
	// where the NegativeSitePrecision rule replaced a negative precision.
	FactorBeta []float64
	// Jitter is what had to be added to the diagonal of A for its Cholesky factorisation
	// to succeed (0 when none was needed). A nonzero value is reported, never silent.
	Jitter float64
	// Condition is A's condition number when gonum warned that it is too large for the
	// solve to be accurate (the solve still ran; 0 otherwise). A nearly noise-free kernel
	// on separable data gets there; the predictions stay finite and are checked.
	Condition float64

	chol  mat.Cholesky
	upper blas64.Triangular // the factor U (A = UᵀU), shared with chol, not a copy
	alpha []float64         // A⁻¹ m
}

// Model returns the trained model of the current active set.
func (s *Selector) Model() (*Model, error) {
	if s.size == 0 {
		return nil, errors.New("ivm: no active points; select some first")
	}
	d := s.size
	xa := mat.NewDense(d, s.dim, nil)
	siteM := make([]float64, d)
	siteB := make([]float64, d)
	factB := make([]float64, d)
	active := make([]int, d)
	for k, st := range s.steps {
		xa.SetRow(k, s.X.RawRowView(st.Index))
		siteM[k], siteB[k], factB[k] = st.SiteM, st.SiteBeta, st.FactorBeta
		active[k] = st.Index
	}
	if s.exact != nil {
		copy(factB, siteB)
	}
	return NewModel(s.Kernel, s.Noise, xa, active, siteM, siteB, factB)
}

// NewModel makes a model from an active set: inputs xActive (d×D), site means and
// precisions, and the factor precisions (nil: the site precisions). active may be nil.
func NewModel(k kern.Kernel, nm noise.Model, xActive *mat.Dense, active []int, siteM, siteBeta,
	factorBeta []float64) (*Model, error) {
	if k == nil || nm == nil || xActive == nil {
		return nil, errors.New("ivm: NewModel needs a kernel, a noise model and active inputs")
	}
	d, _ := xActive.Dims()
	if factorBeta == nil {
		factorBeta = siteBeta
	}
	if len(siteM) != d || len(siteBeta) != d || len(factorBeta) != d ||
		(active != nil && len(active) != d) {
		return nil,
			fmt.Errorf("ivm: %d active inputs but %d site means, %d site precisions, "+
				"%d factor precisions", d, len(siteM), len(siteBeta), len(factorBeta))
	}
	for i := range siteM {
		if bad(siteM[i]) || bad(siteBeta[i]) || bad(factorBeta[i]) || factorBeta[i] == 0 {
			return nil,
				fmt.Errorf("ivm: active point %d has site mean %v, precision %v, "+
					"factor precision %v", i, siteM[i], siteBeta[i], factorBeta[i])
		}
	}
	m := &Model{Kernel: k, Noise: nm, XActive: xActive, Active: active,
		SiteM: siteM, SiteBeta: siteBeta, FactorBeta: factorBeta}
	if err := m.factorise(); err != nil {
		return nil, err
	}
	return m, nil
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// factorise computes the Cholesky factor of A = K_II + diag(1/β) and α = A⁻¹m. If A is not
// numerically positive definite, infer.FactorizeJitter adds jitter, which m.Jitter records.
func (m *Model) factorise() error {
	d, _ := m.XActive.Dims()
	kd := mat.NewDense(d, d, nil)
	m.Kernel.K(kd, m.XActive, nil)
	a := mat.NewSymDense(d, kd.RawMatrix().Data) // its upper triangle, in place
	for i := 0; i < d; i++ {
		a.SetSym(i, i, kd.At(i, i)+1/m.FactorBeta[i])
	}
	jitter, err := infer.FactorizeJitter(&m.chol, a, "K_II + B⁻¹")
	if err != nil {
		return err
	}
	m.Jitter = jitter
	// Uᵀ is the lower factor the variances need; using chol's own storage instead of a
	// transposed copy saves d² floats per model (2 MB at d = 500, 20 MB for USPS's ten).
	m.upper = m.chol.RawU().(*mat.TriDense).RawTriangular()
	alpha := mat.NewVecDense(d, nil)
	if err := m.chol.SolveVecTo(alpha, mat.NewVecDense(d, m.SiteM)); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return fmt.Errorf("ivm: solving for the active-set weights: %w", err)
		}
		m.Condition = float64(c)
	}
	m.alpha = alpha.RawVector().Data
	for k, v := range m.alpha {
		if bad(v) {
			return fmt.Errorf("ivm: active-set weight %d is %v "+
				"(K_II + B⁻¹ has condition number %g)", k, v, m.Condition)
		}
	}
	return nil
}

// Size returns the number of active points.
func (m *Model) Size() int { return len(m.SiteM) }

// Alpha returns A⁻¹m, the weights of the posterior mean μ(x) = Σ_k α_k k(x, x_k).
func (m *Model) Alpha() []float64 { return m.alpha }

// predictChunk is the number of test rows predicted together (bounds memory at d×chunk): a
// multiple of rowdot's 4×3 blocks, so that the kernel values' product has no edge there.
const predictChunk = 504

// Latent returns the latent posterior mean μ* = k*ᵀA⁻¹m and variance ς* = k(x*, x*) −
// ‖L⁻¹k*‖² (L = Uᵀ, A's lower Cholesky factor) at each row of x. dst slices are reused
// when long enough.
func (m *Model) Latent(x mat.Matrix, muDst, varDst []float64) (mu, varsigma []float64) {
	n, _ := x.Dims()
	mu, varsigma = resize(muDst, n), resize(varDst, n)
	m.Kernel.Diag(varsigma, x)
	m.kernelChunks(x, func(kt *mat.Dense, lo, hi int) {
		m.LatentFromKernel(kt, mu[lo:hi], varsigma[lo:hi])
	})
	return mu, varsigma
}

// LatentMean returns Latent's mean alone, without the variance: d flops per row where the
// variance's triangular solve costs d². dst is reused when long enough.
func (m *Model) LatentMean(x mat.Matrix, dst []float64) []float64 {
	n, _ := x.Dims()
	mu := resize(dst, n)
	m.kernelChunks(x, func(kt *mat.Dense, lo, hi int) { m.LatentMeanFromKernel(kt, mu[lo:hi]) })
	return mu
}

// kernelChunks computes the kernel values between chunks of predictChunk rows of x and the
// active inputs, one row of d values per row of x, and passes each chunk's rows×d matrix
// and its rows [lo, hi) to f, which may overwrite it.
func (m *Model) kernelChunks(x mat.Matrix, f func(kt *mat.Dense, lo, hi int)) {
	n, _ := x.Dims()
	d := m.Size()
	chunks := (n + predictChunk - 1) / predictChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	bufs := make([][]float64, workers) // one per goroutine, reused across its chunks
	pool.ForEachWorker(chunks, workers, func(w, c int) {
		if bufs[w] == nil {
			// one row (a served request) needs d, not d×512
			bufs[w] = make([]float64, d*min(predictChunk, n))
		}
		lo, hi := c*predictChunk, min((c+1)*predictChunk, n)
		kt := mat.NewDense(hi-lo, d, bufs[w][:d*(hi-lo)])
		m.Kernel.K(kt, subRows(x, lo, hi), m.XActive)
		f(kt, lo, hi)
	})
}

// LatentMeanFromKernel is LatentMean for rows whose kernel values against the active
// inputs are known: row j of kt (n×d, not changed) holds k(x*_j, x_k); mu receives the means.
func (m *Model) LatentMeanFromKernel(kt *mat.Dense, mu []float64) {
	raw := kt.RawMatrix()
	for j := range raw.Rows {
		mu[j] = weightedSum(raw.Data[j*raw.Stride:j*raw.Stride+raw.Cols], m.alpha)
	}
}

// weightedSum returns Σ_k w_k v_k, summed in order.
func weightedSum(v, w []float64) float64 {
	sum := 0.0
	for k, x := range v {
		sum += x * w[k]
	}
	return sum
}

// LatentFromKernel is Latent for rows whose kernel values against the active inputs are
// known: row j of kt (n×d) holds k(x*_j, x_k) and is overwritten; varsigma holds the rows'
// prior variances k(x*, x*) (white noise included, as Kernel.Diag) and receives their
// latent variances, mu their latent means. Models that share a kernel can so share the
// kernel values of their common active inputs.
func (m *Model) LatentFromKernel(kt *mat.Dense, mu, varsigma []float64) {
	m.LatentMeanFromKernel(kt, mu)
	m.takeProjections(kt.RawMatrix(), m.Size(), varsigma)
}

// takeProjections solves the first r columns of kt's rows (k*ᵀ, overwritten) as solveRows
// does, which needs only the leading r×r block of U, and takes each row's squared norm from
// its varsigma: the variance given the first r active points.
func (m *Model) takeProjections(kt blas64.General, r int, varsigma []float64) {
	if r == 0 {
		return
	}
	lead := m.upper
	lead.N, kt.Cols = r, r
	buf := solveScratch.Get().(*[]float64)
	*buf = rowdot.SolveUpperRight(kt, lead, *buf)
	solveScratch.Put(buf)
	for j := range kt.Rows {
		row := kt.Data[j*kt.Stride : j*kt.Stride+r]
		// Rounding can take ς* a hair below zero when x* is an active input.
		varsigma[j] = max(0, varsigma[j]-weightedSum(row, row))
	}
}

// solveScratch holds solveRows' buffers between calls: a call needs ~2 MB at d = 2 000.
var solveScratch = sync.Pool{New: func() any { return new([]float64) }}

// solveRows overwrites each row k*ᵀ of kt (n×d) with k*ᵀU⁻¹, whose squared norm is
// ‖L⁻¹k*‖² (rowdot.SolveUpperRight). The transposed blocks of U it needs are copied again
// for every chunk of rows: d²/2 copies against the chunk's d²·rows multiply–adds, where
// keeping L = Uᵀ would hold another d² floats per model (355 MB for the ten classes of
// Fashion-MNIST's 60 000-image model).
func (m *Model) solveRows(kt *mat.Dense) {
	buf := solveScratch.Get().(*[]float64)
	*buf = rowdot.SolveUpperRight(kt.RawMatrix(), m.upper, *buf)
	solveScratch.Put(buf)
}

// Predict returns the noise model's prediction at each row of x.
func (m *Model) Predict(x mat.Matrix) []noise.Prediction {
	mu, vs := m.Latent(x, nil, nil)
	out := make([]noise.Prediction, len(mu))
	for i := range out {
		m.Noise.Predict(&out[i], mu[i], vs[i])
	}
	return out
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

// subRows returns rows [lo, hi) of x without copying when x is a *mat.Dense.
func subRows(x mat.Matrix, lo, hi int) mat.Matrix {
	_, c := x.Dims()
	if d, ok := x.(*mat.Dense); ok {
		return d.Slice(lo, hi, 0, c)
	}
	out := mat.NewDense(hi-lo, c, nil)
	for i := lo; i < hi; i++ {
		for j := 0; j < c; j++ {
			out.Set(i-lo, j, x.At(i, j))
		}
	}
	return out
}

// InclusionMeans returns the latent mean each active point had when it was included (bias
// excluded): the posterior mean given the sites of the points included before it, from
// which the inclusion set its site. With A = LLᵀ in inclusion order and z = L⁻¹m, it is
// Σ_{j<k} L_kj z_j, the forward solve's partial sum (row k of L below the diagonal is
// L_{<k}⁻¹K_{<k,k}). A probit site's mean lies above it for a label +1, below for −1.
func (m *Model) InclusionMeans() []float64 {
	d, u := m.Size(), m.upper
	mu, z := make([]float64, d), make([]float64, d)
	for k := range d {
		s := 0.0
		for j := range k {
			s += u.Data[j*u.Stride+k] * z[j] // L_kj = U_jk
		}
		mu[k] = s
		z[k] = (m.SiteM[k] - s) / u.Data[k*u.Stride+k]
	}
	return mu
}
