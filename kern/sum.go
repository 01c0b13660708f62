package kern

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/param"
)

// Slot names one natural parameter of a Sum: parameter Param (0-based, in the order of
// ParamNames) of component Part (0-based).
type Slot struct{ Part, Param int }

// Sum is a kernel that adds its components (IVM paper §4: sums of positive definite
// kernels are positive definite), and the owner of the flat vector of free parameters
// that optimisers see.
//
// As a Kernel its parameters are the concatenation of its components' natural parameters,
// every slot of a tie included; SetParams does not enforce ties.
//
// The free parameters are the natural ones in transformed, unconstrained space: positive
// parameters through Softplus (the papers; SetPositiveTransform switches to the reference
// toolbox's Exp), input scales through Sigmoid, real parameters through Identity. Tied
// slots share one free parameter. Free parameters are numbered in the order of the first
// slot of each, slots being ordered by component and then by parameter.
//
// Free parameters are named "<component>.<parameter>", for example "rbf.gamma" or
// "rbfard.scale3"; when several components have the same name the component is written
// "<name>#<k>" with k its 1-based position in the sum ("rbf#3.gamma"). A tied free
// parameter takes the name of its first slot.
type Sum struct {
	parts []Kernel
	off   []int        // off[p]: first slot of part p; off[len(parts)] = number of slots
	kinds []param.Kind // kind of every slot
	free  []int        // free parameter of every slot
	first []int        // first slot of every free parameter
	pos   param.Transform
	dim   int
}

// NewSum returns the sum of the given kernels, with no ties and softplus for positive
// parameters. Its input dimension is that of its first ARD component, 0 (any) without
// one.
func NewSum(parts ...Kernel) *Sum {
	s := &Sum{parts: append([]Kernel(nil), parts...), pos: param.Softplus{}}
	s.off = make([]int, len(parts)+1)
	for p, k := range parts {
		s.off[p+1] = s.off[p] + k.NumParams()
		s.kinds = append(s.kinds, k.ParamKinds()...)
		if a, ok := k.(ARD); ok && s.dim == 0 {
			s.dim = a.Dim()
		}
	}
	s.free = make([]int, s.off[len(parts)])
	for i := range s.free {
		s.free[i] = i
	}
	s.renumber()
	return s
}

// Parts returns the components of the sum. They are the sum's own kernels: setting their
// parameters directly bypasses ties.
func (s *Sum) Parts() []Kernel { return append([]Kernel(nil), s.parts...) }

// Dim is the input dimension the sum was built for (Parse's dim, or that of its ARD
// components), 0 when any dimension will do.
func (s *Sum) Dim() int { return s.dim }

// SetPositiveTransform sets the transform of positive parameters: param.Softplus{} (the
// default, as in the papers) or param.Exp{} (the reference toolbox). nil restores Softplus.
func (s *Sum) SetPositiveTransform(t param.Transform) {
	if t == nil {
		t = param.Softplus{}
	}
	s.pos = t
}

// PositiveTransform returns the transform of positive parameters.
func (s *Sum) PositiveTransform() param.Transform { return s.pos }

// slot returns the flat index of a Slot, or an error when it does not exist.
func (s *Sum) slot(t Slot) (int, error) {
	if t.Part < 0 || t.Part >= len(s.parts) {
		return 0, fmt.Errorf("kern: slot %v: the sum has %d components", t, len(s.parts))
	}
	if n := s.off[t.Part+1] - s.off[t.Part]; t.Param < 0 || t.Param >= n {
		return 0, fmt.Errorf("kern: slot %v: component %s has %d parameters",
			t, s.partRef(t.Part), n)
	}
	return s.off[t.Part] + t.Param, nil
}

// slotOf is the inverse of slot.
func (s *Sum) slotOf(i int) Slot {
	p := 0
	for s.off[p+1] <= i {
		p++
	}
	return Slot{p, i - s.off[p]}
}

