package ivm

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/rowdot"
	"github.com/ivmlab/ivm/internal/rowhash"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/search"
)

// ProjectedModel is a multi-class model that regresses every class's code (+1 for the class, −1
// for the others, as one-vs-rest codes it) on the inputs with one Gaussian process seen
// through m centres, training rows drawn at random: the projected process (subset of
// regressors; Rasmussen and Williams, §8.3). Its latents at x are f(x) = K(x, C)·W with
//
//	W = (K_mnK_nm + λK_mm)⁻¹ K_mnY,
//
// one m×m factorisation shared by every class, where one-vs-rest IVMs select and learn
// once per class; its class probabilities are the softmax p_c ∝ exp(a·f_c) mixed with
// label noise (Predictor.Sharpness and LabelNoise). On the larger sets measured
// (bench/RESULTS.md, "Eleventh pass") it is as accurate as the one-vs-rest IVMs or more for
// a fraction of their time: on Fashion-MNIST's first 10 000 images one-vs-rest IVMs took
// 123 CPU s.
type ProjectedModel struct {
	// Kernel is the kernel spec, an rbf of variance 1 (kern.Parse).
	Kernel string
	// Lambda is λ, the codes' noise variance in units of the kernel's variance.
	Lambda float64
	// Centres holds the m centres as rows of scaled inputs; Weights is W, m × classes.
	Centres, Weights *mat.Dense
	// Mix (classes × classes) and Offset map the latents f to the class scores
	// z = f·Mix + Offset, whose softmax p ∝ exp(z) are the class probabilities before
	// the label noise (projected_calib.go).
	Mix    *mat.Dense
	Offset []float64
	// NoiseVar is a regression's predictive variance, the same at every input (0 for
	// classification): the system's factor is not kept, so the latent's own variance is
	// folded into it, as the held-out residuals measured it.
	NoiseVar float64
	k        kern.Kernel
}

// toTargetUnits turns a regression fitted to targets standardised by mean and sd into one
// of the targets as given.
func (pr *ProjectedModel) toTargetUnits(mean, sd float64) {
	pr.Weights.Scale(sd, pr.Weights)
	pr.Offset[0] = pr.Offset[0]*sd + mean
	pr.NoiseVar *= sd * sd
}

// newProjected checks a projected model's parts and parses its kernel.
func newProjected(spec string, lambda float64, centres, weights *mat.Dense,
	sm scoreMap) (*ProjectedModel, error) {
	m, dim := centres.Dims()
	r, classes := weights.Dims()
	if r != m {
		return nil, fmt.Errorf("projected model with %d centres and %d rows of weights", m, r)
	}
	if mr, mc := sm.mix.Dims(); mr != classes || mc != classes || len(sm.offset) != classes {
		return nil, fmt.Errorf("projected model of %d classes with a %d×%d score map and %d offsets",
			classes, mr, mc, len(sm.offset))
	}
	if err := finite("projected model's score offset", sm.offset); err != nil {
		return nil, err
	}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("projected model's λ %v: want a positive finite value", lambda)
	}
	for name, a := range map[string]*mat.Dense{"centres": centres, "weights": weights,
		"score map": sm.mix} {
		if err := finite("projected model's "+name, a.RawMatrix().Data); err != nil {
			return nil, err
		}
	}
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return nil, fmt.Errorf("projected model's kernel: %w", err)
	}
	return &ProjectedModel{Kernel: spec, Lambda: lambda, Centres: centres, Weights: weights,
		Mix: sm.mix, Offset: sm.offset, k: k}, nil
}

// projectedBlock is how many rows' kernel values the projected model holds at once.
const projectedBlock = 2048

// latents returns f(x) = K(x, C)·W, a row of class latents per row of the scaled inputs
// xs, made projectedBlock rows at a time.
func (pr *ProjectedModel) latents(xs *mat.Dense) *mat.Dense {
	n, dim := xs.Dims()
	m, classes := pr.Weights.Dims()
	out := mat.NewDense(max(n, 1), classes, nil)
	kb := mat.NewDense(max(min(projectedBlock, n), 1), m, nil)
	for lo := 0; lo < n; lo += projectedBlock {
		hi := min(n, lo+projectedBlock)
		kv := kb.Slice(0, hi-lo, 0, m).(*mat.Dense)
		pr.k.K(kv, xs.Slice(lo, hi, 0, dim), pr.Centres)
		out.Slice(lo, hi, 0, classes).(*mat.Dense).Mul(kv, pr.Weights)
	}
	return out
}

