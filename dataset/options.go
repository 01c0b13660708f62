package dataset

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Format is a file format.
type Format int

const (
	// Auto decides the format from the content (see the package documentation).
	Auto Format = iota
	// CSV is dense comma-separated values with one label column.
	CSV
	// LibSVM is the sparse libsvm / SVM-light format "label idx:val ...".
	LibSVM
)

// String returns the name ParseFormat accepts: "auto", "csv" or "libsvm".
func (f Format) String() string {
	switch f {
	case Auto:
		return "auto"
	case CSV:
		return "csv"
	case LibSVM:
		return "libsvm"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat parses "auto", "csv" or "libsvm" (also "svmlight"), ignoring case.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "csv":
		return CSV, nil
	case "libsvm", "svmlight", "svm-light":
		return LibSVM, nil
	}
	return Auto, fmt.Errorf("dataset: unknown format %q (want auto, csv or libsvm)", s)
}

// Header says whether the first row of a CSV file holds column names.
type Header int

const (
	// HeaderAuto takes the first row as a header when a feature field is not a number or
	// the label field is neither a number nor an unlabelled marker ("?" or empty).
	HeaderAuto Header = iota
	// HeaderYes always takes the first row as a header.
	HeaderYes
	// HeaderNo never takes the first row as a header.
	HeaderNo
)

// String returns the name ParseHeader accepts: "auto", "yes" or "no".
func (h Header) String() string {
	switch h {
	case HeaderAuto:
		return "auto"
	case HeaderYes:
		return "yes"
	case HeaderNo:
		return "no"
	}
	return "Header(" + strconv.Itoa(int(h)) + ")"
}

// ParseHeader parses "auto", "yes" (or "true") or "no" (or "false"), ignoring case.
func ParseHeader(s string) (Header, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return HeaderAuto, nil
	case "yes", "true", "y", "1":
		return HeaderYes, nil
	case "no", "false", "n", "0":
		return HeaderNo, nil
	}
	return HeaderAuto, fmt.Errorf("dataset: unknown header option %q (want auto, yes or no)", s)
}

// LabelCol picks the label column of a CSV file: LabelLast (the zero value, the default)
// or the 1-based column number N (LabelFirst is 1).
type LabelCol int

const (
	// LabelLast is the last column.
	LabelLast LabelCol = 0
	// LabelFirst is the first column.
	LabelFirst LabelCol = 1
)

// String returns "last", "first" or the column number.
func (c LabelCol) String() string {
	switch c {
	case LabelLast:
		return "last"
	case LabelFirst:
		return "first"
	}
	return strconv.Itoa(int(c))
}

// ParseLabelCol parses "last", "first" or a 1-based column number "N".
func ParseLabelCol(s string) (LabelCol, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "last", "":
		return LabelLast, nil
	case "first":
		return LabelFirst, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 {
		return LabelLast,
			fmt.Errorf("dataset: bad label column %q (want first, last or a column number ≥ 1)", s)
	}
	return LabelCol(n), nil
}

// TaskCol picks the task column of a CSV file: TaskNone (the zero value: no task column),
// TaskLast, or the 1-based column number N (TaskFirst is 1). The task column holds each row's
// task label, any text; it is neither a feature nor the target.
type TaskCol int

const (
	// TaskNone means the file has no task column.
	TaskNone TaskCol = 0
	// TaskFirst is the first column.
	TaskFirst TaskCol = 1
	// TaskLast is the last column.
	TaskLast TaskCol = -1
)

// String returns "none", "first", "last" or the column number.
func (c TaskCol) String() string {
	switch c {
	case TaskNone:
		return "none"
	case TaskFirst:
		return "first"
	case TaskLast:
		return "last"
	}
	return strconv.Itoa(int(c))
}

// ParseTaskCol parses "none" (or ""), "first", "last" or a 1-based column number "N".
func ParseTaskCol(s string) (TaskCol, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "none", "":
		return TaskNone, nil
	case "first":
		return TaskFirst, nil
	case "last":
		return TaskLast, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 {
		return TaskNone,
			fmt.Errorf("dataset: bad task column %q "+
				"(want none, first, last or a column number ≥ 1)", s)
	}
	return TaskCol(n), nil
}

// DefaultMaxValues is the default limit on N×D (and on the stored libsvm features): 2^27
// values, 1 GiB of float64.
const DefaultMaxValues = 1 << 27

// DefaultMaxLineBytes is the default limit on the length of one line (64 MiB): a file
// without line ends, such as /dev/zero or a binary file, must not be read into memory whole.
const DefaultMaxLineBytes = 64 << 20

// DefaultMaxBytes is the default limit on the text read, after gunzipping (16 GiB): a small
// gzip file can expand a thousandfold.
const DefaultMaxBytes = 16 << 30

// maxIndex is the largest feature index or dimension accepted.
const maxIndex = 1<<31 - 1

