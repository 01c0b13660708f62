package kern

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/param"
)

// Initial natural parameter values of the IVM paper §4 and of the reference toolbox.
const (
	// DefaultVariance is the initial process variance of lin, rbf and mlp kernels.
	DefaultVariance = 1
	// DefaultGamma is the initial inverse width γ of rbf kernels.
	DefaultGamma = 1
	// DefaultWeight is the initial weight variance w of mlp kernels.
	DefaultWeight = 10
	// DefaultBias is the initial bias variance b of mlp kernels.
	DefaultBias = 10
	// DefaultBiasVariance is the initial variance of the bias kernel, e⁻² as in the reference.
	DefaultBiasVariance = 0.1353352832366127
	// DefaultWhiteVariance is the initial variance of the white kernel, e⁻² as in the reference.
	DefaultWhiteVariance = 0.1353352832366127
	// DefaultScale is the initial value of every ARD input scale α.
	DefaultScale = 0.999
)

// common holds what every component kernel shares: its name, the natural values of its
// base (positive) parameters and, for ARD kernels, the input scales.
type common struct {
	name  string
	names []string  // names of the base parameters
	p     []float64 // base parameters, all positive
	a     *ard      // input scales; nil unless the kernel is an ARD kernel
}

// newCommon validates and stores the base parameters (and scales) of a kernel.
func newCommon(name string, names []string, p []float64, a *ard) (common, error) {
	c := common{name: name, names: names, p: make([]float64, len(p)), a: a}
	for i, v := range p {
		if err := checkValue(param.Positive, v); err != nil {
			return common{}, fmt.Errorf("kern: %s: parameter %s: %v", name, names[i], err)
		}
	}
	copy(c.p, p)
	return c, nil
}

// Name implements Kernel.
func (c *common) Name() string { return c.name }

// NumParams implements Kernel.
func (c *common) NumParams() int {
	if c.a == nil {
		return len(c.p)
	}
	return len(c.p) + len(c.a.scales)
}

// ParamNames implements Kernel: the base parameters, then scale1 … scaleG for ARD kernels.
func (c *common) ParamNames() []string {
	n := append(make([]string, 0, c.NumParams()), c.names...)
	if c.a != nil {
		for g := range c.a.scales {
			n = append(n, fmt.Sprintf("scale%d", g+1))
		}
	}
	return n
}

// ParamKinds implements Kernel: base parameters are positive, input scales lie in (0, 1).
func (c *common) ParamKinds() []param.Kind {
	k := make([]param.Kind, c.NumParams())
	for i := range k {
		if i < len(c.p) {
			k[i] = param.Positive
		} else {
			k[i] = param.Unit
		}
	}
	return k
}

// Params implements Kernel.
func (c *common) Params(dst []float64) {
	if len(dst) != c.NumParams() {
		panic(fmt.Sprintf("kern: %s: Params needs %d values, got %d",
			c.name, c.NumParams(), len(dst)))
	}
	copy(dst, c.p)
	if c.a != nil {
		copy(dst[len(c.p):], c.a.scales)
	}
}

// SetParams implements Kernel. Nothing is changed when a value is invalid.
func (c *common) SetParams(src []float64) error {
	if err := checkParams(c.name, c.ParamNames(), c.ParamKinds(), src); err != nil {
		return err
	}
	copy(c.p, src)
	if c.a != nil {
		c.a.set(src[len(c.p):])
	}
	return nil
}

// White implements Kernel: zero for every kernel but white.
func (c *common) White() float64 { return 0 }

// dim is the input dimension of an ARD kernel, 0 (any) otherwise.
func (c *common) dim() int {
	if c.a == nil {
		return 0
	}
	return len(c.a.group)
}

// weights returns the per-dimension ARD weights, nil for a plain kernel.
func (c *common) weights() []float64 {
	if c.a == nil {
		return nil
	}
	return c.a.w
}

