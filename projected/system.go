package projected

import (
	"fmt"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/rowdot"
	"github.com/ivmlab/ivm/internal/subset"
)

// system accumulates the projected process's K_mnK_nm (g, its upper triangle)
// and K_mnY over training rows, a block of kernel rows at a time.
type system struct {
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

// panelRows is the number of rows of g add computes at a time.
const panelRows = 256

func newSystem(m, classes int) *system {
	return &system{g: mat.NewDense(m, m, nil), r: mat.NewDense(m, classes, nil),
		sum: make([]float64, m)}
}

// add accumulates the kernel rows kb (rows × m) of training rows of classes cls.
func (s *system) add(kb *mat.Dense, cls []int) {
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
func (s *system) addReal(kb *mat.Dense, y []float64) {
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
// computed, a panel of panelRows rows at a time, so the product costs half a full
// one and its workspace a panel.
func (s *system) addGram(kb *mat.Dense) {
	b, m := kb.Dims()
	s.kt = slices.Grow(s.kt[:0], m*b)[:m*b]
	inParts(b, func(lo, hi int) {
		// Eight rows at a time: each write of kt then fills a cache line's eight values.
		raw := kb.RawMatrix()
		for i0 := lo; i0 < hi; i0 += 8 {
			i1 := min(hi, i0+8)
			for j := range m {
				col := s.kt[j*b+i0 : j*b+i1]
				for i := range col {
					col[i] = raw.Data[(i0+i)*raw.Stride+j]
				}
			}
		}
	})
	s.panel = slices.Grow(s.panel[:0], panelRows*m)[:panelRows*m]
	kt := blas64.General{Rows: m, Cols: b, Stride: b, Data: s.kt}
	for lo := 0; lo < m; lo += panelRows {
		hi := min(m, lo+panelRows)
		c := blas64.General{Rows: hi - lo, Cols: m - lo, Stride: m - lo, Data: s.panel}
		rowdot.ABt(c, rowsOf(kt, lo, hi), rowsOf(kt, lo, m))
		inParts(hi-lo, func(plo, phi int) {
			for i := lo + plo; i < lo+phi; i++ { // the upper triangle: factor copies it below
				floats.Add(s.g.RawRowView(i)[i:],
					c.Data[(i-lo)*c.Stride+i-lo:(i-lo)*c.Stride+c.Cols])
			}
		})
	}
}

// partRows is the fewest rows inParts gives a goroutine.
const partRows = 64

// inParts calls f on consecutive ranges of 0…n−1, one per core (each of at least partRows
// rows), side by side: the work between a block's products (its kernel values, their
// transposition, the panels' sums) would otherwise leave all cores but one idle. Each range
// computes what it would alone, so the system's bits do not depend on the cores.
func inParts(n int, f func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), max(1, n/partRows))
	pool.ForEach(parts, parts, func(p int) { f(p*n/parts, (p+1)*n/parts) })
}

// rowsOf is rows lo…hi−1 of a.
func rowsOf(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
}

// addRows accumulates rows idx of x, scaled by sc (targets t, indexed like x's rows),
// through the model's features (the kernel at its centres, and its additive part),
// reporting the rows done after each block.
func (s *system) addRows(pr *Model, x mat.Matrix, sc *dataset.Scaler, idx []int,
	t Targets, report func(done int)) error {
	m := pr.featureCount()
	kb := mat.NewDense(max(min(blockRows, len(idx)), 1), m, nil)
	for lo := 0; lo < len(idx); lo += blockRows {
		hi := min(len(idx), lo+blockRows)
		xv, err := subset.Scaled(x, sc, idx[lo:hi])
		if err != nil {
			return err
		}
		kv := kb.Slice(0, hi-lo, 0, m).(*mat.Dense)
		_, dim := xv.Dims()
		inParts(hi-lo, func(plo, phi int) {
			pr.featureRows(kv.Slice(plo, phi, 0, m).(*mat.Dense),
				xv.Slice(plo, phi, 0, dim).(*mat.Dense))
		})
		t.add(s, kv, idx[lo:hi])
		if report != nil {
			report(hi)
		}
	}
	return nil
}

// regularise adds λK_mm to the system, with K_mm from kmm (rows lo…hi−1 into dst, which
// has hi−lo rows), so that it holds A = K_mnK_nm + λK_mm.
func (s *system) regularise(lambda float64, kmm func(dst *mat.Dense, lo, hi int)) {
	m, _ := s.g.Dims()
	b := max(min(blockRows, m), 1)
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

// jitters are the multiples of A's mean diagonal factor adds to it, in turn,
// when A is not positive definite in floating point (centres nearly dependent: many of
// them in few input dimensions).
var jitters = []float64{0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2}

// factor factorises A = LLᵀ in g's lower triangle, leaving A's strict upper triangle, and
// its diagonal in s.diag, from which a failed attempt, and unfactor, restore it. It
// returns the jitter it added to the diagonal (0 where none was needed).
func (s *system) factor() (float64, error) {
	m, _ := s.g.Dims()
	raw := s.g.RawMatrix()
	s.diag = slices.Grow(s.diag[:0], m)[:m]
	for i := range m {
		s.diag[i] = raw.Data[i*raw.Stride+i]
	}
	mean := floats.Sum(s.diag) / float64(max(m, 1))
	for _, jit := range jitters {
		for i := range m {
			raw.Data[i*raw.Stride+i] = s.diag[i] + jit*mean
			for j := i + 1; j < m; j++ {
				raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
			}
		}
		var ok bool
		if s.cholBuf, ok = rowdot.Cholesky(blas64.Symmetric{N: m, Stride: raw.Stride,
			Data: raw.Data, Uplo: blas.Lower}, s.cholBuf); ok {
			return jit, nil
		}
	}
	s.unfactor()
	return 0,
		fmt.Errorf(
			"the projected process's %d×%d system is not positive definite, "+
				"even with a jitter of %g times its mean diagonal", m, m, jitters[len(jitters)-1])
}

// unfactor restores A's diagonal in g from the copy factor made; its strict upper
// triangle, which holds the rest of A, factor leaves alone.
func (s *system) unfactor() {
	raw := s.g.RawMatrix()
	for i, d := range s.diag {
		raw.Data[i*raw.Stride+i] = d
	}
}

// weights returns W = A⁻¹K_mnY with A factorised (factor).
func (s *system) weights() (*mat.Dense, error) {
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
func (s *system) solve(lambda float64, kmm func(dst *mat.Dense, lo, hi int)) (*mat.Dense,
	float64, error) {
	s.regularise(lambda, kmm)
	jit, err := s.factor()
	if err != nil {
		return nil, 0, err
	}
	w, err := s.weights()
	return w, jit, err
}

// leading returns a copy of the system of its first m features.
func (s *system) leading(m int) *system {
	_, cols := s.r.Dims()
	out := &system{g: mat.DenseCopyOf(s.g.Slice(0, m, 0, m)),
		r: mat.DenseCopyOf(s.r.Slice(0, m, 0, cols)), real: s.real}
	if s.sum != nil {
		out.sum = slices.Clone(s.sum[:m])
	}
	return out
}

// clone returns a copy of the system.
func (s *system) clone() *system {
	return &system{g: mat.DenseCopyOf(s.g), r: mat.DenseCopyOf(s.r), sum: slices.Clone(s.sum),
		real: s.real}
}

// leaveOneOut returns the latents of the scaled rows xs (targets' codes y, rows × classes)
// as the system, factorised, would give them had each row been left out of it: for a
// penalised least-squares fit f = Hy, f₋ᵢ = yᵢ − (yᵢ − fᵢ)/(1 − hᵢᵢ), with
// hᵢᵢ = k_iᵀA⁻¹k_i = ‖L⁻¹k_i‖². Its L is moved into g's upper triangle as Lᵀ,
// so A is lost: the system is of no further use. kxc computes kernel rows against the centres.
func (s *system) leaveOneOut(xs *mat.Dense, y, w *mat.Dense,
	kxc func(dst, x *mat.Dense)) *mat.Dense {
	m, _ := s.g.Dims()
	raw := s.g.RawMatrix()
	for i := range m {
		for j := i + 1; j < m; j++ {
			raw.Data[i*raw.Stride+j] = raw.Data[j*raw.Stride+i]
		}
	}
	u := blas64.Triangular{N: m, Stride: raw.Stride, Data: raw.Data, Uplo: blas.Upper,
		Diag: blas.NonUnit}
	n, dim := xs.Dims()
	_, classes := w.Dims()
	out := mat.NewDense(max(n, 1), classes, nil)
	blocks := (n + blockRows - 1) / blockRows
	workers := min(blocks, looBlocksAtOnce)
	kbs, bufs := make([]*mat.Dense, workers), make([][]float64, workers)
	pool.ForEachWorker(blocks, workers, func(wk, b int) {
		lo := b * blockRows
		hi := min(n, lo+blockRows)
		if kbs[wk] == nil {
			kbs[wk] = mat.NewDense(min(blockRows, n), m, nil)
		}
		kv := kbs[wk].Slice(0, hi-lo, 0, m).(*mat.Dense)
		inParts(hi-lo, func(plo, phi int) {
			kxc(kv.Slice(plo, phi, 0, m).(*mat.Dense),
				xs.Slice(lo+plo, lo+phi, 0, dim).(*mat.Dense))
		})
		f := out.Slice(lo, hi, 0, classes).(*mat.Dense)
		f.Mul(kv, w)
		bufs[wk] = rowdot.SolveUpperRight(kv.RawMatrix(), u, bufs[wk])
		for i := range hi - lo {
			v := kv.RawRowView(i)
			h := min(floats.Dot(v, v), 1-1e-9) // below 1 but for rounding: λK_mm > 0
			fi, yi := f.RawRowView(i), y.RawRowView(lo+i)
			for c := range fi {
				fi[c] = yi[c] - (yi[c]-fi[c])/(1-h)
			}
		}
	})
	return out
}

// looBlocksAtOnce is how many blocks of rows leaveOneOut solves side by side: the
// triangular solve's packing, diagonal blocks and sums run on one core within a block, and
// each block at once holds its own blockRows×m kernel rows. The blocks are the same
// whatever the cores, and so are the latents' bits.
const looBlocksAtOnce = 2