// ReadOptions control Read. The zero value reads any supported file with the defaults.
type ReadOptions struct {
	// Format is the file format; Auto decides from the content.
	Format Format
	// LabelCol is the label column of a CSV file; the default is the last column. Column
	// numbers count every field of the row, the task column's too.
	LabelCol LabelCol
	// TaskCol is the task column of a CSV file (default none); its field becomes Data.Task.
	// It must differ from the label column. libsvm rows give their task by a "task:NAME"
	// token instead, whatever TaskCol says.
	TaskCol TaskCol
	// Header says whether the first row of a CSV file is a header; default auto-detect.
	Header Header
	// Dim > 0 is the number of input columns to produce. libsvm: a feature index above
	// Dim is an error naming the line, unless IgnoreExtra. CSV: the file must have exactly
	// Dim feature columns. Dim == 0 infers the dimension (libsvm: the largest index seen).
	Dim int
	// LabelOptional accepts rows without a label, each read as unlabelled (Y NaN), for
	// files of rows to predict or to query: a CSV file whose rows have Dim fields besides a
	// task column (Dim must be set) has no label column, and a libsvm row whose first token
	// is index:value has no label. Other files are read as without it.
	LabelOptional bool
	// IgnoreExtra drops libsvm features with index > Dim instead of failing, as
	// svm-predict does. It has no effect without Dim or on CSV.
	IgnoreExtra bool
	// MaxValues limits N×D of the input matrix, which a few huge libsvm indices or a gzip
	// bomb could otherwise make enormous, and the number of libsvm features stored while
	// reading; 0 means DefaultMaxValues. Reading stops as soon as the limit is passed.
	MaxValues int
	// MaxLineBytes limits the length of a line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxBytes limits the text read (after gunzipping); 0 means DefaultMaxBytes.
	MaxBytes int64
}

// LimitError is returned when an input passes one of the ReadOptions limits. Callers that
// set the limits from a command-line flag can say which flag raises them.
type LimitError struct {
	// What is passed, e.g. "line 3 is longer than 67108864 bytes".
	What string
}

func (e *LimitError) Error() string { return "dataset: " + e.What }

// limits returns the options with the zero limits replaced by their defaults.
func (o ReadOptions) limits() ReadOptions {
	if o.MaxValues == 0 {
		o.MaxValues = DefaultMaxValues
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

func (o *ReadOptions) check() error {
	switch {
	case o.Format < Auto || o.Format > LibSVM:
		return fmt.Errorf("dataset: invalid format %v", o.Format)
	case o.Header < HeaderAuto || o.Header > HeaderNo:
		return fmt.Errorf("dataset: invalid header option %v", o.Header)
	case o.LabelCol < 0:
		return fmt.Errorf("dataset: invalid label column %d", int(o.LabelCol))
	case o.TaskCol < TaskLast || o.TaskCol > maxIndex:
		return fmt.Errorf("dataset: invalid task column %d", int(o.TaskCol))
	case o.Dim < 0 || o.Dim > maxIndex:
		return fmt.Errorf("dataset: invalid Dim %d", o.Dim)
	case o.MaxValues < 0 || o.MaxLineBytes < 0 || o.MaxBytes < 0:
		return fmt.Errorf("dataset: invalid limits %d, %d, %d",
			o.MaxValues, o.MaxLineBytes, o.MaxBytes)
	}
	return nil
}

// Data is a data set read from a file.
type Data struct {
	// X holds the inputs, one row per data point (N×D, N ≥ 1, D ≥ 1).
	X *mat.Dense
	// Y holds the targets (length N); NaN marks an unlabelled row (CSV "?" or an empty
	// label field, libsvm "?").
	Y []float64
	// Names holds the feature names of a CSV header (length D), nil without a header.
	Names []string
	// LabelName is the label column's name in a CSV header, "" without a header.
	LabelName string
	// Task holds each row's task label as written (the CSV task column's field, unquoted
	// and trimmed of blanks, or the NAME of a libsvm "task:NAME" token); nil when the data
	// have no tasks.
	Task []string
	// TaskName is the task column's name in a CSV header, "" otherwise.
	TaskName string
	// Format is the format that was read (CSV or LibSVM, never Auto).
	Format Format
	// MaxIndex is the largest libsvm feature index in the input, features dropped by
	// IgnoreExtra included (0 for CSV), so that a caller can say how many were dropped.
	MaxIndex int
}

// ErrNoData is returned when the input holds no data rows.
var ErrNoData = errors.New("dataset: no data rows")

// ParseError is an error in the content of an input, located by line.
type ParseError struct {
	// Line is the 1-based line number, counting every line (blank and comment lines too).
	Line int
	// Col is the 1-based CSV field or libsvm token (the label is token 1); 0 when the
	// error concerns the whole line.
	Col int
	// Msg describes the error.
	Msg string

	token bool  // Col counts libsvm tokens
	err   error // a sentinel for errors.Is (ErrDim), or nil
}

// ErrDim marks a *ParseError for a row whose number of inputs is not ReadOptions.Dim.
var ErrDim = errors.New("dataset: input dimension differs from Dim")

// Unwrap returns the sentinel the error is an instance of, if any.
func (e *ParseError) Unwrap() error { return e.err }

// Error formats the error as "line L, column C: msg" (libsvm: "line L, token C: msg").
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		unit := "column"
		if e.token {
			unit = "token"
		}
		return fmt.Sprintf("line %d, %s %d: %s", e.Line, unit, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// snippet quotes b for an error message, truncated to a readable length.
func snippet(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
