package fileformat

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      bool
	}{
		{`{"format": "ivm-model/1", "models": [1, 2]}`, "ivm-model/1", false},
		{`{"task": {"a": [1, {"b": 2}]}, "format": "ivm-ssmtr/1"}`, "ivm-ssmtr/1", false},
		// what follows is the loader's to refuse
		{`{"format": "ivm-model/1", "models": [1, `, "ivm-model/1", false},
		{`{"format": 3}`, "", true},
		{`[1, 2]`, "", true},
		{`{"task": "x"`, "", true},
		{``, "", true},
	} {
		got, err := Of([]byte(c.in))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Of(%s) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
	if _, err := Of([]byte(`{"rows": 3}`)); !errors.Is(err, ErrNoFormat) {
		t.Errorf("no format field: %v, want ErrNoFormat", err)
	}
}

// SkipToObject leaves a file's '{' unread after a byte order mark and white space, and
// says what anything else starts with.
func TestSkipToObject(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\xef\xbb\xbf \n\t{\"format\": 1}", ""},
		{"{}", ""},
		{"", "it is empty"},
		{"   ", "it is empty"},
		{"\x00\x00", "NUL byte"},
		{"[1]", "a JSON array"},
		{"1,2,3", "a number (a data file?)"},
		{"\x7f", "byte 0x7f"},
		{"model", `it starts with 'm'`},
		{strings.Repeat(" ", maxLeadingSpace+2) + "{}", "bytes of white space"},
		{"{ \n\"format\": 1}", ""},
		{"{", ""}, // the decoder reports the early end
		{"{\x9c\x01", "its '{' is followed by byte 0x9c (binary data)"},
		{"{ x", "its '{' is followed by 'x'"},
	} {
		br := bufio.NewReader(strings.NewReader(c.in))
		err := SkipToObject(br)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("SkipToObject(%.20q): %v", c.in, err)
		case c.want == "":
			if b, _ := br.ReadByte(); b != '{' {
				t.Errorf("SkipToObject(%.20q) left %q unread, want '{'", c.in, b)
			}
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Errorf("SkipToObject(%.20q): %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
