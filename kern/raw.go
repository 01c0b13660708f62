package kern

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/param"
)

// raw is a row-major view of a matrix: row i is data[i*stride : i*stride+cols].
//
// Kernels work on raw views so that their inner loops index a []float64 directly instead
// of calling At through an interface for every element.
type raw struct {
	data            []float64
	rows, cols, str int
}

// row returns row i of the view.
func (r raw) row(i int) []float64 {
	o := i * r.str
	return r.data[o : o+r.cols : o+r.cols]
}

// asRaw returns a row-major view of m without copying when m is a *mat.Dense (or any
// mat.RawMatrixer) or a *mat.VecDense (a column), and a copy made through At otherwise.
func asRaw(m mat.Matrix) raw {
	switch v := m.(type) {
	case mat.RawMatrixer:
		g := v.RawMatrix()
		return raw{data: g.Data, rows: g.Rows, cols: g.Cols, str: g.Stride}
	case mat.RawVectorer:
		g := v.RawVector()
		return raw{data: g.Data, rows: g.N, cols: 1, str: g.Inc}
	}
	r, c := m.Dims()
	d := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d[i*c+j] = m.At(i, j)
		}
	}
	return raw{data: d, rows: r, cols: c, str: c}
}

// prepDst makes dst r×c (resizing it when empty, panicking on a shape mismatch otherwise),
// zeroes it and returns its raw view.
func prepDst(dst *mat.Dense, r, c int) raw {
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	} else if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(fmt.Sprintf("kern: destination is %d×%d, want %d×%d", dr, dc, r, c))
	}
	v := asRaw(dst)
	for i := 0; i < r; i++ {
		clear(v.row(i))
	}
	return v
}

// inputs returns the raw views of x1 and x2 for K and Grad. With x2 == nil the second view
// equals the first and sym is true. It panics when the column counts differ or, for an
// ARD kernel (dim > 0), do not equal dim.
func inputs(name string, dim int, x1, x2 mat.Matrix) (a, b raw, sym bool) {
	a = asRaw(x1)
	if x2 == nil {
		b, sym = a, true
	} else {
		b = asRaw(x2)
		if a.cols != b.cols {
			panic(fmt.Sprintf("kern: %s: inputs have %d and %d columns", name, a.cols, b.cols))
		}
	}
	if dim > 0 && a.cols != dim {
		panic(fmt.Sprintf("kern: %s: inputs have %d columns, kernel has input dimension %d",
			name, a.cols, dim))
	}
	return a, b, sym
}

// gradInput returns the view of dK and checks its shape against the inputs.
func gradInput(name string, dK mat.Matrix, a, b raw) raw {
	g := asRaw(dK)
	if g.rows != a.rows || g.cols != b.rows {
		panic(fmt.Sprintf("kern: %s: dK is %d×%d, want %d×%d",
			name, g.rows, g.cols, a.rows, b.rows))
	}
	return g
}

// dot returns Σ_k w_k (a_k b_k), or Σ_k a_k b_k when w is nil. It sums in four
// interleaved lanes, combined as (s₀ + s₁) + (s₂ + s₃) and then the tail, which hides the
// latency of floating-point addition (the kernel column is the IVM's second-hottest loop).
// Products are rounded before they are added (no fused multiply-add), so results do not
// depend on the architecture, dot(a, b, w) == dot(b, a, w) exactly, and dot2's first
// result equals dot(a, a, w) exactly: a row's distance to itself is exactly 0.
func dot(a, b, w []float64) float64 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float64
	k := 0
	if w == nil {
		for ; k+4 <= n; k += 4 {
			s0 += float64(a[k] * b[k])
			s1 += float64(a[k+1] * b[k+1])
			s2 += float64(a[k+2] * b[k+2])
			s3 += float64(a[k+3] * b[k+3])
		}
		s := (s0 + s1) + (s2 + s3)
		for ; k < n; k++ {
			s += float64(a[k] * b[k])
		}
		return s
	}
	w = w[:n]
	for ; k+4 <= n; k += 4 {
		s0 += float64(w[k] * float64(a[k]*b[k]))
		s1 += float64(w[k+1] * float64(a[k+1]*b[k+1]))
		s2 += float64(w[k+2] * float64(a[k+2]*b[k+2]))
		s3 += float64(w[k+3] * float64(a[k+3]*b[k+3]))
	}
	s := (s0 + s1) + (s2 + s3)
	for ; k < n; k++ {
		s += float64(w[k] * float64(a[k]*b[k]))
	}
	return s
}

