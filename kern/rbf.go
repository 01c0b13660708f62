package kern

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/vmath"
)

// rbfCore computes the RBF kernel and its ARD form (common.a != nil).
type rbfCore struct{ common }

// RBF is the radial basis function kernel k = variance · exp(−½ γ ‖x − x'‖²) (IVM paper
// §4), γ being the inverse width. Parameters: [gamma, variance], the reference toolbox's order.
//
// As in the reference toolbox the squared distance is computed as ‖x‖² + ‖x'‖² − 2
// x·x' and clamped at 0, and k as variance·exp(−d·(γ/2)), in the toolbox's order of
// operations (sums left to right, no fused multiply-add). Distinct but nearly equal points may get
// a distance that is off by rounding (or clamped); a row compared with itself gets exactly 0 here,
// since its norm and inner product are summed alike. Diag returns the variance.
type RBF struct{ rbfCore }

// NewRBF returns an RBF kernel with inverse width gamma and the given variance.
func NewRBF(gamma, variance float64) (*RBF, error) {
	c, err := newCommon("rbf", []string{"gamma", "variance"}, []float64{gamma, variance}, nil)
	if err != nil {
		return nil, err
	}
	return &RBF{rbfCore{c}}, nil
}

// K implements Kernel.
func (k *rbfCore) K(dst *mat.Dense, x1, x2 mat.Matrix) {
	a, b, sym := inputs(k.name, k.dim(), x1, x2)
	k.addK(prepDst(dst, a.rows, b.rows), a, b, sym)
}

// sqDist is the clamped squared distance from the norms and the inner product, evaluated
// in the reference toolbox's order: (‖x‖² + ‖x'‖²) − 2 x·x'.
func sqDist(na, nb, ab float64) float64 {
	d := (na + nb) - 2*ab
	if d < 0 {
		return 0
	}
	return d
}

func (k *rbfCore) addK(dst, a, b raw, sym bool) {
	h, v, w := 0.5*k.p[0], k.p[1], k.weights()
	var e [expChunk]float64
	if !sym && b.rows == 1 {
		// One kernel column: the IVM's inclusion step. One pass over each row.
		b0 := b.row(0)
		nb := dot(b0, b0, w)
		for lo := 0; lo < a.rows; lo += expChunk {
			c := e[:min(expChunk, a.rows-lo)]
			for j := range c {
				na, ab := dot2(a.row(lo+j), b0, w)
				c[j] = -sqDist(na, nb, ab) * h
			}
			vmath.Exp(c, c)
			for j, ej := range c {
				dst.data[(lo+j)*dst.str] += v * ej
			}
		}
		return
	}
	g := gram(a, b, w)
	na, nb := gramNorms(g, a, b, w, sym)
	for i := 0; i < a.rows; i++ {
		di, gi := dst.row(i), g[i*b.rows:(i+1)*b.rows]
		j0 := 0
		if sym {
			j0 = i
		}
		for lo := j0; lo < b.rows; lo += expChunk {
			c := e[:min(expChunk, b.rows-lo)]
			for j := range c {
				c[j] = -sqDist(na[i], nb[lo+j], gi[lo+j]) * h
			}
			vmath.Exp(c, c)
			for j, ej := range c {
				kij := v * ej
				di[lo+j] += kij
				if sym && lo+j != i {
					dst.data[(lo+j)*dst.str+i] += kij
				}
			}
		}
	}
}

// expChunk is how many of a kernel's exponentials are taken at once (vmath.Exp, four to an
// instruction), from arguments kept on the stack.
const expChunk = 256

// Diag implements Kernel: the variance.
func (k *rbfCore) Diag(dst []float64, x mat.Matrix) {
	k.diagInput(x, len(dst))
	for i := range dst {
		dst[i] = k.p[1]
	}
}

// Grad implements Kernel: ∂k/∂γ = −½ k d, ∂k/∂variance = k/variance and, for rbfard,
// ∂k/∂α_g = −½ γ k Σ_{d in group g} (x_d − x'_d)².
func (k *rbfCore) Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	a, b, sym := inputs(k.name, k.dim(), x1, x2)
	g := gradInput(k.name, dK, a, b)
	h, v, w := 0.5*k.p[0], k.p[1], k.weights()
	gr := gram(a, b, w)
	na, nb := gramNorms(gr, a, b, w, sym)
	// For rbfard, ck_ij = c_ij·v·e_ij is kept in cm for the input-scale gradient below.
	var cm []float64
	if w != nil {
		cm = make([]float64, a.rows*b.rows)
	}
	gg, gv := 0.0, 0.0
	for i := 0; i < a.rows; i++ {
		j0 := 0
		if sym {
			j0 = i // K is symmetric: visit each pair once with dK_ij + dK_ji
		}
		for j := j0; j < b.rows; j++ {
			c := g.data[i*g.str+j]
			if sym && j != i {
				c += g.data[j*g.str+i]
			}
			if c == 0 {
				continue
			}
			d := sqDist(na[i], nb[j], gr[i*b.rows+j])
			e := math.Exp(-d * h)
			gv += c * e
			ck := c * v * e
			gg += ck * d
			if cm != nil && (!sym || j != i) {
				cm[i*b.rows+j] = ck
			}
		}
	}
	dst[0] += -0.5 * gg
	dst[1] += gv
	if w != nil {
		k.a.addGrad(dst[2:], ardDistGrad(cm, a, b, -h))
	}
}

// ardDistGrad returns gw_m = s·Σ_ij C_ij (a_im − b_jm)² for the a.rows×b.rows matrix C,
// expanded as Σ_i r_i a_im² + Σ_j t_j b_jm² − 2 Σ_i a_im (C·B)_im with r and t the row
// and column sums of C, so that the O(n₁n₂D) part is one Dgemm.
func ardDistGrad(cm []float64, a, b raw, s float64) []float64 {
	gw := make([]float64, a.cols)
	if a.rows == 0 || b.rows == 0 || a.cols == 0 {
		return gw
	}
	cb := make([]float64, a.rows*a.cols)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: a.rows, Cols: b.rows, Stride: b.rows, Data: cm},
		blas64.General{Rows: b.rows, Cols: b.cols, Stride: b.str, Data: b.data}, 0,
		blas64.General{Rows: a.rows, Cols: a.cols, Stride: a.cols, Data: cb})
	colSum := make([]float64, b.rows)
	for i := 0; i < a.rows; i++ {
		ci, ai, cbi := cm[i*b.rows:(i+1)*b.rows], a.row(i), cb[i*a.cols:(i+1)*a.cols]
		r := 0.0
		for j, c := range ci {
			r += c
			colSum[j] += c
		}
		for m, x := range ai {
			gw[m] += x * (r*x - 2*cbi[m])
		}
	}
	for j, t := range colSum {
		if t == 0 {
			continue
		}
		for m, x := range b.row(j) {
			gw[m] += t * x * x
		}
	}
	for m := range gw {
		gw[m] *= s
	}
	return gw
}

// GradDiag implements Kernel: only the variance moves the diagonal.
func (k *rbfCore) GradDiag(dst []float64, x mat.Matrix, d []float64) {
	k.diagInput(x, len(d))
	for _, c := range d {
		dst[1] += c
	}
}
