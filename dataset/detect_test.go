package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// DetectFormat names the format Read reads a file in, and a CSV line's fields: by its first
// data line, after blank and comment lines, gzipped or not; Auto for a lone label, which a
// later row may show to be CSV; the format set in the options whatever the text; Read's
// error for no data.
func TestDetectFormat(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("# c\n1 3:4\n"))
	zw.Close()
	for _, c := range []struct {
		text string
		opt  ReadOptions
		want Detected
	}{
		{"1,2,3\n", ReadOptions{}, Detected{CSV, 3}},
		{"a,\"b,c\",d,e\n1,2,3,4\n", ReadOptions{}, Detected{CSV, 4}},
		{"\n# x\n-1 2:0.5\n", ReadOptions{}, Detected{LibSVM, 0}},
		{"2:0.5 3:1\n", ReadOptions{}, Detected{LibSVM, 0}},
		{"1\n2,3\n", ReadOptions{}, Detected{Auto, 0}},
		{"1 2:3\n", ReadOptions{Format: CSV}, Detected{CSV, 1}},
		{"x y\n", ReadOptions{Format: CSV}, Detected{CSV, 1}},
		{"1,2\n", ReadOptions{Format: LibSVM}, Detected{LibSVM, 0}},
		{gz.String(), ReadOptions{}, Detected{LibSVM, 0}},
	} {
		got, err := DetectFormat(strings.NewReader(c.text), c.opt)
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.text, got, err, c.want)
		}
	}
	if _, err := DetectFormat(strings.NewReader("# only\n\n"), ReadOptions{}); !errors.Is(err,
		ErrNoData) {
		t.Errorf("no data: %v", err)
	}
	_, err := DetectFormat(strings.NewReader("x y\n"), ReadOptions{})
	_, readErr := Read(strings.NewReader("x y\n"), ReadOptions{})
	if err == nil || err.Error() != readErr.Error() {
		t.Errorf("undecidable line: %v, Read: %v", err, readErr)
	}
}
