package noise

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ByName returns a new noise model of the given type, with default parameters that Init
// replaces: "probit", "gaussian" (σ² = GaussianVariance), "ordinal" or "ncnm" (one
// shared γ).
func ByName(name string) (Model, error) {
	switch name {
	case "probit":
		return NewProbit(), nil
	case "gaussian":
		return NewGaussian(GaussianVariance), nil
	case "ordinal":
		return NewOrdinal(), nil
	case "ncnm":
		return NewNullCategory(), nil
	}
	return nil, fmt.Errorf("noise: unknown noise model %q (want probit, gaussian, ordinal or ncnm)",
		name)
}

// Marshal encodes one of this package's models as a JSON object: its "type" (Name), each
// natural parameter under its ParamNames name, and for the ordinal model the number of
// categories "C"; a Gaussian model's per-point precisions, if any, go under "precision".
// For example {"type":"probit","bias":-0.0903} or
// {"type":"ordinal","C":5,"bias":1.69,"width1":0.333,"width2":0.333,"width3":0.333}.
// Numbers are written in the shortest form that reads back to the same double, so
// Unmarshal(Marshal(m)) reproduces m exactly. NaN and ±Inf, which JSON cannot hold, are an
// error, as is a shared-γ null category model whose GammaNeg and GammaPos differ.
func Marshal(m Model) ([]byte, error) {
	var categories int
	var precision []float64
	switch t := m.(type) {
	case *Probit:
	case *Gaussian:
		precision = t.Precision
	case *Ordinal:
		categories = t.Categories()
	case *NullCategory:
		if !t.Split && t.GammaNeg != t.GammaPos {
			return nil,
				fmt.Errorf(
					"noise: ncnm with a shared gamma has GammaNeg %v ≠ GammaPos %v; "+
						"set Split to keep both",
					t.GammaNeg, t.GammaPos)
		}
	default:
		return nil, fmt.Errorf("noise: cannot encode noise model type %T", m)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	writeJSON(&buf, m.Name())
	if categories > 0 {
		buf.WriteString(`,"C":`)
		writeJSON(&buf, categories)
	}
	vals := make([]float64, m.NumParams())
	m.Params(vals)
	for i, name := range m.ParamNames() {
		if err := finite(m.Name(), name, vals[i]); err != nil {
			return nil, err
		}
		buf.WriteString(",")
		writeJSON(&buf, name)
		buf.WriteString(":")
		writeJSON(&buf, vals[i])
	}
	if precision != nil {
		for n, b := range precision {
			if err := finite(m.Name(), "precision "+strconv.Itoa(n), b); err != nil {
				return nil, err
			}
		}
		buf.WriteString(`,"precision":`)
		writeJSON(&buf, precision)
	}
	buf.WriteString("}")
	return buf.Bytes(), nil
}

// writeJSON appends the encoding of a value that cannot fail to encode (strings, ints and
// finite floats).
func writeJSON(buf *bytes.Buffer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("noise: " + err.Error()) // unreachable: values are checked before
	}
	buf.Write(b)
}

func finite(model, name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("noise: cannot encode %s parameter %s = %v (JSON has no NaN or Inf)",
			model, name, v)
	}
	return nil
}

// Unmarshal decodes a model written by Marshal. It returns an error for an unknown type,
// a missing or unknown field, a parameter outside its range, or an ordinal model whose C
// is not an integer ≥ 3. A null category model with "gammaneg" and "gammapos" instead of
// "gamma" comes back with Split set.
func Unmarshal(data []byte) (Model, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("noise: decoding noise model: %w", err)
	}
	var name string
	if raw, ok := obj["type"]; !ok {
		return nil, fmt.Errorf("noise: noise model has no \"type\"")
	} else if err := json.Unmarshal(raw, &name); err != nil {
		return nil, fmt.Errorf("noise: noise model type: %w", err)
	}
	m, err := ByName(name)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{"type": true}
	switch t := m.(type) {
	case *Ordinal:
		var c int
		raw, ok := obj["C"]
		if !ok {
			return nil, fmt.Errorf("noise: ordinal model has no \"C\" (number of categories)")
		}
		if err := json.Unmarshal(raw, &c); err != nil || c < 3 || c > MaxCategories {
			return nil, fmt.Errorf("noise: ordinal C = %s; want an integer from 3 to %d",
				raw, MaxCategories)
		}
		used["C"] = true
		t.Widths = make([]float64, c-2)
	case *NullCategory:
		_, neg := obj["gammaneg"]
		_, pos := obj["gammapos"]
		t.Split = neg || pos
	case *Gaussian:
		if raw, ok := obj["precision"]; ok {
			if err := json.Unmarshal(raw, &t.Precision); err != nil {
				return nil, fmt.Errorf("noise: gaussian precision: %w", err)
			}
			for n, b := range t.Precision {
				if !(b > 0) || math.IsInf(b, 1) {
					return nil, fmt.Errorf("noise: gaussian precision %d = %v; "+
						"want a positive finite value", n, b)
				}
			}
			used["precision"] = true
		}
	}
	names := m.ParamNames()
	vals := make([]float64, len(names))
	for i, pn := range names {
		raw, ok := obj[pn]
		if !ok {
			return nil, fmt.Errorf("noise: %s model has no parameter %q", name, pn)
		}
		if err := json.Unmarshal(raw, &vals[i]); err != nil {
			return nil, fmt.Errorf("noise: %s parameter %q: %w", name, pn, err)
		}
		used[pn] = true
	}
	var unknown []string
	for k := range obj {
		if !used[k] {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("noise: %s model has unknown field(s) %s (want %s)",
			name, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	if err := m.SetParams(vals); err != nil {
		return nil, err
	}
	return m, nil
}