// predictProjected is Predict for a projected model, on checked inputs. Latent holds the
// class latents f_c (LatentVar is nil: the probabilities do not use them), and
// Label is the class of the largest: the regression's own decision. The probabilities,
// a map fitted to a few thousand held-out rows for their log loss, can rank a near tie
// the other way; their argmax was the less accurate decision (measured in bench/RESULTS.md,
// search for 86.71).
func (p *projectedFit) predictProjected(x mat.Matrix, probs bool) ([]noise.Prediction, error) {
	xs, err := p.Scaler.Apply(x)
	if err != nil {
		return nil, err
	}
	f := p.Projected.latents(xs)
	n, _ := x.Dims()
	out := make([]noise.Prediction, n)
	sm := scoreMap{p.Projected.Mix, p.Projected.Offset}
	for i := range out {
		out[i].Latent = slices.Clone(f.RawRowView(i))
		z := sm.scores(out[i].Latent)
		if p.Task == Regression {
			if math.IsNaN(z[0]) || math.IsInf(z[0], 0) {
				return nil,
					fmt.Errorf(
						"ivm: the projected model's prediction at row %d is not finite: its weights overflow", i+1)
			}
			out[i].Label, out[i].Mean, out[i].Var, out[i].Latent = z[0], z[0], p.Projected.NoiseVar, nil
			continue
		}
		if floats.HasNaN(z) || math.IsInf(floats.Max(z), 0) || math.IsInf(floats.Min(z), 0) {
			return nil,
				fmt.Errorf(
					"ivm: the projected model's class scores at row %d are not finite: its weights or score map "+
						"overflow", i+1)
		}
		out[i].Label = p.Classes[floats.MaxIdx(out[i].Latent)]
		if probs {
			calib.Softmax(z, 1)
			calib.MixUniform(z, p.LabelNoise)
			out[i].Prob = z
		}
	}
	return out, nil
}

// projectedSystem accumulates the projected process's K_mnK_nm (g, its upper triangle)
// and K_mnY over training rows, a block of kernel rows at a time.
type projectedSystem struct {
	// g is K_mnK_nm; r and sum hold K_mnY as the kernel rows summed by class (r) and over
	// all rows (sum), K_mnY = 2r − sum: two additions per kernel value, not one per class.
	g, r *mat.Dense
	sum  []float64
	// kt and panel are add's workspace: a block's kernel rows transposed, and a panel of
	// its product.
	kt, panel []float64
	// diag is A's diagonal, kept by factor; cholBuf the factorisation's scratch.
	diag, cholBuf []float64
	// real marks real targets (addReal): r is K_mnY, one column.
	real bool
}

// projectedPanel is the number of rows of g add computes at a time.
const projectedPanel = 256

func newProjectedSystem(m, classes int) *projectedSystem {
	return &projectedSystem{g: mat.NewDense(m, m, nil), r: mat.NewDense(m, classes, nil),
		sum: make([]float64, m)}
}

// add accumulates the kernel rows kb (rows × m) of training rows of classes cls.
func (s *projectedSystem) add(kb *mat.Dense, cls []int) {
	s.addGram(kb)
	r := s.r.RawMatrix()
	for i, c := range cls {
		row := kb.RawRowView(i)
		floats.Add(s.sum, row)
		for j, v := range row {
			r.Data[j*r.Stride+c] += v
		}
	}
}

// addReal accumulates the kernel rows kb of training rows of real targets y: K_mnY is then
// r itself (real set).
func (s *projectedSystem) addReal(kb *mat.Dense, y []float64) {
	s.real = true
	s.sum = nil // weights leaves r as it is
	s.addGram(kb)
	r := s.r.RawMatrix()
	for i, v := range y {
		for j, kv := range kb.RawRowView(i) { // r is m × 1
			r.Data[j*r.Stride] += v * kv
		}
	}
}

