package strictjson

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

type inner struct {
	Values []float64 `json:"values"`
	Seed   uint64    `json:"seed"`
}

// kind is an enum read by its name.
type kind int

func (k *kind) UnmarshalText(b []byte) error { *k = kind(len(b)); return nil }

type file struct {
	Format string          `json:"format"`
	Scale  *float64        `json:"scale,omitempty"`
	Models []inner         `json:"models"`
	Kernel json.RawMessage `json:"kernel"`
	X      []float64       `json:"x"`
	Kind   kind            `json:"kind"`
	inner
}

// Every way a tampered file used to pass, and what a file the writers make may hold.
func TestDecode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"format":"a","models":[{"values":[1,2]}],"x":null,"kernel":{"p":null}}`, ""},
		{"\xef\xbb\xbf{\"format\":\"a\"}", ""},
		{`{"format":"a"}{"format":"b"}`, "data after the JSON object"},
		{`{"format":"a"}x`, "data after the JSON object"},
		{`{"format":"a","models":[{"values":[1,null]}]}`,
			"field models[0].values[1]: want a number, got null"},
		{`{"format":"a","seed":null}`, "field seed: want a whole number ≥ 0, got null"},
		{`{"format":"a","kernel":[1,null]}`,
			"field kernel[1]: want a number or an object, got null"},
		{`{"format":"a","seed":-5}`, "field seed: want a whole number ≥ 0, got -5"},
		{`{"format":"a","models":"x"}`, "field models: want an array, got string"},
		{`{"models":[]}`, "field format: missing"},
		{`[1]`, "a JSON array, not an object"},
		{`{"format":"a","kind":null}`, "field kind: want a string, got null"},
	} {
		var f file
		d, err := Decode([]byte(c.in), &f)
		if err == nil {
			err = d.Require("format")
		}
		if c.want == "" && err != nil ||
			c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	var f file
	if _, err := Decode([]byte(`{"format":"a","models":[{"val`),
		&f); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := Decode([]byte(" \n"), &f); err != io.EOF {
		t.Errorf("empty: %v", err)
	}
}