// diagInput returns the view of x for Diag and GradDiag and checks len(d) against it.
func (c *common) diagInput(x mat.Matrix, n int) raw {
	v, _, _ := inputs(c.name, c.dim(), x, nil)
	if v.rows != n {
		panic(fmt.Sprintf("kern: %s: %d values for %d rows", c.name, n, v.rows))
	}
	return v
}

// Bias is the constant kernel k(x, x') = variance: uncertainty in the output's offset
// (IVM paper §4). Parameters: [variance].
type Bias struct{ common }

// NewBias returns a bias kernel with the given variance.
func NewBias(variance float64) (*Bias, error) {
	c, err := newCommon("bias", []string{"variance"}, []float64{variance}, nil)
	if err != nil {
		return nil, err
	}
	return &Bias{c}, nil
}

// K implements Kernel.
func (k *Bias) K(dst *mat.Dense, x1, x2 mat.Matrix) {
	a, b, sym := inputs(k.name, 0, x1, x2)
	k.addK(prepDst(dst, a.rows, b.rows), a, b, sym)
}

func (k *Bias) addK(dst, a, b raw, _ bool) {
	v := k.p[0]
	for i := 0; i < a.rows; i++ {
		di := dst.row(i)[:b.rows]
		for j := range di {
			di[j] += v
		}
	}
}

// Diag implements Kernel.
func (k *Bias) Diag(dst []float64, x mat.Matrix) {
	k.diagInput(x, len(dst))
	for i := range dst {
		dst[i] = k.p[0]
	}
}

// Grad implements Kernel.
func (k *Bias) Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	a, b, _ := inputs(k.name, 0, x1, x2)
	g := gradInput(k.name, dK, a, b)
	s := 0.0
	for i := 0; i < g.rows; i++ {
		for _, v := range g.row(i) {
			s += v
		}
	}
	dst[0] += s
}

// GradDiag implements Kernel.
func (k *Bias) GradDiag(dst []float64, x mat.Matrix, d []float64) {
	k.diagInput(x, len(d))
	for _, v := range d {
		dst[0] += v
	}
}

// White is the white-noise kernel k(x_i, x_j) = variance·δ_ij (IVM paper §4): it adds
// its variance to the diagonal of K(X, X) and nothing to cross covariances between
// distinct point sets. Parameters: [variance]; its spec and model-file name is "white".
type White struct{ common }

// NewWhite returns a white-noise kernel with the given variance.
func NewWhite(variance float64) (*White, error) {
	c, err := newCommon("white", []string{"variance"}, []float64{variance}, nil)
	if err != nil {
		return nil, err
	}
	return &White{c}, nil
}

// White implements Kernel: the white variance.
func (k *White) White() float64 { return k.p[0] }

// K implements Kernel: variance·I when x2 == nil, zero otherwise.
func (k *White) K(dst *mat.Dense, x1, x2 mat.Matrix) {
	a, b, sym := inputs(k.name, 0, x1, x2)
	k.addK(prepDst(dst, a.rows, b.rows), a, b, sym)
}

func (k *White) addK(dst, a, _ raw, sym bool) {
	if !sym {
		return
	}
	for i := 0; i < a.rows; i++ {
		dst.data[i*dst.str+i] += k.p[0]
	}
}

// Diag implements Kernel.
func (k *White) Diag(dst []float64, x mat.Matrix) {
	k.diagInput(x, len(dst))
	for i := range dst {
		dst[i] = k.p[0]
	}
}

// Grad implements Kernel: the trace of dK when x2 == nil, nothing otherwise.
func (k *White) Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	a, b, sym := inputs(k.name, 0, x1, x2)
	g := gradInput(k.name, dK, a, b)
	if !sym {
		return
	}
	for i := 0; i < g.rows; i++ {
		dst[0] += g.data[i*g.str+i]
	}
}

// GradDiag implements Kernel.
func (k *White) GradDiag(dst []float64, x mat.Matrix, d []float64) {
	k.diagInput(x, len(d))
	for _, v := range d {
		dst[0] += v
	}
}
