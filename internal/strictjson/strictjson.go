// Package strictjson decodes model files strictly, in one place for every family's loader:
// exactly one JSON value (nothing after it), an optional UTF-8 byte order mark, no null
// where a number or another non-nullable value belongs, the required top-level fields
// present, and errors that name the field and say what it should hold instead of Go's
// "cannot unmarshal ... into Go struct field".
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// An Error is a model file's content that does not fit: Field is the JSON path
// ("models[2].site_mean[0]"), "" for the file as a whole.
type Error struct {
	Field, Msg string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return "field " + e.Field + ": " + e.Msg
}

// A Doc is a decoded file's text, to check afterwards that it has its required fields
// (after the caller has checked its format, whose message comes first).
type Doc []byte

// Require returns an *Error for the first of keys missing from the top-level object. The
// scan stops once all are met: the writers put the required fields first, so a large file
// is not walked to its end.
func (d Doc) Require(keys ...string) error {
	present := topKeys(d, keys)
	for _, k := range keys {
		if !present[k] {
			return &Error{Field: k, Msg: "missing: the file lacks it (cut or edited?)"}
		}
	}
	return nil
}

// Decode decodes the JSON value b holds into v. An empty input is io.EOF and one cut short
// io.ErrUnexpectedEOF; the other errors are *Error.
func Decode(b []byte, v any) (Doc, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, io.EOF
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, describe(err, b, reflect.TypeOf(v))
	}
	if bytes.Contains(b, []byte("null")) {
		if err := checkNulls(b, reflect.TypeOf(v)); err != nil {
			return nil, err
		}
	}
	return Doc(b), nil
}

// Reader reads r whole and decodes it as Decode does. A reader that holds its bytes (a
// *bytes.Buffer) is decoded in place, without a copy.
func Reader(r io.Reader, v any) (Doc, error) {
	if held, ok := r.(interface{ Bytes() []byte }); ok {
		return Decode(held.Bytes(), v)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return Decode(b, v)
}

// describe rewords an error of json.Unmarshal.
func describe(err error, b []byte, t reflect.Type) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax) && strings.Contains(syntax.Error(), "after top-level value"):
		return &Error{Msg: fmt.Sprintf("data after the JSON object at byte %d "+
			"(two files joined, or a stray byte at the end?)", syntax.Offset)}
	case errors.As(err, &syntax) && syntax.Offset >= int64(len(bytes.TrimRight(b, " \t\r\n"))):
		return io.ErrUnexpectedEOF
	case errors.As(err, &syntax):
		return &Error{Msg: fmt.Sprintf("not JSON at byte %d (%v)", syntax.Offset, err)}
	case errors.As(err, &typ) && typ.Field == "":
		return &Error{Msg: fmt.Sprintf("a JSON %s, not an object", typ.Value)}
	case errors.As(err, &typ):
		got := strings.TrimPrefix(typ.Value, "number ")
		msg := fmt.Sprintf("want %s, got %s", want(typ.Type), got)
		return &Error{Field: jsonPath(typ.Field, t), Msg: msg}
	}
	return &Error{Msg: err.Error()}
}

// jsonPath drops from encoding/json's dotted field path the names of embedded structs,
// which are Go's, not the file's.
func jsonPath(field string, t reflect.Type) string {
	embedded := map[string]bool{}
	embeddedNames(t, embedded, map[reflect.Type]bool{})
	var keep []string
	for _, part := range strings.Split(field, ".") {
		if !embedded[part] {
			keep = append(keep, part)
		}
	}
	return strings.Join(keep, ".")
}

// embeddedNames adds the names of the embedded struct fields reachable from t to names.
func embeddedNames(t reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice ||
		t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			names[f.Name] = true
		}
		embeddedNames(f.Type, names, seen)
	}
}

// want says what a Go type holds, for a message.
func want(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	if reflect.PointerTo(t).Implements(textType) {
		return "a string" // an enum written by its name
	}
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number ≥ 0"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.Kind().String()
}
