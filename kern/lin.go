package kern

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// linCore computes the linear kernel and its ARD form (common.a != nil).
type linCore struct{ common }

// Lin is the linear kernel k = variance · xᵀx' (IVM paper §4). Parameters: [variance].
type Lin struct{ linCore }

// NewLin returns a linear kernel with the given variance.
func NewLin(variance float64) (*Lin, error) {
	c, err := newCommon("lin", []string{"variance"}, []float64{variance}, nil)
	if err != nil {
		return nil, err
	}
	return &Lin{linCore{c}}, nil
}

// K implements Kernel.
func (k *linCore) K(dst *mat.Dense, x1, x2 mat.Matrix) {
	a, b, sym := inputs(k.name, k.dim(), x1, x2)
	k.addK(prepDst(dst, a.rows, b.rows), a, b, sym)
}

func (k *linCore) addK(dst, a, b raw, sym bool) {
	v, w := k.p[0], k.weights()
	if !sym && b.rows == 1 {
		// One kernel column: pairwise, without a Gram matrix to allocate.
		b0 := b.row(0)
		for i := 0; i < a.rows; i++ {
			dst.data[i*dst.str] += v * dot(a.row(i), b0, w)
		}
		return
	}
	g := gram(a, b, w)
	for i := 0; i < a.rows; i++ {
		di, gi := dst.row(i), g[i*b.rows:(i+1)*b.rows]
		j0 := 0
		if sym {
			j0 = i
		}
		for j := j0; j < b.rows; j++ {
			kij := v * gi[j]
			di[j] += kij
			if sym && j != i {
				dst.data[j*dst.str+i] += kij
			}
		}
	}
}

// Diag implements Kernel.
func (k *linCore) Diag(dst []float64, x mat.Matrix) {
	a := k.diagInput(x, len(dst))
	v, w := k.p[0], k.weights()
	for i := range dst {
		ai := a.row(i)
		dst[i] = v * dot(ai, ai, w)
	}
}

// Grad implements Kernel.
func (k *linCore) Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	a, b, _ := inputs(k.name, k.dim(), x1, x2)
	g := gradInput(k.name, dK, a, b)
	v, w := k.p[0], k.weights()
	if w == nil {
		// ∂f/∂variance = Σ_ij dK_ij x_i·x'_j from the (usually cached) Gram matrix.
		gr, gv := gram(a, b, nil), 0.0
		for i := 0; i < g.rows; i++ {
			gi := gr[i*b.rows : (i+1)*b.rows]
			for j, c := range g.row(i) {
				gv += c * gi[j]
			}
		}
		dst[0] += gv
		return
	}
	// T = dK·X' (row i: t_i = Σ_j dK_ij x'_j) by one Dgemm.
	tm := make([]float64, a.rows*a.cols)
	if a.rows > 0 && b.rows > 0 && a.cols > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: g.rows, Cols: g.cols, Stride: g.str, Data: g.data},
			blas64.General{Rows: b.rows, Cols: b.cols, Stride: b.str, Data: b.data}, 0,
			blas64.General{Rows: a.rows, Cols: a.cols, Stride: a.cols, Data: tm})
	}
	var gw []float64
	if w != nil {
		gw = make([]float64, a.cols)
	}
	gv := 0.0
	for i := 0; i < a.rows; i++ {
		t := tm[i*a.cols : (i+1)*a.cols]
		ai := a.row(i)
		gv += dot(ai, t, w)
		for d := range gw {
			gw[d] += v * ai[d] * t[d]
		}
	}
	dst[0] += gv
	if w != nil {
		k.a.addGrad(dst[1:], gw)
	}
}

// GradDiag implements Kernel.
func (k *linCore) GradDiag(dst []float64, x mat.Matrix, d []float64) {
	a := k.diagInput(x, len(d))
	v, w := k.p[0], k.weights()
	var gw []float64
	if w != nil {
		gw = make([]float64, a.cols)
	}
	for i, c := range d {
		if c == 0 {
			continue
		}
		ai := a.row(i)
		dst[0] += c * dot(ai, ai, w)
		for e := range gw {
			gw[e] += c * v * ai[e] * ai[e]
		}
	}
	if w != nil {
		k.a.addGrad(dst[1:], gw)
	}
}