// addGram accumulates K_mnK_nm of the kernel rows kb (rows × m). Only g's upper triangle is
// computed, a panel of projectedPanel rows at a time, so the product costs half a full
// one and its workspace a panel.
func (s *projectedSystem) addGram(kb *mat.Dense) {
	b, m := kb.Dims()
	s.kt = slices.Grow(s.kt[:0], m*b)[:m*b]
	for i := range b {
		for j, v := range kb.RawRowView(i) {
			s.kt[j*b+i] = v
		}
	}
	s.panel = slices.Grow(s.panel[:0], projectedPanel*m)[:projectedPanel*m]
	kt := blas64.General{Rows: m, Cols: b, Stride: b, Data: s.kt}
	for lo := 0; lo < m; lo += projectedPanel {
		hi := min(m, lo+projectedPanel)
		c := blas64.General{Rows: hi - lo, Cols: m - lo, Stride: m - lo, Data: s.panel}
		rowdot.ABt(c, rowsOf(kt, lo, hi), rowsOf(kt, lo, m))
		for i := lo; i < hi; i++ { // the upper triangle only: factor keeps a copy in the lower
			floats.Add(s.g.RawRowView(i)[i:], c.Data[(i-lo)*c.Stride+i-lo:(i-lo)*c.Stride+c.Cols])
		}
	}
}

// rowsOf is rows lo…hi−1 of a.
func rowsOf(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
}

// addRows accumulates rows idx of x, scaled by sc (targets t, indexed like x's rows),
// through kernel k and the centres, reporting the rows done after each block.
func (s *projectedSystem) addRows(k kern.Kernel, x mat.Matrix, sc *Scaler, idx []int,
	t projectedTargets, centres *mat.Dense, report func(done int)) error {
	m, _ := centres.Dims()
	kb := mat.NewDense(max(min(projectedBlock, len(idx)), 1), m, nil)
	for lo := 0; lo < len(idx); lo += projectedBlock {
		hi := min(len(idx), lo+projectedBlock)
		xv, err := subset.Scaled(x, sc, idx[lo:hi])
		if err != nil {
			return err
		}
		kv := kb.Slice(0, hi-lo, 0, m).(*mat.Dense)
		k.K(kv, xv, centres)
		t.add(s, kv, idx[lo:hi])
		if report != nil {
			report(hi)
		}
	}
	return nil
}

// regularise adds λK_mm to the system, with K_mm from kmm (rows lo…hi−1 into dst, which
// has hi−lo rows), so that it holds A = K_mnK_nm + λK_mm.
func (s *projectedSystem) regularise(lambda float64, kmm func(dst *mat.Dense, lo, hi int)) {
	m, _ := s.g.Dims()
	b := max(min(projectedBlock, m), 1)
	kb := mat.NewDense(b, m, nil)
	for lo := 0; lo < m; lo += b {
		hi := min(m, lo+b)
		kv := kb.Slice(0, hi-lo, 0, m).(*mat.Dense)
		kmm(kv, lo, hi)
		for i := lo; i < hi; i++ {
			floats.AddScaled(s.g.RawRowView(i)[i:], lambda, kv.RawRowView(i - lo)[i:])
		}
	}
}

// projectedJitters are the multiples of A's mean diagonal factor adds to it, in turn,
// when A is not positive definite in floating point (centres nearly dependent: many of
// them in few input dimensions).
var projectedJitters = []float64{0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2}

// factor factorises A = LLᵀ in g's lower triangle, leaving A's strict upper triangle, and
// its diagonal in s.diag, from which a failed attempt, and unfactor, restore it. It
// returns the jitter it added to the diagonal (0 where none was needed).
func (s *projectedSystem) factor() (float64, error) {
	m, _ := s.g.Dims()
	raw := s.g.RawMatrix()
	s.diag = slices.Grow(s.diag[:0], m)[:m]
	for i := range m {
		s.diag[i] = raw.Data[i*raw.Stride+i]
	}
	mean := floats.Sum(s.diag) / float64(max(m, 1))
	for _, jit := range projectedJitters {
		for i := range m {
			raw.Data[i*raw.Stride+i] = s.diag[i] + jit*mean
			for j := i + 1; j < m; j++ {
				raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
			}
		}
		var ok bool
		if s.cholBuf, ok = rowdot.Cholesky(blas64.Symmetric{N: m, Stride: raw.Stride, Data: raw.Data,
			Uplo: blas.Lower}, s.cholBuf); ok {
			return jit, nil
		}
	}
	s.unfactor()
	return 0,
		fmt.Errorf(
			"the projected process's %d×%d system is not positive definite, even with a jitter of %g "+
				"times its mean diagonal", m, m, projectedJitters[len(projectedJitters)-1])
}

