package kern

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm/param"
)

// parser reads a kernel spec; pos is a byte offset into src.
type parser struct {
	src string
	pos int
}

// errorf returns an error that quotes the spec and gives the byte offset of the problem.
func (p *parser) errorf(at int, format string, args ...any) error {
	return fmt.Errorf("kern: spec %q at offset %d: %s", p.src, at, fmt.Sprintf(format, args...))
}

func (p *parser) skip() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

// peek returns the next byte, or 0 at the end.
func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) expect(c byte) error {
	if p.peek() != c {
		if p.pos >= len(p.src) {
			return p.errorf(p.pos, "want %q, got the end of the spec", c)
		}
		return p.errorf(p.pos, "want %q, got %q", c, p.src[p.pos])
	}
	p.pos++
	return nil
}

func isWordByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' ||
		!first && '0' <= c && c <= '9'
}

// ident reads a word ([A-Za-z_][A-Za-z0-9_]*); "" when there is none.
func (p *parser) ident() string {
	start := p.pos
	for p.pos < len(p.src) && isWordByte(p.src[p.pos], p.pos == start) {
		p.pos++
	}
	return p.src[start:p.pos]
}

// token reads a scalar value: a run of letters, digits and . + - _.
func (p *parser) token() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !isWordByte(c, false) && c != '.' && c != '+' && c != '-' {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

// value is an argument value: a scalar token or a list of them.
type value struct {
	at     int
	text   string
	isList bool
	list   []string
	listAt []int
}

func (p *parser) value() (value, error) {
	p.skip()
	v := value{at: p.pos}
	if p.peek() != '[' {
		v.text = p.token()
		if v.text == "" {
			return v, p.errorf(p.pos, "missing value")
		}
		return v, nil
	}
	p.pos++
	v.isList = true
	for {
		p.skip()
		at := p.pos
		t := p.token()
		if t == "" {
			return v, p.errorf(at, "missing list element")
		}
		v.list, v.listAt = append(v.list, t), append(v.listAt, at)
		p.skip()
		if p.peek() == ']' {
			p.pos++
			return v, nil
		}
		if err := p.expect(','); err != nil {
			return v, err
		}
	}
}

// component is one parsed term of a spec.
type component struct {
	name  string
	at    int
	args  map[string]value
	order []string // argument names in the order written
}

// components reads component { "+" component }, stopping at ';' or the end.
func (p *parser) components() ([]*component, error) {
	var out []*component
	for {
		p.skip()
		c := &component{at: p.pos, args: map[string]value{}}
		c.name = p.ident()
		if c.name == "" {
			if p.pos >= len(p.src) {
				return nil, p.errorf(p.pos, "want a kernel type (%s), got the end of the spec",
					typeNames())
			}
			return nil, p.errorf(p.pos, "want a kernel type (%s), got %q",
				typeNames(), p.src[p.pos])
		}
		if _, ok := kernelTypes[c.name]; !ok {
			return nil, p.errorf(c.at, "unknown kernel %q (want one of %s)", c.name, typeNames())
		}
		p.skip()
		if p.peek() == '(' {
			p.pos++
			if err := p.args(c); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
		p.skip()
		if p.peek() != '+' {
			if p.pos < len(p.src) && p.peek() != ';' {
				return nil, p.errorf(p.pos, "want '+', ';' or the end of the spec, got %q",
					p.src[p.pos])
			}
			return out, nil
		}
		p.pos++
	}
}

// args reads [ arg { "," arg } ] ")" after a component's "(".
func (p *parser) args(c *component) error {
	p.skip()
	if p.peek() == ')' {
		p.pos++
		return nil
	}
	for {
		p.skip()
		at := p.pos
		key := p.ident()
		if key == "" {
			if info, ok := kernelTypes[c.name]; ok && len(info.params) > 0 {
				return p.errorf(at, "%s: arguments are named, e.g. %s(%s=1) (%s takes %s)",
					c.name, c.name, info.params[0], c.name, strings.Join(info.params, ", "))
			}
			return p.errorf(at, "%s: want a parameter name", c.name)
		}
		if _, dup := c.args[key]; dup {
			return p.errorf(at, "%s: %s given twice", c.name, key)
		}
		p.skip()
		if err := p.expect('='); err != nil {
			return err
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		v.at = at
		c.args[key] = v
		c.order = append(c.order, key)
		p.skip()
		if p.peek() == ')' {
			p.pos++
			return nil
		}
		if err := p.expect(','); err != nil {
			return err
		}
	}
}

// ref is a parameter reference in a tie clause.
type ref struct {
	at   int
	text string
}

// tieClause reads "(" ref "," ref { "," ref } ")" after "tie".
func (p *parser) tieClause() ([]ref, error) {
	p.skip()
	if err := p.expect('('); err != nil {
		return nil, err
	}
	var refs []ref
	for {
		p.skip()
		r := ref{at: p.pos}
		typ := p.ident()
		if typ == "" {
			return nil, p.errorf(r.at, "want a parameter reference such as rbf.variance")
		}
		if p.peek() == '#' {
			p.pos++
			start := p.pos
			for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
				p.pos++
			}
			if start == p.pos {
				return nil, p.errorf(start, "want a component position after '#'")
			}
		}
		if err := p.expect('.'); err != nil {
			return nil, err
		}
		if p.ident() == "" {
			return nil, p.errorf(p.pos, "want a parameter name after '.'")
		}
		r.text = p.src[r.at:p.pos]
		refs = append(refs, r)
		p.skip()
		if p.peek() == ')' {
			p.pos++
			break
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
	if len(refs) < 2 {
		return nil, p.errorf(refs[0].at, "tie needs at least two parameters")
	}
	return refs, nil
}

// number parses a scalar value of the given kind and checks its range.
func (p *parser) number(c *component, key string, text string, at int, kind param.Kind) (float64,
	error) {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, p.errorf(at, "%s: %s: bad number %q", c.name, key, text)
	}
	if err := checkValue(kind, v); err != nil {
		return 0, p.errorf(at, "%s: %s: %v", c.name, key, err)
	}
	return v, nil
}

// build makes the kernel of a parsed component. For an ARD component it also returns its
// explicit scales (nil when defaulted) and whether it shares its scales.
func (c *component) build(p *parser, dim int) (k Kernel, scales []float64, share bool, err error) {
	info := kernelTypes[c.name]
	base := slices.Clone(info.defaults)
	for _, key := range c.order {
		v := c.args[key]
		i := slices.Index(info.params, key)
		if i < 0 {
			if info.ard && isARDArg(key) {
				continue
			}
			want := slices.Clone(info.params)
			if info.ard {
				want = append(want, "scales", "scaleK", "groups", "tie")
			}
			return nil, nil, false, p.errorf(v.at, "%s has no parameter %q (want %s)", c.name, key,
				strings.Join(want, ", "))
		}
		if v.isList {
			return nil, nil, false, p.errorf(v.at, "%s: %s takes one number", c.name, key)
		}
		if base[i], err = p.number(c, key, v.text, v.at, param.Positive); err != nil {
			return nil, nil, false, err
		}
	}
	if !info.ard {
		k, err = newKernel(c.name, base, nil, nil)
		if err != nil {
			return nil, nil, false, p.errorf(c.at, "%s", strings.TrimPrefix(err.Error(), "kern: "))
		}
		return k, nil, false, nil
	}
	if dim < 1 {
		return nil, nil, false, p.errorf(c.at, "%s needs the input dimension (got %d)", c.name, dim)
	}
	groups, err := c.groups(p, dim)
	if err != nil {
		return nil, nil, false, err
	}
	ng := slices.Max(groups) + 1
	scales, err = c.scales(p, ng)
	if err != nil {
		return nil, nil, false, err
	}
	all := scales
	if all == nil {
		all = make([]float64, ng)
		for g := range all {
			all[g] = DefaultScale
		}
	}
	share = true
	if v, ok := c.args["tie"]; ok {
		switch {
		case !v.isList && v.text == "none":
			share = false
		case !v.isList && v.text == "shared":
		default:
			return nil, nil, false, p.errorf(v.at, "%s: tie must be none or shared", c.name)
		}
	}
	k, err = newKernel(c.name, base, all, groups)
	if err != nil {
		return nil, nil, false, p.errorf(c.at, "%s", strings.TrimPrefix(err.Error(), "kern: "))
	}
	return k, scales, share, nil
}

// isARDArg reports whether key is one of the extra arguments of ARD components.
func isARDArg(key string) bool {
	switch key {
	case "scales", "groups", "tie":
		return true
	}
	if n, ok := strings.CutPrefix(key, "scale"); ok {
		g, err := strconv.Atoi(n)
		return err == nil && strconv.Itoa(g) == n
	}
	return false
}

// groups returns the 0-based grouping of an ARD component for dim inputs.
func (c *component) groups(p *parser, dim int) ([]int, error) {
	v, ok := c.args["groups"]
	if !ok {
		return ContiguousGroups(dim, dim)
	}
	if !v.isList {
		g, err := strconv.Atoi(v.text)
		if err != nil {
			return nil, p.errorf(v.at, "%s: groups: want a number of groups or a list, got %q",
				c.name, v.text)
		}
		out, err := ContiguousGroups(dim, g)
		if err != nil {
			return nil, p.errorf(v.at, "%s: groups: %s", c.name,
				strings.TrimPrefix(err.Error(), "kern: "))
		}
		return out, nil
	}
	if len(v.list) != dim {
		return nil, p.errorf(v.at, "%s: groups lists %d dimensions, the input dimension is %d",
			c.name, len(v.list), dim)
	}
	out := make([]int, dim)
	for d, t := range v.list {
		g, err := strconv.Atoi(t)
		if err != nil || g < 1 || g > dim {
			return nil, p.errorf(v.listAt[d], "%s: groups: want a scale number in 1…%d, got %q",
				c.name, dim, t)
		}
		out[d] = g - 1
	}
	return out, nil
}

// scales returns the explicit scales of an ARD component with ng scales, nil if none.
func (c *component) scales(p *parser, ng int) ([]float64, error) {
	var out []float64
	if v, ok := c.args["scales"]; ok {
		out = make([]float64, ng)
		if v.isList {
			if len(v.list) != ng {
				return nil, p.errorf(v.at, "%s: scales lists %d values for %d scales",
					c.name, len(v.list), ng)
			}
			for g, t := range v.list {
				x, err := p.number(c, fmt.Sprintf("scale%d", g+1), t, v.listAt[g], param.Unit)
				if err != nil {
					return nil, err
				}
				out[g] = x
			}
		} else {
			x, err := p.number(c, "scales", v.text, v.at, param.Unit)
			if err != nil {
				return nil, err
			}
			for g := range out {
				out[g] = x
			}
		}
	}
	for _, key := range c.order {
		v := c.args[key]
		n, ok := strings.CutPrefix(key, "scale")
		if !ok || n == "s" {
			continue
		}
		if _, has := c.args["scales"]; has {
			return nil, p.errorf(v.at, "%s: give either scales or %s, not both", c.name, key)
		}
		g, _ := strconv.Atoi(n)
		if g < 1 || g > ng {
			return nil, p.errorf(v.at, "%s has %d scales, no %s", c.name, ng, key)
		}
		if v.isList {
			return nil, p.errorf(v.at, "%s: %s takes one number", c.name, key)
		}
		x, err := p.number(c, key, v.text, v.at, param.Unit)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]float64, ng)
			for i := range out {
				out[i] = math.NaN() // filled with the default below
			}
		}
		out[g-1] = x
	}
	for g, x := range out {
		if math.IsNaN(x) {
			out[g] = DefaultScale
		}
	}
	return out, nil
}
