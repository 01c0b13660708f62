package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadFileGzip(t *testing.T) {
	dir := t.TempDir()
	const text = "x1,x2,y\n1,2,3\n4,5,6\n"
	want := result{CSV, [][]float64{{1, 2}, {4, 5}}, []float64{3, 6}, []string{"x1", "x2"}, "y"}
	z := gzipBytes(t, text)
	files := map[string][]byte{
		"data.csv.gz":  z,
		"data.csv":     z, // gzip recognised by magic bytes, not by name
		"plain.csv.gz": []byte(text),
		"plain.csv":    []byte(text),
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadFile(path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkData(t, d, want)
		})
	}
	// Read gunzips too; a multi-member gzip stream is read whole.
	two := append(gzipBytes(t, "1 1:1\n"), gzipBytes(t, "2 2:2\n")...)
	d, err := Read(bytes.NewReader(two), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkData(t, d, result{LibSVM, [][]float64{{1, 0}, {0, 2}}, []float64{1, 2}, nil, ""})
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "missing.csv"),
		ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("1,2\n3,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(bad, ReadOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 ||
		!strings.HasPrefix(err.Error(), bad+": line 2, column 2: ") {
		t.Errorf("bad file: %v", err)
	}
	// A truncated gzip stream is an error, not a short data set.
	z := gzipBytes(t, strings.Repeat("1,2,3\n", 1000))
	trunc := filepath.Join(dir, "trunc.csv.gz")
	if err := os.WriteFile(trunc, z[:len(z)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(trunc, ReadOptions{}); err == nil {
		t.Error("truncated gzip: no error")
	}
	// A corrupted checksum too.
	z = gzipBytes(t, "1,2,3\n")
	z[len(z)-5] ^= 0xff
	if _, err := Read(bytes.NewReader(z), ReadOptions{}); !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("bad checksum: %v", err)
	}
	if _, err := Read(bytes.NewReader([]byte{0x1f, 0x8b, 0}), ReadOptions{}); err == nil {
		t.Error("bad gzip header: no error")
	}
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("boom")
	for _, f := range []Format{Auto, CSV, LibSVM} {
		r := io.MultiReader(strings.NewReader("1,2\n3,4\n"), iotest.ErrReader(boom))
		if f == LibSVM {
			r = io.MultiReader(strings.NewReader("1 1:2\n"), iotest.ErrReader(boom))
		}
		_, err := Read(r, ReadOptions{Format: f})
		if !errors.Is(err, boom) {
			t.Errorf("%v: error %v, want boom", f, err)
		}
	}
	// One byte at a time works.
	d, err := Read(iotest.OneByteReader(strings.NewReader("a,b\r\n1,2\r\n")), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkData(t, d, result{CSV, [][]float64{{1}}, []float64{2}, []string{"a"}, "b"})
}

// TestLongLines reads lines far longer than the read buffer, with the CR of CRLF at a
// buffer boundary.
func TestLongLines(t *testing.T) {
	const dim = 30000 // ~ 230 KB per CSV line
	var csv, svm strings.Builder
	for i := 0; i < dim; i++ {
		csv.WriteString("-0.123456,")
	}
	csv.WriteString("1\r\n")
	svm.WriteString("1")
	for i := 1; i <= dim; i++ {
		svm.WriteString(" " + strconv.Itoa(i) + ":-0.123456")
	}
	svm.WriteString("\r\n")
	for name, line := range map[string]string{"csv": csv.String(), "libsvm": svm.String()} {
		t.Run(name, func(t *testing.T) {
			d, err := Read(strings.NewReader(line+line+strings.TrimSuffix(line, "\r\n")),
				ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n, c := d.X.Dims()
			if n != 3 || c != dim {
				t.Fatalf("dims %d×%d, want 3×%d", n, c, dim)
			}
			for i := 0; i < n; i++ {
				if d.Y[i] != 1 || d.X.At(i, 0) != -0.123456 || d.X.At(i, dim-1) != -0.123456 {
					t.Fatalf("row %d: y %v x[0] %v x[last] %v",
						i, d.Y[i], d.X.At(i, 0), d.X.At(i, dim-1))
				}
			}
		})
	}
	// A CR exactly at the end of the first buffer fill.
	line := strings.Repeat("1,", bufSize/2-1) + "1\r\n" // bufSize-1 bytes before '\r'
	d, err := Read(strings.NewReader(line+line), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, c := d.X.Dims(); n != 2 || c != bufSize/2-1 {
		t.Fatalf("dims %d×%d", n, c)
	}
}

func TestRoundTrip(t *testing.T) {
	negZero := math.Copysign(0, -1)
	x := mat.NewDense(4, 3, []float64{
		0.1, 1e-300, -2.5e10,
		0, negZero, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 1.0 / 3, 0,
		0, 0, 0,
	})
	y := []float64{1, -1, nan, 0.1 + 0.2}
	cases := []*Data{
		{X: x, Y: y},
		{X: x, Y: y, Names: []string{"#a", "b,c", ` "q" `}, LabelName: "lab#el"},
		{X: x, Y: y, Names: []string{"1", "2", ""}},
	}
	for i, d := range cases {
		for _, f := range []Format{CSV, LibSVM} {
			var buf bytes.Buffer
			var err error
			opt := ReadOptions{Format: Auto}
			if f == CSV {
				err = WriteCSV(&buf, d)
			} else {
				err = WriteLibSVM(&buf, d)
				opt.Dim = 3 // the last column and row are all zero
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(bytes.NewReader(buf.Bytes()), opt)
			if err != nil {
				t.Fatalf("case %d %v: %v\n%s", i, f, err, buf.Bytes())
			}
			w := result{f, rows(&Data{X: x}), y, nil, ""}
			if f == CSV && d.Names != nil {
				w.names, w.labelName = d.Names, d.LabelName
				if w.labelName == "" {
					w.labelName = "y"
				}
			}
			checkData(t, got, w)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	bad := []*Data{
		nil,
		{},
		{X: x, Y: []float64{1}},
		{X: x, Y: []float64{1, 2}, Names: []string{"a"}},
		{X: x, Y: []float64{1, math.Inf(1)}},
		{X: mat.NewDense(1, 1, []float64{math.NaN()}), Y: []float64{1}},
		{X: x, Y: []float64{1, 2}, Names: []string{"a", "b\nc"}},
	}
	for i, d := range bad {
		if err := WriteCSV(io.Discard, d); err == nil {
			t.Errorf("case %d: WriteCSV: no error", i)
		}
		if i == len(bad)-1 {
			continue // names are not written to libsvm
		}
		if err := WriteLibSVM(io.Discard, d); err == nil {
			t.Errorf("case %d: WriteLibSVM: no error", i)
		}
	}
	if err := WriteCSV(failWriter{}, &Data{X: x, Y: []float64{1, 2}}); err == nil {
		t.Error("WriteCSV, failing writer: no error")
	}
	if err := WriteLibSVM(failWriter{}, &Data{X: x, Y: []float64{1, 2}}); err == nil {
		t.Error("WriteLibSVM, failing writer: no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("fail") }

func TestWriteText(t *testing.T) {
	d := &Data{X: mat.NewDense(2, 3, []float64{0.5, 0, -2, 0, 0, 0}), Y: []float64{1, nan},
		Names: []string{"a", "b", "c"}}
	var csv, svm bytes.Buffer
	if err := WriteCSV(&csv, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteLibSVM(&svm, d); err != nil {
		t.Fatal(err)
	}
	if want := "a,b,c,y\n0.5,0,-2,1\n0,0,0,?\n"; csv.String() != want {
		t.Errorf("CSV %q, want %q", csv.String(), want)
	}
	if want := "1 1:0.5 3:-2\n?\n"; svm.String() != want {
		t.Errorf("libsvm %q, want %q", svm.String(), want)
	}
}

func TestParseOptions(t *testing.T) {
	formats := map[string]Format{"auto": Auto, "CSV": CSV, "libsvm": LibSVM,
		" svmlight ": LibSVM, "": Auto}
	for s, want := range formats {
		if got, err := ParseFormat(s); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, f := range []Format{Auto, CSV, LibSVM} {
		if got, err := ParseFormat(f.String()); err != nil || got != f {
			t.Errorf("ParseFormat(%v.String()) = %v, %v", f, got, err)
		}
	}
	labels := map[string]LabelCol{"last": LabelLast, "first": LabelFirst, "1": LabelFirst,
		"3": 3, " First ": LabelFirst}
	for s, want := range labels {
		if got, err := ParseLabelCol(s); err != nil || got != want {
			t.Errorf("ParseLabelCol(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, c := range []LabelCol{LabelLast, LabelFirst, 7} {
		if got, err := ParseLabelCol(c.String()); err != nil || got != c {
			t.Errorf("ParseLabelCol(%v.String()) = %v, %v", c, got, err)
		}
	}
	headers := map[string]Header{"auto": HeaderAuto, "yes": HeaderYes, "no": HeaderNo,
		"TRUE": HeaderYes, "false": HeaderNo}
	for s, want := range headers {
		if got, err := ParseHeader(s); err != nil || got != want {
			t.Errorf("ParseHeader(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, h := range []Header{HeaderAuto, HeaderYes, HeaderNo} {
		if got, err := ParseHeader(h.String()); err != nil || got != h {
			t.Errorf("ParseHeader(%v.String()) = %v, %v", h, got, err)
		}
	}
	for _, s := range []string{"json", "csv2"} {
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%q): no error", s)
		}
	}
	for _, s := range []string{"0", "-1", "middle", "1.5"} {
		if _, err := ParseLabelCol(s); err == nil {
			t.Errorf("ParseLabelCol(%q): no error", s)
		}
	}
	if _, err := ParseHeader("maybe"); err == nil {
		t.Error("ParseHeader(maybe): no error")
	}
}

// TestFixture reads the first 20 lines of the reference classification training set
// (x1,x2,y, no header).
func TestFixture(t *testing.T) {
	path := filepath.Join("testdata", "class_train_20.csv")
	if _, err := os.Stat(path); err != nil {
		t.Fatal("fixture missing:", err)
	}
	d, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, c := d.X.Dims()
	if n != 20 || c != 2 || len(d.Y) != 20 || d.Names != nil || d.Format != CSV {
		t.Fatalf("got %d×%d, %d labels, names %q, format %v", n, c, len(d.Y), d.Names, d.Format)
	}
	if d.X.At(0, 0) != 1.976242949271885 || d.X.At(0, 1) != -0.39028326419124304 || d.Y[0] != 1 {
		t.Errorf("row 1: %v %v", d.X.RawRowView(0), d.Y[0])
	}
	if d.X.At(2, 1) != -1.4309074963658528 || d.Y[2] != -1 {
		t.Errorf("row 3: %v %v", d.X.RawRowView(2), d.Y[2])
	}
	for i, y := range d.Y {
		if y != 1 && y != -1 {
			t.Errorf("row %d: label %v, want ±1", i+1, y)
		}
	}
}

// benchInput is n rows of dim features in the given format, like the USPS digits.
func benchInput(f Format, n, dim int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			v := strconv.FormatFloat(float64((i*dim+j)%2001-1000)/1000, 'g', -1, 64)
			if f == CSV {
				b.WriteString(v + ",")
			} else {
				if j == 0 {
					b.WriteString(strconv.Itoa(i % 10))
				}
				b.WriteString(" " + strconv.Itoa(j+1) + ":" + v)
			}
		}
		if f == CSV {
			b.WriteString(strconv.Itoa(i % 10))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func BenchmarkRead(b *testing.B) {
	for _, f := range []Format{CSV, LibSVM} {
		in := benchInput(f, 2000, 256)
		b.Run(f.String(), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(bytes.NewReader(in), ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