// unfactor restores A's diagonal in g from the copy factor made; its strict upper
// triangle, which holds the rest of A, factor leaves alone.
func (s *projectedSystem) unfactor() {
	raw := s.g.RawMatrix()
	for i, d := range s.diag {
		raw.Data[i*raw.Stride+i] = d
	}
}

// weights returns W = A⁻¹K_mnY with A factorised (factor).
func (s *projectedSystem) weights() (*mat.Dense, error) {
	m, _ := s.g.Dims()
	raw := s.g.RawMatrix()
	w := mat.DenseCopyOf(s.r)
	for j, sj := range s.sum { // K_mnY = 2r − sum for the classes' ±1 codes
		row := w.RawRowView(j)
		for c := range row {
			row[c] = 2*row[c] - sj
		}
	}
	l := blas64.Triangular{N: m, Stride: raw.Stride, Data: raw.Data, Uplo: blas.Lower,
		Diag: blas.NonUnit}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l, w.RawMatrix()) // A = LLᵀ
	blas64.Trsm(blas.Left, blas.Trans, 1, l, w.RawMatrix())
	if err := finite("projected process weight", w.RawMatrix().Data); err != nil {
		return nil, err
	}
	return w, nil
}

// solve regularises, factorises and returns the weights and the jitter (see factor).
func (s *projectedSystem) solve(lambda float64, kmm func(dst *mat.Dense, lo, hi int)) (*mat.Dense,
	float64, error) {
	s.regularise(lambda, kmm)
	jit, err := s.factor()
	if err != nil {
		return nil, 0, err
	}
	w, err := s.weights()
	return w, jit, err
}

// clone returns a copy of the system.
func (s *projectedSystem) clone() *projectedSystem {
	return &projectedSystem{g: mat.DenseCopyOf(s.g), r: mat.DenseCopyOf(s.r), sum: slices.Clone(s.sum),
		real: s.real}
}

// distinctRows returns the first k of the rows perm lists (rows of x) that repeat no row
// before them (fewer where there are fewer distinct rows): repeated centres make the
// projected process's system singular (letter's integer inputs repeat).
func distinctRows(x *mat.Dense, perm []int, k int) []int {
	seen := make(map[uint64][]int)
	var out []int
	for _, r := range perm {
		if len(out) == k {
			break
		}
		row := x.RawRowView(r)
		h := rowhash.Sum(1, row)
		if slices.ContainsFunc(seen[h], func(q int) bool { return slices.Equal(x.RawRowView(q), row) }) {
			continue
		}
		seen[h] = append(seen[h], r)
		out = append(out, r)
	}
	return out
}

// softmaxCalib holds a softmax calibration, its temperature a and label noise eps, and its
// mean log loss on the rows it was fitted to.
type softmaxCalib struct{ a, eps, loss float64 }

// fitSoftmax chooses the temperature and label noise (search.LabelNoise) of the softmax
// that minimise the log loss of latents f (rows × classes) for classes cls.
func fitSoftmax(f *mat.Dense, cls []int) softmaxCalib {
	best := softmaxCalib{loss: math.Inf(1)}
	for _, eps := range search.LabelNoise {
		_, k := f.Dims()
		loss := func(la float64) float64 { return mapLoss(temperatureMap(math.Exp(la), k), f, cls, eps) }
		la := calib.GoldenMin(loss, math.Log(0.25), math.Log(256), 1e-3)
		if l := loss(la); l < best.loss-search.Tol || math.IsInf(best.loss, 1) {
			best = softmaxCalib{math.Exp(la), eps, l}
		}
	}
	return best
}

// errProjectedPart is Fit's answer to a partitioned training of a projected model.
var errProjectedPart = errors.New(
	"ivm: a projected model is one solve shared by every class; it cannot be trained in parts")

// projectedJSON is a projected model in a model file.
type projectedJSON struct {
	KernelSpec string      `json:"kernel_spec"`
	Lambda     float64     `json:"lambda"`
	Mix        [][]float64 `json:"score_mix"`
	Offset     []float64   `json:"score_offset"`
	Centres    [][]float64 `json:"centres"`
	Weights    [][]float64 `json:"weights"`
	NoiseVar   float64     `json:"noise_variance,omitempty"`
}

