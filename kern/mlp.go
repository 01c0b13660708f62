package kern

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// mlpCore computes the MLP kernel and its ARD form (common.a != nil).
type mlpCore struct{ common }

// MLP is the multi-layer perceptron kernel of Williams (1997) (IVM paper §4):
//
//	k = variance · asin( (w xᵀx' + b) / √((w xᵀx + b + 1)(w x'ᵀx' + b + 1)) )
//
// with weight variance w and bias variance b. Parameters: [weight, bias, variance].
type MLP struct{ mlpCore }

// NewMLP returns an MLP kernel with the given weight variance, bias variance and variance.
func NewMLP(weight, bias, variance float64) (*MLP, error) {
	c, err := newCommon("mlp", []string{"weight", "bias", "variance"},
		[]float64{weight, bias, variance}, nil)
	if err != nil {
		return nil, err
	}
	return &MLP{mlpCore{c}}, nil
}

// K implements Kernel.
func (k *mlpCore) K(dst *mat.Dense, x1, x2 mat.Matrix) {
	a, b, sym := inputs(k.name, k.dim(), x1, x2)
	k.addK(prepDst(dst, a.rows, b.rows), a, b, sym)
}

// mlpArg is the argument of asin for inner product ab and the denominators' factors
// da = w xᵀx + b + 1, db = w x'ᵀx' + b + 1, clamped to [−1, 1] against rounding.
func mlpArg(wt, bs, ab, da, db float64) (arg, den float64) {
	den = math.Sqrt(da * db)
	arg = (ab*wt + bs) / den
	return max(-1, min(1, arg)), den
}

func (k *mlpCore) addK(dst, a, b raw, sym bool) {
	wt, bs, v, w := k.p[0], k.p[1], k.p[2], k.weights()
	if !sym && b.rows == 1 {
		b0 := b.row(0)
		db := dot(b0, b0, w)*wt + bs + 1
		for i := 0; i < a.rows; i++ {
			na, ab := dot2(a.row(i), b0, w)
			arg, _ := mlpArg(wt, bs, ab, na*wt+bs+1, db)
			dst.data[i*dst.str] += v * math.Asin(arg)
		}
		return
	}
	g := gram(a, b, w)
	na, nb := gramNorms(g, a, b, w, sym)
	db := make([]float64, b.rows)
	for j := range db {
		db[j] = nb[j]*wt + bs + 1
	}
	for i := 0; i < a.rows; i++ {
		di, gi := dst.row(i), g[i*b.rows:(i+1)*b.rows]
		j0, da := 0, na[i]*wt+bs+1
		if sym {
			j0 = i
		}
		for j := j0; j < b.rows; j++ {
			arg, _ := mlpArg(wt, bs, gi[j], da, db[j])
			kij := v * math.Asin(arg)
			di[j] += kij
			if sym && j != i {
				dst.data[j*dst.str+i] += kij
			}
		}
	}
}

// Diag implements Kernel.
func (k *mlpCore) Diag(dst []float64, x mat.Matrix) {
	a := k.diagInput(x, len(dst))
	wt, bs, v, w := k.p[0], k.p[1], k.p[2], k.weights()
	for i := range dst {
		ai := a.row(i)
		n := dot(ai, ai, w)
		arg, _ := mlpArg(wt, bs, n, n*wt+bs+1, n*wt+bs+1)
		dst[i] = v * math.Asin(arg)
	}
}

// Grad implements Kernel. With s = ∂k/∂arg = variance/√(1 − arg²) and den = √(da·db):
// ∂arg/∂w = xᵀx'/den − ½ arg (xᵀx/da + x'ᵀx'/db), ∂arg/∂b = 1/den − ½ arg (1/da
// + 1/db), and for mlpard ∂arg/∂α_d = w x_d x'_d/den − ½ arg w (x_d²/da + x'_d²/db).
func (k *mlpCore) Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	a, b, sym := inputs(k.name, k.dim(), x1, x2)
	g := gradInput(k.name, dK, a, b)
	wt, bs, v, w := k.p[0], k.p[1], k.p[2], k.weights()
	gr := gram(a, b, w)
	na, nb := gramNorms(gr, a, b, w, sym)
	var t, colQ, gw []float64
	if w != nil {
		t, colQ, gw = make([]float64, a.cols), make([]float64, b.rows), make([]float64, a.cols)
	}
	var gwt, gbs, gv float64
	for i := 0; i < a.rows; i++ {
		ai := a.row(i)
		da := na[i]*wt + bs + 1
		rowQ := 0.0
		clear(t)
		for j, c := range g.row(i) {
			if c == 0 {
				continue
			}
			bj := b.row(j)
			ab := gr[i*b.rows+j]
			db := nb[j]*wt + bs + 1
			arg, den := mlpArg(wt, bs, ab, da, db)
			gv += c * math.Asin(arg)
			s := c * v / math.Sqrt(1-arg*arg)
			gwt += s * (ab/den - 0.5*arg*(na[i]/da+nb[j]/db))
			gbs += s * (1/den - 0.5*arg*(1/da+1/db))
			if w != nil {
				p, q := s*wt/den, 0.5*s*arg*wt
				bj = bj[:len(t)]
				for m := range t {
					t[m] += p * bj[m]
				}
				rowQ += q / da
				colQ[j] += q / db
			}
		}
		for m := range gw {
			gw[m] += ai[m] * (t[m] - ai[m]*rowQ)
		}
	}
	dst[0] += gwt
	dst[1] += gbs
	dst[2] += gv
	if w != nil {
		for j, q := range colQ {
			if q == 0 {
				continue
			}
			bj := b.row(j)
			for m := range gw {
				gw[m] -= bj[m] * bj[m] * q
			}
		}
		k.a.addGrad(dst[3:], gw)
	}
}

// GradDiag implements Kernel.
func (k *mlpCore) GradDiag(dst []float64, x mat.Matrix, d []float64) {
	a := k.diagInput(x, len(d))
	wt, bs, v, w := k.p[0], k.p[1], k.p[2], k.weights()
	var gw []float64
	if w != nil {
		gw = make([]float64, a.cols)
	}
	for i, c := range d {
		if c == 0 {
			continue
		}
		ai := a.row(i)
		n := dot(ai, ai, w)
		da := n*wt + bs + 1
		arg, den := mlpArg(wt, bs, n, da, da)
		dst[2] += c * math.Asin(arg)
		s := c * v / math.Sqrt(1-arg*arg)
		dst[0] += s * (n/den - arg*n/da)
		dst[1] += s * (1/den - arg/da)
		if w != nil {
			f := s * wt * (1/den - arg/da)
			for m := range gw {
				gw[m] += f * ai[m] * ai[m]
			}
		}
	}
	if w != nil {
		k.a.addGrad(dst[3:], gw)
	}
}
