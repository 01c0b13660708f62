package strictjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A walker steps through JSON text that json.Unmarshal has accepted, beside the Go type
// it was decoded into, to find what Unmarshal lets pass: a null where the type has no
// nil (it leaves the zero value, so a tampered file reads 0 without a word).
type walker struct {
	b     []byte
	i     int
	check bool    // report nulls (false: only skip values)
	path  []frame // where the walk is, turned into a name only for an error
}

// A frame is one step of a path: an object's key, or an array's index.
type frame struct {
	key   string
	index int
	array bool
}

var (
	rawType         = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
	rowsType        = reflect.TypeFor[Rows]()
	matrixType      = reflect.TypeFor[[][]float64]()
)

// checkNulls reports the first null of b where type t (of the decoded value) has no nil.
func checkNulls(b []byte, t reflect.Type) error {
	w := &walker{b: b, check: true}
	return w.value(t, false)
}

// topKeys returns which of want are keys of the top-level object of b (valid JSON),
// reading no further than the last of them.
func topKeys(b []byte, want []string) map[string]bool {
	keys := map[string]bool{}
	w := &walker{b: b}
	w.ws()
	if w.i >= len(b) || b[w.i] != '{' {
		return keys
	}
	w.members(nil, func(k string) bool {
		if slices.Contains(want, k) {
			keys[k] = true
		}
		return len(keys) < len(want)
	})
	return keys
}

func (w *walker) ws() {
	w.i = skipSpace(w.b, w.i)
}

// value steps over one value of type t (nil: unknown); inArray is true for an element.
func (w *walker) value(t reflect.Type, inArray bool) error {
	w.ws()
	switch c := w.b[w.i]; c {
	case '{':
		return w.members(t, nil)
	case '[':
		return w.elements(t)
	case '"':
		w.str()
	case 'n':
		w.i += 4
		if w.check && !nullable(t, inArray) {
			return &Error{Field: w.name(), Msg: "want " + wantNull(t) + ", got null"}
		}
	case 't':
		w.i += 4
	case 'f':
		w.i += 5
	default:
		for w.i < len(w.b) && isNumberByte(w.b[w.i]) {
			w.i++
		}
	}
	return nil
}

// members steps over an object of type t, calling key (if not nil) with each key; the walk
// stops where key returns false.
func (w *walker) members(t reflect.Type, key func(string) bool) error {
	w.i++ // '{'
	for {
		w.ws()
		switch w.b[w.i] {
		case '}':
			w.i++
			return nil
		case ',':
			w.i++
			continue
		}
		k := w.str()
		if key != nil && !key(k) {
			return nil
		}
		w.ws()
		w.i++ // ':'
		w.path = append(w.path, frame{key: k})
		err := w.value(fieldType(t, k), false)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
}

// elements steps over an array of type t.
func (w *walker) elements(t reflect.Type) error {
	w.i++ // '['
	elem := elemType(t)
	w.path = append(w.path, frame{array: true})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for n := 0; ; {
		w.ws()
		switch w.b[w.i] {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
			n++
			continue
		}
		w.path[len(w.path)-1].index = n
		if err := w.value(elem, true); err != nil {
			return err
		}
	}
}

// str steps over a string and returns it unquoted.
func (w *walker) str() string {
	start := w.i
	w.i++
	for w.b[w.i] != '"' {
		if w.b[w.i] == '\\' {
			w.i++
		}
		w.i++
	}
	w.i++
	s, err := strconv.Unquote(string(w.b[start:w.i]))
	if err != nil {
		return string(w.b[start+1 : w.i-1])
	}
	return s
}

// name writes the path as "models[2].site_mean[0]".
func (w *walker) name() string {
	var sb strings.Builder
	for _, f := range w.path {
		if f.array {
			sb.WriteString("[" + strconv.Itoa(f.index) + "]")
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(f.key)
	}
	return sb.String()
}

// deref strips pointers; a type decoded by its own method, or held raw, is unknown (nil).
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t == rawType || t.Kind() == reflect.Interface {
		return nil
	}
	if t == rowsType {
		return matrixType // an Unmarshaler, yet a [][]float64 to check
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) ||
		reflect.PointerTo(t).Implements(textType) {
		return nil
	}
	return t
}

// nullable reports whether a null may stand for a value of type t: a pointer, slice, map
// or interface may be nil. A value of unknown type may be null as an object's member, not
// as an array's element (the arrays of model files hold numbers and objects).
func nullable(t reflect.Type, inArray bool) bool {
	if t == nil {
		return !inArray
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	if t == rawType {
		return !inArray
	}
	return false
}

// wantNull says what a null stands in for.
func wantNull(t reflect.Type) string {
	if t == nil {
		return "a number or an object"
	}
	return want(t)
}

// fieldType is the type of member key of an object of type t (nil: unknown).
func fieldType(t reflect.Type, key string) reflect.Type {
	t = deref(t)
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Map:
		return t.Elem()
	case reflect.Struct:
		if f, ok := structField(t, key); ok {
			return f
		}
	}
	return nil
}

// structField finds the field of struct t that JSON key names, as encoding/json does:
// the tag's name, else the field's, embedded structs' fields included.
func structField(t reflect.Type, key string) (reflect.Type, bool) {
	var fold reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if sub, ok := structField(ft, key); ok {
					return sub, true
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
		if fold == nil && strings.EqualFold(name, key) {
			fold = f.Type
		}
	}
	return fold, fold != nil
}

// elemType is the element type of an array of type t (nil: unknown).
func elemType(t reflect.Type) reflect.Type {
	t = deref(t)
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return t.Elem()
	}
	return nil
}
