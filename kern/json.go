package kern

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/ivmlab/ivm/param"
)

// jsonSum is the JSON form of a Sum:
//
//	{"dim": 2, "transform": "softplus",
//	 "parts": [{"type": "rbfard", "gamma": 1, "variance": 1,
//	            "scales": [0.5, 0.25], "groups": [1, 2]},
//	           {"type": "linard", "variance": 1, "scales": [0.5, 0.25], "groups": [1, 2]},
//	           {"type": "white", "variance": 0.1353352832366127}],
//	 "ties": [["rbfard.scale1", "linard.scale1"], ["rbfard.scale2", "linard.scale2"]]}
type jsonSum struct {
	Dim       int                          `json:"dim"`
	Transform string                       `json:"transform"`
	Parts     []map[string]json.RawMessage `json:"parts"`
	Ties      [][]string                   `json:"ties,omitempty"`
}

// MarshalJSON writes the sum as a JSON object with the input dimension ("dim"), the
// positive transform's name ("transform"), the components ("parts", each with its "type",
// its natural parameters by name and, for ARD kernels, "scales" (one value per scale)
// and "groups" (the 1-based scale of every input dimension)), and the ties ("ties", lists
// of parameter references as in FreeNames, omitted without ties). Ties are explicit: the
// decoder applies no default sharing. Values of tied slots are written as the tie's first
// slot's value. It refuses NaN and Inf.
func (s *Sum) MarshalJSON() ([]byte, error) {
	nat := make([]float64, s.NumParams())
	s.Params(nat)
	for i, f := range s.free {
		nat[i] = nat[s.first[f]]
	}
	if err := checkFinite("kernel parameter", nat); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"dim":%d,"transform":%q,"parts":[`, s.dim, s.pos.Name())
	for p, k := range s.parts {
		if _, ok := kernelTypes[k.Name()]; !ok {
			return nil, fmt.Errorf("kern: cannot encode component %q: not a kernel of this package",
				k.Name())
		}
		if p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":%q`, k.Name())
		names, vals := k.ParamNames(), nat[s.off[p]:s.off[p+1]]
		nb := len(names)
		a, isARD := k.(ARD)
		if isARD {
			nb -= a.NumScales()
		}
		for q := 0; q < nb; q++ {
			fmt.Fprintf(&b, `,%q:%s`, names[q], fmtFloat(vals[q]))
		}
		if isARD {
			b.WriteString(`,"scales":[`)
			for g, v := range vals[nb:] {
				if g > 0 {
					b.WriteByte(',')
				}
				b.WriteString(fmtFloat(v))
			}
			b.WriteString(`],"groups":[`)
			for d, g := range a.Groups() {
				if d > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(g + 1))
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if ties := s.Ties(); len(ties) > 0 {
		refs := make([][]string, len(ties))
		for n, g := range ties {
			for _, t := range g {
				i, _ := s.slot(t)
				refs[n] = append(refs[n], s.ref(i))
			}
		}
		t, err := json.Marshal(refs)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"ties":`)
		b.Write(t)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a sum written by MarshalJSON. Parameters missing from a component
// take their defaults (as in Parse); unknown types and keys, out-of-range values, tied
// slots with different values and groups that do not match "dim" are errors.
func (s *Sum) UnmarshalJSON(data []byte) error {
	var j jsonSum
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("kern: decoding kernel: %v", err)
	}
	if j.Transform != "softplus" && j.Transform != "exp" {
		return fmt.Errorf("kern: decoding kernel: transform %q: want softplus or exp", j.Transform)
	}
	if len(j.Parts) == 0 {
		return fmt.Errorf("kern: decoding kernel: no parts")
	}
	parts := make([]Kernel, len(j.Parts))
	for p, m := range j.Parts {
		k, err := decodePart(m, j.Dim)
		if err != nil {
			return fmt.Errorf("kern: decoding kernel part %d: %v", p+1, err)
		}
		parts[p] = k
	}
	d := NewSum(parts...)
	d.dim = j.Dim
	if j.Transform == "exp" {
		d.pos = param.Exp{}
	}
	for _, refs := range j.Ties {
		slots := make([]Slot, len(refs))
		for n, r := range refs {
			t, err := d.resolve(r)
			if err != nil {
				return fmt.Errorf("kern: decoding kernel ties: %v", err)
			}
			slots[n] = t
			if n > 0 {
				i0, _ := d.slot(slots[0])
				i, _ := d.slot(t)
				if d.natural(i) != d.natural(i0) {
					return fmt.Errorf(
						"kern: decoding kernel ties: %s = %v and %s = %v are tied but differ",
						refs[0], d.natural(i0), r, d.natural(i))
				}
			}
		}
		if err := d.Tie(slots...); err != nil {
			return fmt.Errorf("kern: decoding kernel ties: %v", err)
		}
	}
	*s = *d
	return nil
}

// decodePart builds one component from its JSON object.
func decodePart(m map[string]json.RawMessage, dim int) (Kernel, error) {
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil {
		return nil, fmt.Errorf("missing or bad \"type\"")
	}
	info, ok := kernelTypes[typ]
	if !ok {
		return nil, fmt.Errorf("unknown kernel %q (want one of %s)", typ, typeNames())
	}
	base := slices.Clone(info.defaults)
	var scales []float64
	var groups []int
	for key, raw := range m {
		var err error
		switch i := slices.Index(info.params, key); {
		case key == "type":
		case i >= 0:
			err = json.Unmarshal(raw, &base[i])
		case info.ard && key == "scales":
			err = json.Unmarshal(raw, &scales)
		case info.ard && key == "groups":
			err = json.Unmarshal(raw, &groups)
		default:
			return nil, fmt.Errorf("%s has no key %q", typ, key)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", typ, key, err)
		}
	}
	if info.ard {
		if groups == nil {
			g, err := ContiguousGroups(dim, dim)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", typ, err)
			}
			groups = g
		} else {
			if len(groups) == 0 || len(groups) != dim {
				return nil, fmt.Errorf("%s: groups has %d entries, dim is %d",
					typ, len(groups), dim)
			}
			for d := range groups {
				groups[d]--
			}
		}
		if scales == nil {
			scales = make([]float64, slices.Max(groups)+1)
			for g := range scales {
				scales[g] = DefaultScale
			}
		}
	}
	return newKernel(typ, base, scales, groups)
}