// renumber numbers the free parameters by first slot.
func (s *Sum) renumber() {
	m := map[int]int{}
	s.first = s.first[:0]
	for i, f := range s.free {
		n, ok := m[f]
		if !ok {
			n = len(s.first)
			m[f] = n
			s.first = append(s.first, i)
		}
		s.free[i] = n
	}
}

// Tie makes the given slots, and every slot already tied to one of them, share one free
// parameter. All must be of the same kind; every slot of the tie takes the natural value
// of the first slot given.
func (s *Sum) Tie(slots ...Slot) error {
	if len(slots) == 0 {
		return nil
	}
	idx := make([]int, len(slots))
	for n, t := range slots {
		i, err := s.slot(t)
		if err != nil {
			return err
		}
		if n > 0 && s.kinds[i] != s.kinds[idx[0]] {
			return fmt.Errorf("kern: cannot tie %s to %s: different constraints",
				s.ref(i), s.ref(idx[0]))
		}
		idx[n] = i
	}
	v := s.natural(idx[0])
	merge := map[int]bool{}
	for _, i := range idx {
		merge[s.free[i]] = true
	}
	target := s.free[idx[0]]
	changed := map[int]bool{}
	for i, f := range s.free {
		if merge[f] {
			s.free[i] = target
			changed[s.slotOf(i).Part] = true
		}
	}
	s.renumber()
	// Give every slot of the tie the first slot's value.
	for p := range s.parts {
		if !changed[p] {
			continue
		}
		buf := make([]float64, s.off[p+1]-s.off[p])
		s.parts[p].Params(buf)
		for q := range buf {
			if s.free[s.off[p]+q] == s.free[idx[0]] {
				buf[q] = v
			}
		}
		if err := s.parts[p].SetParams(buf); err != nil {
			return err
		}
	}
	return nil
}

