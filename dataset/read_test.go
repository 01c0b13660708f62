package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

var nan = math.NaN()

// result is the expected content of a Data.
type result struct {
	format    Format
	x         [][]float64
	y         []float64
	names     []string
	labelName string
}

// sameFloats reports whether a and b are equal bit for bit, all NaNs being equal.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) && math.IsNaN(b[i]) {
			continue
		}
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func rows(d *Data) [][]float64 {
	n, _ := d.X.Dims()
	out := make([][]float64, n)
	for i := range out {
		out[i] = append([]float64(nil), d.X.RawRowView(i)...)
	}
	return out
}

func checkData(t *testing.T, d *Data, w result) {
	t.Helper()
	if d.Format != w.format {
		t.Errorf("format %v, want %v", d.Format, w.format)
	}
	got := rows(d)
	if len(got) != len(w.x) {
		t.Fatalf("%d rows, want %d: %v", len(got), len(w.x), got)
	}
	for i := range got {
		if !sameFloats(got[i], w.x[i]) {
			t.Errorf("row %d: X %v, want %v", i, got[i], w.x[i])
		}
	}
	if !sameFloats(d.Y, w.y) {
		t.Errorf("Y %v, want %v", d.Y, w.y)
	}
	if !reflect.DeepEqual(d.Names, w.names) {
		t.Errorf("Names %q, want %q", d.Names, w.names)
	}
	if d.LabelName != w.labelName {
		t.Errorf("LabelName %q, want %q", d.LabelName, w.labelName)
	}
}

func TestReadValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  ReadOptions
		want result
	}{
		{"csv plain", "1,2,3\n4,5,6\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}, {4, 5}}, []float64{3, 6}, nil, ""}},
		{"csv no final newline", "1,2,3\n4,5,6", ReadOptions{},
			result{CSV, [][]float64{{1, 2}, {4, 5}}, []float64{3, 6}, nil, ""}},
		{"csv crlf spaces tabs", " 1 ,\t2, 3\r\n\r\n4,5 ,6 \r\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}, {4, 5}}, []float64{3, 6}, nil, ""}},
		{"csv comments blanks", "# a comment, with a comma\n\n   \n1,2,3\n  # another\n4,5,6\n\n",
			ReadOptions{},
			result{CSV, [][]float64{{1, 2}, {4, 5}}, []float64{3, 6}, nil, ""}},
		{"csv bom", "\xef\xbb\xbfx1,x2,y\n1,2,3\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, []string{"x1", "x2"}, "y"}},
		{"csv header auto", "x1,x2,y\n1,2,3\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, []string{"x1", "x2"}, "y"}},
		{"csv header auto by label name only", "1,2,y\n1,2,3\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, []string{"1", "2"}, "y"}},
		{"csv header auto numeric is data", "1,2,3\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, nil, ""}},
		{"csv header yes numeric", "10,20,30\n1,2,3\n", ReadOptions{Header: HeaderYes},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, []string{"10", "20"}, "30"}},
		{"csv first row unlabelled is data", "1,2,?\n4,5,\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}, {4, 5}}, []float64{nan, nan}, nil, ""}},
		{"csv label first", "label,a,b\n7,1,2\n8,3,4\n", ReadOptions{LabelCol: LabelFirst},
			result{CSV, [][]float64{{1, 2}, {3, 4}}, []float64{7, 8}, []string{"a", "b"}, "label"}},
		{"csv label column 2", "1,9,2\n3,8,4\n", ReadOptions{LabelCol: 2},
			result{CSV, [][]float64{{1, 2}, {3, 4}}, []float64{9, 8}, nil, ""}},
		{"csv label column 3 = last", "1,2,9\n", ReadOptions{LabelCol: 3},
			result{CSV, [][]float64{{1, 2}}, []float64{9}, nil, ""}},
		{"csv quoted", "\"x,1\",\"say \"\"hi\"\"\",y\n\"1\", \"2\" ,3\n", ReadOptions{},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, []string{"x,1", `say "hi"`}, "y"}},
		{"csv numbers", "1e3,-0.5,+1\n.5,-0,1E-2\n", ReadOptions{},
			result{CSV, [][]float64{{1000, -0.5}, {0.5, math.Copysign(0, -1)}},
				[]float64{1, 0.01}, nil, ""}},
		{"csv underflow is zero", "1e-400,1,2\n", ReadOptions{},
			result{CSV, [][]float64{{0, 1}}, []float64{2}, nil, ""}},
		{"csv dim matches", "1,2,3\n", ReadOptions{Dim: 2},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, nil, ""}},
		{"csv one feature", "1,2\n", ReadOptions{Format: CSV, Header: HeaderNo},
			result{CSV, [][]float64{{1}}, []float64{2}, nil, ""}},
		{"csv explicit", "1,2,3\n", ReadOptions{Format: CSV},
			result{CSV, [][]float64{{1, 2}}, []float64{3}, nil, ""}},
		{"csv header with hash", "a#b,c\n1,2\n", ReadOptions{},
			result{CSV, [][]float64{{1}}, []float64{2}, []string{"a#b"}, "c"}},

		{"libsvm plain", "1 1:0.5 3:2\n-1 2:1\n", ReadOptions{},
			result{LibSVM, [][]float64{{0.5, 0, 2}, {0, 1, 0}}, []float64{1, -1}, nil, ""}},
		{"libsvm tabs crlf comments qid",
			"# header comment\r\n+1\tqid:3 1:1 2:2 # trailing, with comma\r\n\r\n-1 qid:3 3:3\r\n",
			ReadOptions{},
			result{LibSVM, [][]float64{{1, 2, 0}, {0, 0, 3}}, []float64{1, -1}, nil, ""}},
		{"libsvm empty rows", "2 2:1\n3\n4 # nothing\n", ReadOptions{},
			result{LibSVM, [][]float64{{0, 1}, {0, 0}, {0, 0}}, []float64{2, 3, 4}, nil, ""}},
		{"libsvm lone first row", "3\n2 2:1\n", ReadOptions{},
			result{LibSVM, [][]float64{{0, 0}, {0, 1}}, []float64{3, 2}, nil, ""}},
		{"libsvm lone rows with dim", "3\n?\n", ReadOptions{Dim: 2},
			result{LibSVM, [][]float64{{0, 0}, {0, 0}}, []float64{3, nan}, nil, ""}},
		{"libsvm unlabelled", "? 1:1\n", ReadOptions{},
			result{LibSVM, [][]float64{{1}}, []float64{nan}, nil, ""}},
		{"libsvm real labels", "0.25 1:1\n-3e2 1:2\n", ReadOptions{},
			result{LibSVM, [][]float64{{1}, {2}}, []float64{0.25, -300}, nil, ""}},
		{"libsvm dim pads", "1 1:1\n", ReadOptions{Dim: 3},
			result{LibSVM, [][]float64{{1, 0, 0}}, []float64{1}, nil, ""}},
		{"libsvm ignore extra", "1 1:1 3:3 9:9\n2 4:4\n", ReadOptions{Dim: 2, IgnoreExtra: true},
			result{LibSVM, [][]float64{{1, 0}, {0, 0}}, []float64{1, 2}, nil, ""}},
		{"libsvm explicit zeros", "1 1:0 2:-0\n", ReadOptions{},
			result{LibSVM, [][]float64{{0, math.Copysign(0, -1)}}, []float64{1}, nil, ""}},
		{"libsvm explicit format", "1 1:1\n", ReadOptions{Format: LibSVM},
			result{LibSVM, [][]float64{{1}}, []float64{1}, nil, ""}},
		{"libsvm explicit lone", "1\n", ReadOptions{Format: LibSVM, Dim: 1},
			result{LibSVM, [][]float64{{0}}, []float64{1}, nil, ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(strings.NewReader(tc.in), tc.opt)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkData(t, d, tc.want)
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		opt       ReadOptions
		line, col int    // expected position; line 0: not a *ParseError
		msg       string // expected substring of the message
	}{
		{"empty", "", ReadOptions{}, 0, 0, "no data rows"},
		{"only comments", "# a\n\n  # b\n", ReadOptions{}, 0, 0, "no data rows"},
		{"csv header only", "x1,x2,y\n", ReadOptions{}, 0, 0, "no data rows"},
		{"libsvm explicit empty", "\n", ReadOptions{Format: LibSVM}, 0, 0, "no data rows"},
		{"csv ragged short", "1,2,3\n4,5,6\n\n7,8\n", ReadOptions{}, 4, 0,
			"row has 2 fields, expected 3 as on line 1"},
		{"csv ragged long", "# c\nx,y\n1,2\n1,2,3\n", ReadOptions{}, 4, 0,
			"row has 3 fields, expected 2 as on line 2"},
		{"csv non-numeric feature", "1,2,3\n4,abc,6\n", ReadOptions{}, 2, 2,
			`feature "abc" is not a number`},
		{"csv non-numeric truncated", "1,2,3\n4," + strings.Repeat("z", 100) + ",6\n",
			ReadOptions{}, 2, 2, `"` + strings.Repeat("z", 40) + `"…`},
		{"csv non-numeric label", "1,2,3\n4,5,x\n", ReadOptions{}, 2, 3,
			`label "x" is not a number`},
		{"csv nan feature", "1,2,3\n4,NaN,6\n", ReadOptions{}, 2, 2, "not finite"},
		{"csv inf feature", "1,2,3\n4,5,6\n-inf,5,6\n", ReadOptions{}, 3, 1, "not finite"},
		{"csv overflow feature", "1e999,2,3\n", ReadOptions{}, 1, 1, "not finite"},
		{"csv nan first row is data", "nan,2,3\n", ReadOptions{}, 1, 1, "not finite"},
		{"csv nan label", "1,2,nan\n", ReadOptions{}, 1, 3, "label \"nan\" is not finite"},
		{"csv empty feature", "1,,3\n", ReadOptions{}, 1, 2, "empty feature"},
		{"csv single field", "x\n1\n", ReadOptions{Format: CSV}, 1, 0,
			"needs a label column and at least one feature"},
		{"csv label col out of range", "1,2,3\n", ReadOptions{LabelCol: 4}, 1, 0,
			"label column 4 out of range: row has 3 fields"},
		{"csv dim mismatch", "1,2,3\n", ReadOptions{Dim: 3}, 1, 0,
			"2 input columns besides the label, expected 3"},
		{"csv unterminated quote", "1,\"2,3\n", ReadOptions{}, 1, 2, "unterminated"},
		{"csv text after quote", "1,\"2\"x,3\n", ReadOptions{}, 1, 2, "after closing quote"},
		{"csv trailing comment", "1,2,3\n1,2,3 # c\n", ReadOptions{}, 2, 3, "not a number"},
		{"csv explicit libsvm data", "1 1:2\n", ReadOptions{Format: CSV}, 1, 0,
			"needs a label column"},

		{"libsvm bad token", "1 1:1\n2 1:1 x\n", ReadOptions{}, 2, 3, `"x" is not index:value`},
		{"libsvm decreasing", "1 1:1\n\n2 3:1 2:1\n", ReadOptions{}, 3, 3,
			"index 2 in \"2:1\" is not greater than the previous index 3"},
		{"libsvm repeated", "1 2:1 2:1\n", ReadOptions{}, 1, 3, "not greater"},
		{"libsvm zero index", "1 0:1\n", ReadOptions{}, 1, 2, "indices are 1-based"},
		{"libsvm negative index", "1 -1:1\n", ReadOptions{}, 1, 2, "bad feature index"},
		{"libsvm huge index", "1 99999999999:1\n", ReadOptions{}, 1, 2, "bad feature index"},
		{"libsvm missing value", "1 1:\n", ReadOptions{}, 1, 2, "missing value"},
		{"libsvm bad value", "1 1:abc\n", ReadOptions{}, 1, 2, "not a number"},
		{"libsvm nan value", "1 1:1 2:nan\n", ReadOptions{}, 1, 3, "not finite"},
		{"libsvm bad label", "1 1:1\nabc 1:2\n", ReadOptions{}, 2, 1,
			`label "abc" is not a number`},
		{"libsvm inf label", "inf 1:2\n", ReadOptions{}, 1, 1, "not finite"},
		{"libsvm label with colon", "1:1 2:2\n", ReadOptions{}, 1, 1, "not a number"},
		{"libsvm beyond dim", "1 1:1\n2 1:1 5:2\n", ReadOptions{Dim: 4}, 2, 3,
			"index 5 in \"5:2\" exceeds the dimension 4"},
		{"libsvm csv line", "1 1:1\n1,2\n", ReadOptions{}, 2, 1, "looks like CSV"},
		{"libsvm all empty", "1\n2 # c\n", ReadOptions{Format: LibSVM}, 0, 0, "no features"},
		{"libsvm too big", "1 1000:1\n1\n", ReadOptions{MaxValues: 1000}, 0, 0,
			"exceeds the limit"},
		{"libsvm too big at the index", "1 1:1\n1 600:1\n", ReadOptions{MaxValues: 1000}, 0, 0,
			`feature index 600 in "600:1" makes 2 rows × 600 features`},
		{"csv too many values", "1,2,3\n4,5,6\n7,8,9\n", ReadOptions{MaxValues: 5}, 0, 0,
			"line 3: the input matrix passes the limit of 5 values"},
		{"line too long", "1,2,3\n" + strings.Repeat("1", 200) + ",1\n",
			ReadOptions{MaxLineBytes: 100}, 0, 0, "line 2 is longer than 100 bytes"},
		{"input too long", strings.Repeat("# comment\n", 100), ReadOptions{MaxBytes: 500}, 0, 0,
			"the input is longer than 500 bytes"},
		{"nul byte", "1,2,3\n1,\x00,3\n", ReadOptions{}, 2, 0, "holds a NUL byte"},
		{"utf-16", "\xff\xfe1\x00,\x002\x00\n\x00", ReadOptions{}, 1, 0, "UTF-16 text"},
		{"cr only", "1,2,3\r4,5,6\r", ReadOptions{}, 1, 0, "carriage return inside the line"},
		{"task label not utf-8", "\xff,1,2\n", ReadOptions{TaskCol: TaskFirst}, 1, 1,
			"is not UTF-8 text"},
		{"task token not utf-8", "1 task:\xff 1:1\n", ReadOptions{}, 1, 2, "is not UTF-8 text"},

		{"auto lone then csv", "1\n\n2,3\n", ReadOptions{}, 3, 0,
			"comma-separated row after line 1"},
		{"auto lone only", "1\n2\n", ReadOptions{}, 0, 0, "single number"},
		{"auto dense whitespace", "# c\n1 2 3\n", ReadOptions{}, 2, 0, "cannot tell the format"},
		{"auto word", "hello\n", ReadOptions{}, 1, 0, "cannot tell the format"},
		{"auto lone then dense", "1\n1 2\n", ReadOptions{}, 2, 2, "is not index:value"},
		{"auto libsvm missing label", "1:1 2:2\n", ReadOptions{}, 1, 1, "not a number"},

		{"bad option dim", "1,2\n", ReadOptions{Dim: -1}, 0, 0, "invalid Dim"},
		{"bad option label", "1,2\n", ReadOptions{LabelCol: -2}, 0, 0, "invalid label column"},
		{"bad option format", "1,2\n", ReadOptions{Format: 7}, 0, 0, "invalid format"},
		{"bad option header", "1,2\n", ReadOptions{Header: 7}, 0, 0, "invalid header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(strings.NewReader(tc.in), tc.opt)
			if err == nil {
				t.Fatalf("no error; got %v %v", rows(d), d.Y)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			var pe *ParseError
			if tc.line == 0 {
				if errors.As(err, &pe) {
					t.Errorf("got a ParseError %v, want another error", err)
				}
				return
			}
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if pe.Line != tc.line || pe.Col != tc.col {
				t.Errorf("error at line %d col %d, want line %d col %d: %v", pe.Line, pe.Col,
					tc.line, tc.col, err)
			}
		})
	}
}

func TestErrNoData(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# x\n", "a,b\n"} {
		if _, err := Read(strings.NewReader(in), ReadOptions{}); !errors.Is(err, ErrNoData) {
			t.Errorf("%q: error %v, want ErrNoData", in, err)
		}
	}
}

func TestParseErrorText(t *testing.T) {
	tests := []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{Line: 3, Col: 2, Msg: "m"}, "line 3, column 2: m"},
		{&ParseError{Line: 3, Col: 2, Msg: "m", token: true}, "line 3, token 2: m"},
		{&ParseError{Line: 3, Msg: "m"}, "line 3: m"},
		{&ParseError{Msg: "m"}, "m"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.err, got, tc.want)
		}
	}
	_, err := Read(strings.NewReader("1 1:1\n2 1:x\n"), ReadOptions{})
	if want := `line 2, token 2: value in "1:x" is not a number`; err == nil ||
		err.Error() != want {
		t.Errorf("libsvm error %v, want %q", err, want)
	}
	_, err = Read(strings.NewReader("1,2\n3,x\n"), ReadOptions{})
	if want := `line 2, column 2: label "x" is not a number ` +
		`(use ? or leave it empty for an unlabelled row)`; err == nil || err.Error() != want {
		t.Errorf("csv error %v, want %q", err, want)
	}
}

// A gzip file that expands beyond MaxBytes is refused with a *LimitError, and one of exactly
// MaxBytes is read.
func TestGzipExpansionLimit(t *testing.T) {
	text := strings.Repeat("1,2\n", 1000)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(text))
	zw.Close()
	_, err := Read(bytes.NewReader(buf.Bytes()), ReadOptions{MaxBytes: int64(len(text)) - 1})
	var le *LimitError
	if !errors.As(err, &le) ||
		!strings.Contains(err.Error(), "the gzip data expands to more than 3999 bytes") {
		t.Errorf("error %v, want a *LimitError on the expansion", err)
	}
	if d, err := Read(bytes.NewReader(buf.Bytes()),
		ReadOptions{MaxBytes: int64(len(text))}); err != nil || len(d.Y) != 1000 {
		t.Errorf("at the limit: %v", err)
	}
}