func encodeProjected(pr *ProjectedModel) *projectedJSON {
	rows := func(a *mat.Dense) [][]float64 {
		r, _ := a.Dims()
		out := make([][]float64, r)
		for i := range out {
			out[i] = a.RawRowView(i)
		}
		return out
	}
	return &projectedJSON{KernelSpec: pr.Kernel, Lambda: pr.Lambda, Mix: rows(pr.Mix),
		Offset: pr.Offset, Centres: rows(pr.Centres), Weights: rows(pr.Weights),
		NoiseVar: pr.NoiseVar}
}

// decodeProjected rebuilds a projected model of the given classes from its file form.
func decodeProjected(in *projectedJSON, classes int) (*ProjectedModel, error) {
	if len(in.Centres) == 0 || len(in.Centres) != len(in.Weights) {
		return nil, fmt.Errorf("projected model with %d centres and %d rows of weights", len(in.Centres),
			len(in.Weights))
	}
	dim := len(in.Centres[0])
	if dim < 1 || dim > MaxInputDim {
		return nil, fmt.Errorf("projected model with %d inputs", dim)
	}
	// Check the rows before allocating: a corrupt file must not allocate its claims.
	for i := range in.Centres {
		if len(in.Centres[i]) != dim || len(in.Weights[i]) != classes {
			return nil,
				fmt.Errorf(
					"projected model's row %d has %d centre values and %d weights, want %d and %d (one per class)",
					i+1, len(in.Centres[i]), len(in.Weights[i]), dim, classes)
		}
	}
	if len(in.Mix) != classes || len(in.Offset) != classes {
		return nil, fmt.Errorf("projected model of %d classes with %d rows of score map and %d offsets",
			classes, len(in.Mix), len(in.Offset))
	}
	for i, r := range in.Mix {
		if len(r) != classes {
			return nil, fmt.Errorf("projected model's score map row %d has %d values, want %d", i+1, len(r),
				classes)
		}
	}
	dense := func(rows [][]float64, cols int) *mat.Dense {
		out := mat.NewDense(len(rows), cols, nil)
		for i, r := range rows {
			out.SetRow(i, r)
		}
		return out
	}
	pr, err := newProjected(in.KernelSpec, in.Lambda, dense(in.Centres, dim),
		dense(in.Weights, classes), scoreMap{dense(in.Mix, classes), in.Offset})
	if err != nil {
		return nil, err
	}
	if !(in.NoiseVar >= 0) || math.IsInf(in.NoiseVar, 1) {
		return nil, fmt.Errorf("projected model's noise_variance %v: want a finite value ≥ 0",
			in.NoiseVar)
	}
	pr.NoiseVar = in.NoiseVar
	return pr, nil
}

// checkProjected validates a projected predictor read from a file.
func (p *projectedFit) checkProjected() error {
	switch {
	case p.Task == Binary && len(p.Classes) != 2 || p.Task == MultiClass && len(p.Classes) < 3:
		return fmt.Errorf("a projected model of a %v task with %d classes", p.Task, len(p.Classes))
	case p.Task == Regression && (len(p.Classes) != 0 || p.Softmax || !(p.Projected.NoiseVar > 0)):
		return errors.New("a projected regression has no classes, no softmax and a noise_variance > 0")
	case p.Task == Regression:
		return p.checkScaler()
	case p.Task != Binary && p.Task != MultiClass:
		return fmt.Errorf(
			"a projected model is for a binary, multi-class or regression task, not a %v one", p.Task)
	case !p.Softmax:
		return errors.New("a projected model's probabilities are a softmax (\"softmax\": true)")
	case !(p.LabelNoise >= 0 && p.LabelNoise < 1):
		return fmt.Errorf("label_noise %v: want 0 ≤ ε < 1", p.LabelNoise)
	}
	if err := p.checkScaler(); err != nil {
		return err
	}
	return p.checkClasses()
}

// checkScaler checks a projected predictor's input scaling against its centres.
func (p *projectedFit) checkScaler() error {
	if p.Scaler != nil {
		return p.Scaler.Check(p.InputDim())
	}
	return nil
}
