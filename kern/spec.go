package kern

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm/param"
)

// kernelInfo describes a component type for Parse and the JSON decoder.
type kernelInfo struct {
	params   []string  // base parameter names, in order
	defaults []float64 // their initial values (IVM paper §4)
	ard      bool      // ARD kernel: input scales follow the base parameters
}

var kernelTypes = map[string]kernelInfo{
	"lin": {[]string{"variance"}, []float64{DefaultVariance}, false},
	"rbf": {[]string{"gamma", "variance"}, []float64{DefaultGamma, DefaultVariance}, false},
	"mlp": {
		[]string{"weight", "bias", "variance"},
		[]float64{DefaultWeight, DefaultBias, DefaultVariance}, false},
	"bias":   {[]string{"variance"}, []float64{DefaultBiasVariance}, false},
	"white":  {[]string{"variance"}, []float64{DefaultWhiteVariance}, false},
	"linard": {[]string{"variance"}, []float64{DefaultVariance}, true},
	"rbfard": {[]string{"gamma", "variance"}, []float64{DefaultGamma, DefaultVariance}, true},
	"mlpard": {
		[]string{"weight", "bias", "variance"},
		[]float64{DefaultWeight, DefaultBias, DefaultVariance}, true},
}

// typeNames lists the component types for error messages.
func typeNames() string {
	n := make([]string, 0, len(kernelTypes))
	for k := range kernelTypes {
		n = append(n, k)
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}

// newKernel builds a component from validated-shape values; scales and groups (0-based)
// are used by ARD types only.
func newKernel(name string, p, scales []float64, groups []int) (Kernel, error) {
	switch name {
	case "lin":
		return NewLin(p[0])
	case "rbf":
		return NewRBF(p[0], p[1])
	case "mlp":
		return NewMLP(p[0], p[1], p[2])
	case "bias":
		return NewBias(p[0])
	case "white":
		return NewWhite(p[0])
	case "linard":
		return NewLinARD(p[0], scales, groups)
	case "rbfard":
		return NewRBFARD(p[0], p[1], scales, groups)
	case "mlpard":
		return NewMLPARD(p[0], p[1], p[2], scales, groups)
	}
	return nil, fmt.Errorf("kern: unknown kernel %q (want one of %s)", name, typeNames())
}

// Parse reads a kernel spec for inputs of dimension dim (needed by ARD components; 0 when
// there are none and any dimension will do). The grammar, whitespace allowed between
// tokens:
//
//	spec      = component { "+" component } { ";" clause }
//	component = type [ "(" [ arg { "," arg } ] ")" ]
//	arg       = name "=" value
//	value     = number | word | "[" number { "," number } "]"
//	clause    = "tie" "(" ref "," ref { "," ref } ")" | "transform" "=" ("softplus" | "exp")
//	ref       = type [ "#" k ] "." name
//
// type is lin, rbf, mlp, bias, white, linard, rbfard or mlpard; arg names are the
// natural parameter names (lin: variance; rbf: gamma, variance; mlp: weight, bias,
// variance; bias, white: variance), each optional with the IVM paper's default (lin,
// rbf, mlp variance 1, gamma 1, weight 10, bias 10; bias and white variance e⁻²; scales
// 0.999). Numbers are in natural (untransformed) space and must be finite, positive
// parameters > 0 and scales in (0, 1).
//
// ARD components take further arguments:
//
//   - scales=v sets every input scale to v; scales=[v1,v2,…] gives one value per scale;
//     scaleK=v sets scale K (1-based) alone.
//   - groups=G splits the dim inputs into G contiguous blocks of as equal a size as
//     possible (ContiguousGroups), each with one scale; groups=[g1,…,gD] gives the
//     1-based scale of every input dimension. Without groups every dimension has its own
//     scale.
//   - tie=none keeps the component's scales to itself. By default all ARD components of a
//     spec share their input scales (scale K of each is one free parameter), as in the
//     papers; they must then have the same groups. Explicit scales of sharing components
//     must agree and are given to all of them.
//
// A clause tie(a,b,…) ties the named parameters into one free parameter (the first one's
// value wins); a reference is "<type>.<param>", or "<type>#k.<param>" with k the 1-based
// position of the component in the sum when the type occurs more than once. The clause
// transform=exp stores positive parameters through exp (the reference toolbox) instead of
// softplus (the papers).
//
// Example: "rbfard(gamma=1,variance=1,scales=0.999,groups=16)+linard(groups=16)+white".
func Parse(spec string, dim int) (*Sum, error) {
	p := &parser{src: spec}
	comps, err := p.components()
	if err != nil {
		return nil, err
	}
	var ties [][]ref
	var transform param.Transform = param.Softplus{}
	for p.skip(); p.pos < len(p.src); p.skip() {
		if err := p.expect(';'); err != nil {
			return nil, err
		}
		p.skip()
		at := p.pos
		word := p.ident()
		switch word {
		case "tie":
			refs, err := p.tieClause()
			if err != nil {
				return nil, err
			}
			ties = append(ties, refs)
		case "transform":
			p.skip()
			if err := p.expect('='); err != nil {
				return nil, err
			}
			p.skip()
			at := p.pos
			name := p.ident()
			if name != "softplus" && name != "exp" {
				return nil, p.errorf(at, "transform %q: want softplus or exp", name)
			}
			transform, _ = param.ByName(name)
		default:
			return nil, p.errorf(at, "unknown clause %q (want tie(…) or transform=…)", word)
		}
	}

	parts := make([]Kernel, len(comps))
	var shared []int
	explicit := map[int][]float64{}
	for i, c := range comps {
		k, sc, share, err := c.build(p, dim)
		if err != nil {
			return nil, err
		}
		parts[i] = k
		if share {
			shared = append(shared, i)
			if sc != nil {
				explicit[i] = sc
			}
		}
	}
	s := NewSum(parts...)
	if dim > 0 {
		s.dim = dim
	}
	s.pos = transform
	if err := s.shareScales(p, comps, shared, explicit); err != nil {
		return nil, err
	}
	for _, refs := range ties {
		slots := make([]Slot, len(refs))
		for n, r := range refs {
			if slots[n], err = s.resolve(r.text); err != nil {
				return nil, p.errorf(r.at, "%v", strings.TrimPrefix(err.Error(), "kern: "))
			}
		}
		if err := s.Tie(slots...); err != nil {
			return nil, p.errorf(refs[0].at, "%v", strings.TrimPrefix(err.Error(), "kern: "))
		}
	}
	return s, nil
}

// shareScales gives the sharing ARD components their common explicit scales and ties them.
func (s *Sum) shareScales(p *parser, comps []*component, shared []int,
	explicit map[int][]float64) error {
	if len(shared) < 2 {
		return nil
	}
	g0 := s.parts[shared[0]].(ARD).Groups()
	var want []float64
	wantFrom := -1
	for _, i := range shared {
		if !slices.Equal(s.parts[i].(ARD).Groups(), g0) {
			return p.errorf(comps[i].at,
				"%s shares its input scales with %s but has different groups "+
					"(add tie=none to keep them apart)",
				comps[i].name, comps[shared[0]].name)
		}
		sc, ok := explicit[i]
		if !ok {
			continue
		}
		if want != nil && !slices.Equal(sc, want) {
			return p.errorf(comps[i].at,
				"%s shares its input scales with %s but gives different ones "+
					"(add tie=none to keep them apart)",
				comps[i].name, comps[wantFrom].name)
		}
		want, wantFrom = sc, i
	}
	if want != nil {
		for _, i := range shared {
			k := s.parts[i]
			buf := make([]float64, k.NumParams())
			k.Params(buf)
			copy(buf[len(buf)-len(want):], want)
			if err := k.SetParams(buf); err != nil {
				return err
			}
		}
	}
	return s.tieScales(shared)
}

// resolve finds the slot named by a reference "<type>[#k].<param>".
func (s *Sum) resolve(r string) (Slot, error) {
	dot := strings.LastIndexByte(r, '.')
	part, name := r[:dot], r[dot+1:]
	p := -1
	if h := strings.IndexByte(part, '#'); h >= 0 {
		k, err := strconv.Atoi(part[h+1:])
		if err != nil || k < 1 || k > len(s.parts) || s.parts[k-1].Name() != part[:h] {
			return Slot{}, fmt.Errorf("kern: no component %s in %s", part, s.names())
		}
		p = k - 1
	} else {
		for q, k := range s.parts {
			if k.Name() != part {
				continue
			}
			if p >= 0 {
				return Slot{},
					fmt.Errorf(
						"kern: %s is ambiguous in %s: write %s#k with k the component's position",
						part, s.names(), part)
			}
			p = q
		}
		if p < 0 {
			return Slot{}, fmt.Errorf("kern: no component %s in %s", part, s.names())
		}
	}
	names := s.parts[p].ParamNames()
	q := slices.Index(names, name)
	if q < 0 {
		return Slot{}, fmt.Errorf("kern: %s has no parameter %q (want %s)", part, name,
			strings.Join(names, ", "))
	}
	return Slot{p, q}, nil
}

// names lists the component types of the sum for error messages.
func (s *Sum) names() string {
	n := make([]string, len(s.parts))
	for p, k := range s.parts {
		n[p] = k.Name()
	}
	return strings.Join(n, "+")
}

// String returns a spec that Parse (with the sum's input dimension) reads back into an
// identical sum: every natural parameter is written with strconv.FormatFloat(v, 'g', -1,
// 64), ties as the default ARD sharing, tie=none and tie(…) clauses, and the transform as
// a transform=exp clause when it is not softplus. Values of tied slots are written as
// the value of the tie's first slot. Components from other packages are written as
// type(param=value,…), which Parse reads only if it knows the type.
func (s *Sum) String() string {
	nat := make([]float64, s.NumParams())
	s.Params(nat)
	for i, f := range s.free {
		nat[i] = nat[s.first[f]]
	}
	dset := s.defaultShared()
	var b strings.Builder
	for p, k := range s.parts {
		if p > 0 {
			b.WriteByte('+')
		}
		b.WriteString(k.Name())
		b.WriteByte('(')
		names, vals := k.ParamNames(), nat[s.off[p]:s.off[p+1]]
		nb := len(names)
		a, isARD := k.(ARD)
		if isARD {
			nb -= a.NumScales()
		}
		for q := 0; q < nb; q++ {
			if q > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%s", names[q], fmtFloat(vals[q]))
		}
		if isARD {
			writeARD(&b, a, vals[nb:], !slices.Contains(dset, p))
		}
		b.WriteByte(')')
	}
	for _, g := range s.Ties() {
		if s.impliedTie(g, dset) {
			continue
		}
		b.WriteString(";tie(")
		for n, t := range g {
			if n > 0 {
				b.WriteByte(',')
			}
			i, _ := s.slot(t)
			b.WriteString(s.ref(i))
		}
		b.WriteByte(')')
	}
	if s.pos.Name() != "softplus" {
		b.WriteString(";transform=" + s.pos.Name())
	}
	return b.String()
}

// writeARD writes the scale, groups and tie arguments of an ARD component.
func writeARD(b *strings.Builder, a ARD, scales []float64, none bool) {
	b.WriteString(",scales=")
	if slices.Min(scales) == slices.Max(scales) {
		b.WriteString(fmtFloat(scales[0]))
	} else {
		b.WriteByte('[')
		for g, v := range scales {
			if g > 0 {
				b.WriteByte(',')
			}
			b.WriteString(fmtFloat(v))
		}
		b.WriteByte(']')
	}
	groups := a.Groups()
	if c, _ := ContiguousGroups(len(groups), a.NumScales()); !slices.Equal(c, groups) {
		b.WriteString(",groups=[")
		for d, g := range groups {
			if d > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(g + 1))
		}
		b.WriteByte(']')
	} else if a.NumScales() != len(groups) {
		fmt.Fprintf(b, ",groups=%d", a.NumScales())
	}
	if none {
		b.WriteString(",tie=none")
	}
}

