package dataset

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// fuzzMax keeps fuzz inputs with huge indices from allocating much.
const fuzzMax = 1 << 20

var seeds = []string{
	"1,2,3\n4,5,6\n",
	"x1,x2,y\n1,2,3\n4,5,?\n",
	"label,a,b\r\n7,1,2\r\n8,3,\r\n",
	"# comment\n\n\"a,b\",\"c\"\"d\",y\n1, 2 ,3\n",
	"1,2,3\n4,5\n",
	"1,abc,3\n",
	"1,nan,3\n",
	"1e999,2,3\n",
	"\xef\xbb\xbfa,b\n1,2\n",
	"1 1:0.5 3:2\n-1 2:1\n",
	"# c\n+1 qid:3 1:1 2:2 # trailing\n-1 qid:3 3:3\n",
	"1\n2 2:1\n3\n",
	"1\n2\n",
	"1\n2,3\n",
	"? 1:1\n",
	"1 2:1 1:1\n",
	"1 0:1\n",
	"1 1:\n",
	"1 1:nan 2:-Inf\n",
	"1 1:1e999\n",
	"NaN 1:1\n",
	"1 1:0x1p-3 2:-0\n",
	"1 4294967296:1\n",
	"1 1000000:1\n",
	"1 2 3\n",
	"1:1 2:2\n",
	"a#b,c\n1,2\n",
	"1,\"2\n",
	"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff",
	"",
}

// checkRead checks the invariants of a Read result: an error, or consistent finite data
// that writing and reading back reproduces exactly.
func checkRead(t *testing.T, in []byte, opt ReadOptions, d *Data, err error) {
	t.Helper()
	if err != nil {
		if d != nil {
			t.Fatalf("error %v with data", err)
		}
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		var pe *ParseError
		if errors.As(err, &pe) && pe.Line < 1 {
			t.Fatalf("ParseError without a line: %v", err)
		}
		return
	}
	n, c := d.X.Dims()
	if n < 1 || c < 1 || len(d.Y) != n {
		t.Fatalf("X %d×%d, %d labels", n, c, len(d.Y))
	}
	if opt.Dim > 0 && c != opt.Dim {
		t.Fatalf("%d columns, Dim %d", c, opt.Dim)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			if v := d.X.At(i, j); !finite(v) {
				t.Fatalf("X[%d,%d] = %v", i, j, v)
			}
		}
		if math.IsInf(d.Y[i], 0) {
			t.Fatalf("Y[%d] = %v", i, d.Y[i])
		}
	}
	if d.Names != nil && len(d.Names) != c {
		t.Fatalf("%d names for %d columns", len(d.Names), c)
	}
	if d.Format != CSV && d.Format != LibSVM {
		t.Fatalf("format %v", d.Format)
	}
	if d.Format == LibSVM && (d.Names != nil || d.LabelName != "") {
		t.Fatalf("libsvm with names %q %q", d.Names, d.LabelName)
	}

	// Round trips through both writers.
	var buf bytes.Buffer
	if err := WriteLibSVM(&buf, d); err != nil {
		t.Fatalf("WriteLibSVM: %v", err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()), ReadOptions{Format: LibSVM, Dim: c})
	if err != nil {
		t.Fatalf("reading back libsvm: %v\n%q", err, buf.Bytes())
	}
	sameData(t, "libsvm", d, back, false, true)

	buf.Reset()
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	ropt := ReadOptions{Format: CSV, Header: HeaderNo}
	if d.Names != nil {
		ropt.Header = HeaderYes
	}
	back, err = Read(bytes.NewReader(buf.Bytes()), ropt)
	if err != nil {
		t.Fatalf("reading back CSV: %v\n%q", err, buf.Bytes())
	}
	sameData(t, "CSV", d, back, true, true)
}

// sameData compares the content of two data sets bit for bit (all NaNs equal), and
// their names when names is set; written says b was written by WriteCSV from a, which
// names an unnamed label column "y".
func sameData(t *testing.T, what string, a, b *Data, names, written bool) {
	t.Helper()
	ra, rb := rows(a), rows(b)
	if len(ra) != len(rb) {
		t.Fatalf("%s: %d rows, want %d", what, len(rb), len(ra))
	}
	for i := range ra {
		if !sameFloats(ra[i], rb[i]) {
			t.Fatalf("%s: row %d: %v, want %v", what, i, rb[i], ra[i])
		}
	}
	if !sameFloats(a.Y, b.Y) {
		t.Fatalf("%s: Y %v, want %v", what, b.Y, a.Y)
	}
	if !names {
		return
	}
	label := a.LabelName
	if written && a.Names != nil && label == "" {
		label = "y"
	}
	if !reflect.DeepEqual(a.Names, b.Names) || label != b.LabelName {
		t.Fatalf("%s: names %q %q, want %q %q", what, b.Names, b.LabelName, a.Names, label)
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		opt := ReadOptions{MaxValues: fuzzMax}
		d, err := Read(bytes.NewReader(in), opt)
		checkRead(t, in, opt, d, err)
		if err != nil {
			return
		}
		// The detected format, given explicitly, reads the same.
		opt.Format = d.Format
		d2, err := Read(bytes.NewReader(in), opt)
		if err != nil {
			t.Fatalf("auto read %v, explicit %v fails: %v", d.Format, d.Format, err)
		}
		sameData(t, "explicit", d, d2, true, false)
	})
}

func FuzzReadCSV(f *testing.F) {
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i), uint8(i/3), uint8(i/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, label, header, dim uint8) {
		opt := ReadOptions{Format: CSV, LabelCol: LabelCol(label % 5), Header: Header(header % 3), Dim: int(dim % 5), MaxValues: fuzzMax}
		d, err := Read(bytes.NewReader(in), opt)
		checkRead(t, in, opt, d, err)
		if err == nil && d.Format != CSV {
			t.Fatalf("format %v", d.Format)
		}
	})
}

func FuzzReadLibSVM(f *testing.F) {
	for i, s := range seeds {
		f.Add([]byte(s), uint16(i%4), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, in []byte, dim uint16, ignore bool) {
		opt := ReadOptions{Format: LibSVM, Dim: int(dim % 1000), IgnoreExtra: ignore, MaxValues: fuzzMax}
		d, err := Read(bytes.NewReader(in), opt)
		checkRead(t, in, opt, d, err)
		if err == nil && d.Format != LibSVM {
			t.Fatalf("format %v", d.Format)
		}
	})
}
