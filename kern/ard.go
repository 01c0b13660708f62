package kern

import (
	"fmt"
	"slices"

	"github.com/ivmlab/ivm/param"
)

// ARD is implemented by the automatic relevance determination kernels linard, rbfard and
// mlpard. They replace every inner product xᵀx' of their base kernel by xᵀ diag(α) x'
// (IVM paper §4). The input scales α lie in (0, 1); several input dimensions may share
// one scale (grouping), so a kernel over D inputs has G ≤ D scales. The scales are the
// last G parameters, named scale1 … scaleG.
type ARD interface {
	Kernel
	// Dim is the input dimension D: the number of columns the kernel accepts.
	Dim() int
	// NumScales is the number of input scales G.
	NumScales() int
	// Groups returns, for every input dimension d, the 0-based index of its scale.
	Groups() []int
}

// ard holds the input scales of an ARD kernel.
type ard struct {
	scales []float64 // α_g, len G
	group  []int     // group[d]: index of the scale of input dimension d, len D
	w      []float64 // w[d] = scales[group[d]], len D
}

// newARD validates scales and groups. groups == nil means one scale per input dimension
// (D = len(scales)).
func newARD(kernel string, scales []float64, groups []int) (*ard, error) {
	if len(scales) == 0 {
		return nil, fmt.Errorf("kern: %s: needs at least one input scale", kernel)
	}
	if groups == nil {
		groups = make([]int, len(scales))
		for d := range groups {
			groups[d] = d
		}
	}
	used := make([]bool, len(scales))
	for d, g := range groups {
		if g < 0 || g >= len(scales) {
			return nil, fmt.Errorf("kern: %s: input dimension %d maps to scale index %d, want 0…%d",
				kernel,
				d, g, len(scales)-1)
		}
		used[g] = true
	}
	for g, u := range used {
		if !u {
			return nil, fmt.Errorf("kern: %s: scale%d is used by no input dimension", kernel, g+1)
		}
	}
	for g, v := range scales {
		if err := checkValue(param.Unit, v); err != nil {
			return nil, fmt.Errorf("kern: %s: parameter scale%d: %v", kernel, g+1, err)
		}
	}
	a := &ard{scales: slices.Clone(scales), group: slices.Clone(groups),
		w: make([]float64, len(groups))}
	a.set(scales)
	return a, nil
}

// set stores validated scales and refreshes the per-dimension weights.
func (a *ard) set(scales []float64) {
	copy(a.scales, scales)
	for d, g := range a.group {
		a.w[d] = a.scales[g]
	}
}

// addGrad adds the per-dimension gradient gw (∂f/∂w_d) to the scale gradients dst (len G).
func (a *ard) addGrad(dst, gw []float64) {
	for d, g := range a.group {
		dst[g] += gw[d]
	}
}

// Dim implements ARD.
func (a *ard) Dim() int { return len(a.group) }

// NumScales implements ARD.
func (a *ard) NumScales() int { return len(a.scales) }

// Groups implements ARD.
func (a *ard) Groups() []int { return slices.Clone(a.group) }

// ContiguousGroups splits dim input dimensions into g contiguous blocks of as equal a size
// as possible (the first dim mod g blocks are one longer) and returns the block index of
// every dimension: the grouping of the spec argument groups=g. USPS digits, for example,
// use ContiguousGroups(256, 16): 16 groups of 16 consecutive pixels.
func ContiguousGroups(dim, g int) ([]int, error) {
	if dim < 1 {
		return nil, fmt.Errorf("kern: input dimension %d must be ≥ 1", dim)
	}
	if g < 1 || g > dim {
		return nil, fmt.Errorf("kern: %d groups for %d input dimensions, want 1…%d", g, dim, dim)
	}
	out := make([]int, dim)
	size, extra := dim/g, dim%g
	d := 0
	for b := 0; b < g; b++ {
		n := size
		if b < extra {
			n++
		}
		for ; n > 0; n-- {
			out[d] = b
			d++
		}
	}
	return out, nil
}

// LinARD is the ARD linear kernel k = variance · xᵀ diag(α) x'.
// Parameters: [variance, scale1, …, scaleG].
type LinARD struct {
	linCore
	*ard
}

// NewLinARD returns a linard kernel. groups maps every input dimension to the 0-based
// index of its scale (len(groups) is the input dimension); nil gives one scale per
// dimension.
func NewLinARD(variance float64, scales []float64, groups []int) (*LinARD, error) {
	a, err := newARD("linard", scales, groups)
	if err != nil {
		return nil, err
	}
	c, err := newCommon("linard", []string{"variance"}, []float64{variance}, a)
	if err != nil {
		return nil, err
	}
	return &LinARD{linCore{c}, a}, nil
}

// RBFARD is the ARD RBF kernel k = variance · exp(−½ γ Σ_d α_d (x_d − x'_d)²), the
// weighted squared distance computed as ‖x‖²_α + ‖x'‖²_α − 2 xᵀ diag(α) x' and
// clamped at 0. Parameters: [gamma, variance, scale1, …, scaleG].
type RBFARD struct {
	rbfCore
	*ard
}

// NewRBFARD returns an rbfard kernel; groups as for NewLinARD.
func NewRBFARD(gamma, variance float64, scales []float64, groups []int) (*RBFARD, error) {
	a, err := newARD("rbfard", scales, groups)
	if err != nil {
		return nil, err
	}
	c, err := newCommon("rbfard", []string{"gamma", "variance"}, []float64{gamma, variance}, a)
	if err != nil {
		return nil, err
	}
	return &RBFARD{rbfCore{c}, a}, nil
}

// MLPARD is the ARD MLP kernel: the mlp kernel with every inner product xᵀx' replaced by
// xᵀ diag(α) x'. Parameters: [weight, bias, variance, scale1, …, scaleG].
type MLPARD struct {
	mlpCore
	*ard
}

// NewMLPARD returns an mlpard kernel; groups as for NewLinARD.
func NewMLPARD(weight, bias, variance float64, scales []float64, groups []int) (*MLPARD, error) {
	a, err := newARD("mlpard", scales, groups)
	if err != nil {
		return nil, err
	}
	c, err := newCommon("mlpard", []string{"weight", "bias", "variance"},
		[]float64{weight, bias, variance}, a)
	if err != nil {
		return nil, err
	}
	return &MLPARD{mlpCore{c}, a}, nil
}