// fmtFloat writes v so that strconv.ParseFloat returns it exactly.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// scaleBlock returns, for ARD part p, the free parameter of each of its scales.
func (s *Sum) scaleBlock(p int) []int {
	a := s.parts[p].(ARD)
	return s.free[s.off[p+1]-a.NumScales() : s.off[p+1]]
}

// defaultShared picks the ARD components String leaves without tie=none: the largest set
// of ARD components (the first on a draw) with the same groups whose scales are all tied
// pairwise. Parse's default sharing of that set reproduces part of the tie structure and
// tie clauses add the rest.
func (s *Sum) defaultShared() []int {
	var best []int
	done := map[int]bool{}
	for p, k := range s.parts {
		a, ok := k.(ARD)
		if !ok || done[p] {
			continue
		}
		class := []int{p}
		for q := p + 1; q < len(s.parts); q++ {
			b, ok := s.parts[q].(ARD)
			if ok && !done[q] && slices.Equal(a.Groups(), b.Groups()) &&
				slices.Equal(s.scaleBlock(p), s.scaleBlock(q)) {
				class = append(class, q)
				done[q] = true
			}
		}
		if len(class) > len(best) {
			best = class
		}
	}
	return best
}

// impliedTie reports whether tie group g is exactly what sharing the scales of dset gives.
func (s *Sum) impliedTie(g []Slot, dset []int) bool {
	if len(dset) < 2 || len(g) != len(dset) {
		return false
	}
	for n, t := range g {
		a, ok := s.parts[t.Part].(ARD)
		if !ok || t.Part != dset[n] {
			return false
		}
		if first := a.NumParams() - a.NumScales(); t.Param < first {
			return false
		}
	}
	return true
}

// checkFinite reports the first NaN or Inf in v.
func checkFinite(what string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("kern: %s[%d] = %v is not finite", what, i, x)
		}
	}
	return nil
}
