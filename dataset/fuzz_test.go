package dataset

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
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
	"1 task:a 1:0.5\n-1 task:b 2:1\n",
	"1 1:0.5 task:a:b\n",
	"1 task:a\n2 2:1\n",
	"1 task:a task:b 1:1\n",
	"1 task: 1:1\n",
	"task,x,y\ns1,1,2\n\"s 2\",3,4\n",
	"1,0.5,a\n2,1.5,b\n",
	"a,1,2\n,3,4\n",
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

	if d.Task != nil {
		if len(d.Task) != n {
			t.Fatalf("%d task labels for %d rows", len(d.Task), n)
		}
		for i, s := range d.Task {
			if s == "" {
				t.Fatalf("row %d: empty task label", i)
			}
		}
	}
	if d.TaskName != "" && d.Task == nil {
		t.Fatalf("task column name %q without tasks", d.TaskName)
	}

	// Round trips through both writers (libsvm only when the task labels fit in a token).
	var buf bytes.Buffer
	err = WriteLibSVM(&buf, d)
	switch {
	case err != nil && !badTaskToken(d.Task):
		t.Fatalf("WriteLibSVM: %v", err)
	case err == nil:
		back, err := Read(bytes.NewReader(buf.Bytes()), ReadOptions{Format: LibSVM, Dim: c})
		if err != nil {
			t.Fatalf("reading back libsvm: %v\n%q", err, buf.Bytes())
		}
		sameData(t, "libsvm", d, back, false, true)
	}

	buf.Reset()
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	ropt := ReadOptions{Format: CSV, Header: HeaderNo}
	if d.Task != nil {
		ropt.TaskCol = TaskFirst
	}
	if d.Names != nil {
		ropt.Header = HeaderYes
	}
	back, err := Read(bytes.NewReader(buf.Bytes()), ropt)
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
	if !reflect.DeepEqual(a.Task, b.Task) {
		t.Fatalf("%s: tasks %q, want %q", what, b.Task, a.Task)
	}
	if !names {
		return
	}
	taskName := a.TaskName
	if written && a.Names != nil && a.Task != nil && taskName == "" {
		taskName = "task"
	}
	if taskName != b.TaskName {
		t.Fatalf("%s: task column name %q, want %q", what, b.TaskName, taskName)
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
		f.Add([]byte(s), uint8(i), uint8(i/3), uint8(i/2), uint8(i%4))
	}
	f.Fuzz(func(t *testing.T, in []byte, label, header, dim, task uint8) {
		opt := ReadOptions{Format: CSV, LabelCol: LabelCol(label % 5), Header: Header(header % 3),
			Dim: int(dim % 5), TaskCol: TaskCol(int(task%5) - 1), MaxValues: fuzzMax}
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
		opt := ReadOptions{Format: LibSVM, Dim: int(dim % 1000), IgnoreExtra: ignore,
			MaxValues: fuzzMax}
		d, err := Read(bytes.NewReader(in), opt)
		checkRead(t, in, opt, d, err)
		if err == nil && d.Format != LibSVM {
			t.Fatalf("format %v", d.Format)
		}
	})
}

// badTaskToken reports whether some task label cannot be written as a libsvm token.
func badTaskToken(tasks []string) bool {
	for _, s := range tasks {
		if strings.ContainsAny(s, " \t\v\f\r#") {
			return true
		}
	}
	return false
}