// dot2 returns dot(a, a, w) and dot(a, b, w) in one pass over a, summed exactly as dot sums.
func dot2(a, b, w []float64) (aa, ab float64) {
	n := len(a)
	b = b[:n]
	var p0, p1, p2, p3, q0, q1, q2, q3 float64
	k := 0
	if w == nil {
		for ; k+4 <= n; k += 4 {
			a0, a1, a2, a3 := a[k], a[k+1], a[k+2], a[k+3]
			p0 += float64(a0 * a0)
			p1 += float64(a1 * a1)
			p2 += float64(a2 * a2)
			p3 += float64(a3 * a3)
			q0 += float64(a0 * b[k])
			q1 += float64(a1 * b[k+1])
			q2 += float64(a2 * b[k+2])
			q3 += float64(a3 * b[k+3])
		}
		aa, ab = (p0+p1)+(p2+p3), (q0+q1)+(q2+q3)
		for ; k < n; k++ {
			aa += float64(a[k] * a[k])
			ab += float64(a[k] * b[k])
		}
		return aa, ab
	}
	w = w[:n]
	for ; k+4 <= n; k += 4 {
		a0, a1, a2, a3 := a[k], a[k+1], a[k+2], a[k+3]
		p0 += float64(w[k] * float64(a0*a0))
		p1 += float64(w[k+1] * float64(a1*a1))
		p2 += float64(w[k+2] * float64(a2*a2))
		p3 += float64(w[k+3] * float64(a3*a3))
		q0 += float64(w[k] * float64(a0*b[k]))
		q1 += float64(w[k+1] * float64(a1*b[k+1]))
		q2 += float64(w[k+2] * float64(a2*b[k+2]))
		q3 += float64(w[k+3] * float64(a3*b[k+3]))
	}
	aa, ab = (p0+p1)+(p2+p3), (q0+q1)+(q2+q3)
	for ; k < n; k++ {
		aa += float64(w[k] * float64(a[k]*a[k]))
		ab += float64(w[k] * float64(a[k]*b[k]))
	}
	return aa, ab
}

// norms writes dot(row i, row i, w) for every row of x into dst (len rows).
func norms(dst []float64, x raw, w []float64) {
	for i := range dst {
		r := x.row(i)
		dst[i] = dot(r, r, w)
	}
}

// checkParams validates natural parameter values against their kinds: positive
// parameters must be finite and > 0, unit parameters in (0, 1), real ones finite.
func checkParams(kernel string, names []string, kinds []param.Kind, src []float64) error {
	if len(src) != len(names) {
		return fmt.Errorf("kern: %s: got %d parameters, want %d", kernel, len(src), len(names))
	}
	for i, v := range src {
		if err := checkValue(kinds[i], v); err != nil {
			return fmt.Errorf("kern: %s: parameter %s: %v", kernel, names[i], err)
		}
	}
	return nil
}

// checkValue validates one natural value against its kind.
func checkValue(k param.Kind, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("value %v is not finite", v)
	}
	switch k {
	case param.Positive:
		if !(v > 0) {
			return fmt.Errorf("value %v must be > 0", v)
		}
	case param.Unit:
		if !(v > 0 && v < 1) {
			return fmt.Errorf("value %v must lie in (0, 1)", v)
		}
	}
	return nil
}
