package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// DetectFormat names the format Read reads a file in: by its first data line, after blank
// and comment lines, gzipped or not; Auto for a lone label, which a later row may show to be
// CSV; the format set in the options whatever the text; Read's error for no data.
func TestDetectFormat(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("# c\n1 3:4\n"))
	zw.Close()
	for _, c := range []struct {
		text string
		opt  ReadOptions
		want Format
	}{
		{"1,2,3\n", ReadOptions{}, CSV},
		{"a,b\n1,2\n", ReadOptions{}, CSV},
		{"\n# x\n-1 2:0.5\n", ReadOptions{}, LibSVM},
		{"2:0.5 3:1\n", ReadOptions{}, LibSVM},
		{"1\n2,3\n", ReadOptions{}, Auto},
		{"1 2:3\n", ReadOptions{Format: CSV}, CSV},
		{gz.String(), ReadOptions{}, LibSVM},
	} {
		got, err := DetectFormat(strings.NewReader(c.text), c.opt)
		if err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
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