// Ties returns the groups of slots that share a free parameter (groups of two or more),
// in the order of their free parameters.
func (s *Sum) Ties() [][]Slot {
	groups := make([][]Slot, len(s.first))
	for i, f := range s.free {
		groups[f] = append(groups[f], s.slotOf(i))
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// TieScales ties the input scales of all ARD components: scale g of every ARD component
// becomes one free parameter (the papers share the input scales of rbfard and linard).
// The components must have the same grouping of input dimensions.
func (s *Sum) TieScales() error {
	var ards []int
	for p, k := range s.parts {
		if _, ok := k.(ARD); ok {
			ards = append(ards, p)
		}
	}
	return s.tieScales(ards)
}

// tieScales ties the scales of the given ARD components.
func (s *Sum) tieScales(parts []int) error {
	if len(parts) < 2 {
		return nil
	}
	a0 := s.parts[parts[0]].(ARD)
	g0, n0 := a0.Groups(), a0.NumParams()-a0.NumScales()
	for _, p := range parts[1:] {
		a := s.parts[p].(ARD)
		if !slices.Equal(a.Groups(), g0) {
			return fmt.Errorf(
				"kern: cannot share the input scales of %s and %s: their groupings differ "+
					"(use tie=none on one of them)",
				s.partRef(parts[0]), s.partRef(p))
		}
	}
	for g := 0; g < a0.NumScales(); g++ {
		slots := []Slot{{parts[0], n0 + g}}
		for _, p := range parts[1:] {
			a := s.parts[p].(ARD)
			slots = append(slots, Slot{p, a.NumParams() - a.NumScales() + g})
		}
		if err := s.Tie(slots...); err != nil {
			return err
		}
	}
	return nil
}

// partRef is the name of part p in free-parameter names and specs.
func (s *Sum) partRef(p int) string {
	name := s.parts[p].Name()
	for q, k := range s.parts {
		if q != p && k.Name() == name {
			return fmt.Sprintf("%s#%d", name, p+1)
		}
	}
	return name
}

// ref is the name of flat slot i.
func (s *Sum) ref(i int) string {
	t := s.slotOf(i)
	return s.partRef(t.Part) + "." + s.parts[t.Part].ParamNames()[t.Param]
}

// natural returns the natural value of flat slot i.
func (s *Sum) natural(i int) float64 {
	t := s.slotOf(i)
	buf := make([]float64, s.parts[t.Part].NumParams())
	s.parts[t.Part].Params(buf)
	return buf[t.Param]
}

// NumFree is the number of free parameters.
func (s *Sum) NumFree() int { return len(s.first) }

// FreeNames returns the names of the free parameters, for example "rbf.gamma".
func (s *Sum) FreeNames() []string {
	out := make([]string, len(s.first))
	for f, i := range s.first {
		out[f] = s.ref(i)
	}
	return out
}

// FreeSlots returns the slots that free parameter f stands for.
func (s *Sum) FreeSlots(f int) []Slot {
	var out []Slot
	for i, g := range s.free {
		if g == f {
			out = append(out, s.slotOf(i))
		}
	}
	return out
}

// transform returns the transform of flat slot i.
func (s *Sum) transform(i int) param.Transform { return param.Default(s.kinds[i], s.pos) }

// FreeTransform returns the transform of free parameter f.
func (s *Sum) FreeTransform(f int) param.Transform { return s.transform(s.first[f]) }

// Free writes the free parameters (transformed values of the natural parameters; for a
// tie, of its first slot) into dst (len NumFree).
func (s *Sum) Free(dst []float64) {
	if len(dst) != len(s.first) {
		panic(fmt.Sprintf("kern: Free needs %d values, got %d", len(s.first), len(dst)))
	}
	nat := make([]float64, s.NumParams())
	s.Params(nat)
	for f, i := range s.first {
		x, err := s.transform(i).Inverse(nat[i])
		if err != nil {
			panic(fmt.Sprintf("kern: %s: %v", s.ref(i), err)) // parameters are validated on entry
		}
		dst[f] = x
	}
}

// SetFree sets all natural parameters from the free parameters src (len NumFree): every
// slot of a tie gets the same value. Nothing is changed when a transformed value is
// outside its parameter's range (softplus underflowing to 0, the sigmoid rounding to 1);
// the error names the parameter.
func (s *Sum) SetFree(src []float64) error {
	if len(src) != len(s.first) {
		return fmt.Errorf("kern: SetFree got %d values, want %d", len(src), len(s.first))
	}
	nat := make([]float64, s.NumParams())
	for i, f := range s.free {
		nat[i] = s.transform(i).Forward(src[f])
		if err := checkValue(s.kinds[i], nat[i]); err != nil {
			return fmt.Errorf("kern: free parameter %s = %v: natural %v",
				s.ref(s.first[f]), src[f], err)
		}
	}
	return s.SetParams(nat)
}

// ChainFree writes into dst (len NumFree) the gradient with respect to the free
// parameters of a function whose gradient with respect to the natural parameters is nat
// (len NumParams): Σ over the slots of each free parameter of nat × the transform's
// factor. Use it for objectives and priors written in natural parameters.
func (s *Sum) ChainFree(dst, nat []float64) {
	if len(dst) != len(s.first) || len(nat) != len(s.free) {
		panic(fmt.Sprintf("kern: ChainFree needs %d and %d values, got %d and %d", len(s.first),
			len(s.free), len(dst), len(nat)))
	}
	val := make([]float64, len(s.free))
	s.Params(val)
	clear(dst)
	for i, f := range s.free {
		dst[f] += nat[i] * s.transform(i).Factor(val[i])
	}
}

// GradFree writes (overwriting dst, len NumFree) the gradient of f with respect to the
// free parameters, given dK = ∂f/∂K for K as K(·, x1, x2) computes it.
func (s *Sum) GradFree(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	nat := make([]float64, len(s.free))
	s.Grad(nat, x1, x2, dK)
	s.ChainFree(dst, nat)
}

// GradFreeDiag writes (overwriting dst, len NumFree) the gradient of f with respect to
// the free parameters, given d = ∂f/∂k(x_i, x_i).
func (s *Sum) GradFreeDiag(dst []float64, x mat.Matrix, d []float64) {
	nat := make([]float64, len(s.free))
	s.GradDiag(nat, x, d)
	s.ChainFree(dst, nat)
}

// Name implements Kernel: "sum".
func (s *Sum) Name() string { return "sum" }

// NumParams implements Kernel: the number of natural parameter slots of all components.
func (s *Sum) NumParams() int { return len(s.free) }

// ParamNames implements Kernel: "<component>.<parameter>" for every slot.
func (s *Sum) ParamNames() []string {
	out := make([]string, len(s.free))
	for i := range out {
		out[i] = s.ref(i)
	}
	return out
}

// ParamKinds implements Kernel.
func (s *Sum) ParamKinds() []param.Kind { return append([]param.Kind(nil), s.kinds...) }

// Params implements Kernel.
func (s *Sum) Params(dst []float64) {
	for p, k := range s.parts {
		k.Params(dst[s.off[p]:s.off[p+1]])
	}
}

// SetParams implements Kernel. All values are checked before any is set.
func (s *Sum) SetParams(src []float64) error {
	if len(src) != len(s.free) {
		return fmt.Errorf("kern: sum: got %d parameters, want %d", len(src), len(s.free))
	}
	for i, v := range src {
		if err := checkValue(s.kinds[i], v); err != nil {
			return fmt.Errorf("kern: parameter %s: %v", s.ref(i), err)
		}
	}
	for p, k := range s.parts {
		if err := k.SetParams(src[s.off[p]:s.off[p+1]]); err != nil {
			return err
		}
	}
	return nil
}

// adder is implemented by the kernels of this package: addK adds K to dst.
type adder interface {
	addK(dst, a, b raw, sym bool)
}

// checkDim panics when x does not have the sum's input dimension.
func (s *Sum) checkDim(x mat.Matrix) {
	if s.dim > 0 && x != nil {
		if _, c := x.Dims(); c != s.dim {
			panic(fmt.Sprintf("kern: inputs have %d columns, kernel has input dimension %d",
				c, s.dim))
		}
	}
}

// K implements Kernel: the sum of the components' K.
func (s *Sum) K(dst *mat.Dense, x1, x2 mat.Matrix) {
	s.checkDim(x1)
	a, b, sym := inputs("sum", 0, x1, x2)
	d := prepDst(dst, a.rows, b.rows)
	var tmp *mat.Dense
	for _, k := range s.parts {
		if ad, ok := k.(adder); ok {
			if ar, isARD := k.(ARD); isARD && ar.Dim() != a.cols {
				panic(fmt.Sprintf("kern: %s: inputs have %d columns, kernel has input dimension %d",
					k.Name(), a.cols, ar.Dim()))
			}
			ad.addK(d, a, b, sym)
			continue
		}
		if tmp == nil {
			tmp = mat.NewDense(a.rows, b.rows, nil)
		}
		tmp.Zero()
		k.K(tmp, x1, x2)
		dst.Add(dst, tmp)
	}
}

// Diag implements Kernel.
func (s *Sum) Diag(dst []float64, x mat.Matrix) {
	s.checkDim(x)
	tmp := make([]float64, len(dst))
	clear(dst)
	for _, k := range s.parts {
		k.Diag(tmp, x)
		for i, v := range tmp {
			dst[i] += v
		}
	}
}

// White implements Kernel: the sum of the components' white variances.
func (s *Sum) White() float64 {
	w := 0.0
	for _, k := range s.parts {
		w += k.White()
	}
	return w
}

// Grad implements Kernel: every component adds to its own slots of dst.
func (s *Sum) Grad(dst []float64, x1, x2 mat.Matrix, dK mat.Matrix) {
	s.checkDim(x1)
	for p, k := range s.parts {
		k.Grad(dst[s.off[p]:s.off[p+1]], x1, x2, dK)
	}
}

// GradDiag implements Kernel.
func (s *Sum) GradDiag(dst []float64, x mat.Matrix, d []float64) {
	s.checkDim(x)
	for p, k := range s.parts {
		k.GradDiag(dst[s.off[p]:s.off[p+1]], x, d)
	}
}
