package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/ivmlab/ivm/internal/decimal"
)

// bufSize is the size of the read buffer; longer lines are assembled from several reads.
const bufSize = 64 << 10

// ReadFile reads the data set in the named file; see Read. A gzip-compressed file is
// recognised by its magic bytes, whatever its name. Errors are prefixed with the path.
func ReadFile(path string, opt ReadOptions) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a data file", path)
	}
	d, err := Read(f, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Read reads a data set in CSV or libsvm format from r, gunzipping it first when it starts
// with the gzip magic bytes. Errors in the content are *ParseError values naming the line;
// an input without data rows gives ErrNoData.
func Read(r io.Reader, opt ReadOptions) (*Data, error) {
	lr, opt, done, err := openLines(r, opt)
	if err != nil {
		return nil, err
	}
	defer done()
	switch opt.Format {
	case CSV:
		return readCSV(lr, opt, nil)
	case LibSVM:
		return readLibSVM(lr, opt, nil, false)
	}
	format, first, lone, err := detect(lr)
	if err != nil {
		return nil, err
	}
	if format == CSV {
		return readCSV(lr, opt, first)
	}
	return readLibSVM(lr, opt, first, lone)
}

// Detected is what DetectFormat reads of a file's first data line.
type Detected struct {
	// Format is the format Read would read the file in: CSV or LibSVM, or Auto where the line
	// is a lone label, which a later row may show to be CSV.
	Format Format
	// Fields is the number of fields of a CSV line (its task and label columns included); 0
	// for libsvm, or where the line is not valid CSV.
	Fields int
}

// DetectFormat reads r up to its first data line and returns the format Read would read it
// in with opt (opt.Format when it is set) and, for CSV, its number of fields. It fails
// where Read would fail on the lines before.
func DetectFormat(r io.Reader, opt ReadOptions) (Detected, error) {
	lr, opt, done, err := openLines(r, opt)
	if err != nil {
		return Detected{}, err
	}
	defer done()
	format, line, lone, err := detect(lr)
	if lone {
		format = Auto
	}
	if opt.Format != Auto && line != nil { // the line's format does not matter
		format, err = opt.Format, nil
	}
	d := Detected{Format: format}
	if err == nil && format == CSV {
		if fields, err := splitCSV(nil, line, lr.line); err == nil {
			d.Fields = len(fields)
		}
	}
	return d, err
}

// openLines checks opt and returns it with its limits set, and the lines of r, gunzipped
// when r starts with the gzip magic bytes; done closes the gzip stream.
func openLines(r io.Reader, opt ReadOptions) (*lineReader, ReadOptions, func(), error) {
	if err := opt.check(); err != nil {
		return nil, opt, nil, err
	}
	opt = opt.limits()
	done := func() {}
	br := bufio.NewReaderSize(&cappedReader{r: r, left: opt.MaxBytes, max: opt.MaxBytes}, bufSize)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, opt, nil, fmt.Errorf("dataset: gzip: %w", err)
		}
		done = func() { zr.Close() }
		br = bufio.NewReaderSize(&cappedReader{r: zr, left: opt.MaxBytes, max: opt.MaxBytes,
			gzip: true}, bufSize)
	}
	return &lineReader{r: br, maxLine: opt.MaxLineBytes}, opt, done, nil
}

// detect classifies the first data line of lr (see the package documentation) and returns
// its format and the line, which the parser of that format is handed with the rest of lr
// (the line too where it cannot be classified); lone says the line is a lone label, read as
// libsvm until a row says otherwise.
func detect(lr *lineReader) (format Format, line []byte, lone bool, err error) {
	for {
		line, ok := lr.next()
		if !ok {
			if err := lr.error(); err != nil {
				return Auto, nil, false, err
			}
			return Auto, nil, false, ErrNoData
		}
		if skippable(line) {
			if !lr.skip(line) {
				return Auto, nil, false, lr.error()
			}
			continue
		}
		lr.skipped = 0
		content := line
		if h := bytes.IndexByte(content, '#'); h >= 0 {
			content = content[:h]
		}
		switch {
		case bytes.IndexByte(content, ',') >= 0:
			return CSV, line, false, nil
		case bytes.IndexByte(content, ':') >= 0:
			return LibSVM, line, false, nil
		case isLabelToken(trimSpace(content)):
			return LibSVM, line, true, nil
		case bytes.IndexByte(line, ',') >= 0: // a '#' inside a CSV field, e.g. a header name
			return CSV, line, false, nil
		}
		return Auto, line, false, &ParseError{Line: lr.line, Msg: "cannot tell the format from " +
			snippet(trimSpace(line)) +
			": expected CSV (comma-separated) or libsvm (label index:value ...); " +
			"set the format explicitly"}
	}
}

// isLabelToken reports whether tok is one whitespace-free number or "?".
func isLabelToken(tok []byte) bool {
	if len(tok) == 0 || bytes.ContainsAny(tok, " \t\v\f\r") {
		return false
	}
	if len(tok) == 1 && tok[0] == '?' {
		return true
	}
	_, ok := parseNumber(tok)
	return ok
}

// cappedReader fails with a *LimitError once more than max bytes would be read, so that
// neither an endless device nor a gzip bomb is read for ever.
type cappedReader struct {
	r         io.Reader
	left, max int64
	gzip      bool // the bytes are gunzipped text, for the message
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		// At the limit: an input of exactly max bytes still ends cleanly.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 {
			return 0, err
		}
		what := fmt.Sprintf("the input is longer than %d bytes", c.max)
		if c.gzip {
			what = fmt.Sprintf("the gzip data expands to more than %d bytes", c.max)
		}
		return 0, &LimitError{What: what}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// lineReader returns the lines of a bufio.Reader without line ends, reusing one buffer,
// and counts them.
type lineReader struct {
	r       *bufio.Reader
	buf     []byte
	line    int   // number of the line last returned
	err     error // first error met (io.EOF at end of input)
	maxLine int   // longest line accepted, in bytes
	skipped int   // bytes of the blank and comment lines since the last data line
}

// maxSkipped bounds a run of blank or comment lines: an endless stream of them (yes "" |
// ivm train /dev/stdin) ends with an error instead of being read up to -max-mem's cap.
const maxSkipped = 1 << 20

// skip records line as blank or a comment, and ends the input once a run of them passes
// maxSkipped bytes.
func (lr *lineReader) skip(line []byte) bool {
	lr.skipped += len(line) + 1
	if lr.skipped <= maxSkipped {
		return true
	}
	lr.err = &ParseError{Line: lr.line,
		Msg: fmt.Sprintf("more than %d bytes of blank or comment lines "+
			"in a row, without a data row (not a data file?)", maxSkipped)}
	return false
}

// next returns the next line without "\n" or "\r\n", or false at the end of the input or
// on a read error (see error). The slice is valid until the next call.
func (lr *lineReader) next() ([]byte, bool) {
	if lr.err != nil {
		return nil, false
	}
	lr.buf = lr.buf[:0]
	var line []byte
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			lr.buf = append(lr.buf, chunk...)
			if len(lr.buf) > lr.maxLine {
				return lr.tooLong(lr.line + 1)
			}
			continue
		}
		if err != nil {
			lr.err = err
			if err != io.EOF {
				return nil, false
			}
		}
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			line = lr.buf
		} else {
			line = chunk
		}
		break
	}
	if lr.err == io.EOF && len(line) == 0 {
		return nil, false
	}
	lr.line++
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > lr.maxLine {
		return lr.tooLong(lr.line)
	}
	if lr.line == 1 {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
		if bytes.HasPrefix(line, []byte("\xff\xfe")) || bytes.HasPrefix(line, []byte("\xfe\xff")) {
			lr.err = &ParseError{Line: 1,
				Msg: "UTF-16 text (it starts with a UTF-16 byte order mark): " +
					"save the file as UTF-8"}
			return nil, false
		}
	}
	if bytes.IndexByte(line, 0) >= 0 {
		lr.err = &ParseError{Line: lr.line,
			Msg: "holds a NUL byte: a binary file (or UTF-16 text), not CSV or libsvm text"}
		return nil, false
	}
	if bytes.IndexByte(line, '\r') >= 0 {
		lr.err = &ParseError{Line: lr.line,
			Msg: "holds a carriage return inside the line (old Mac line ends?): " +
				"convert the line ends to \\n or \\r\\n"}
		return nil, false
	}
	return line, true
}

// tooLong ends the input at line ln, longer than maxLine.
func (lr *lineReader) tooLong(ln int) ([]byte, bool) {
	lr.err = &LimitError{What: fmt.Sprintf(
		"line %d is longer than %d bytes (a binary file, or one without line ends?)",
		ln, lr.maxLine)}
	return nil, false
}

// error returns the read error that ended the input, nil at a clean end of input.
func (lr *lineReader) error() error {
	if lr.err == nil || lr.err == io.EOF {
		return nil
	}
	var pe *ParseError
	var le *LimitError
	if errors.As(lr.err, &pe) || errors.As(lr.err, &le) {
		return lr.err
	}
	if errors.Is(lr.err, gzip.ErrChecksum) || errors.Is(lr.err, gzip.ErrHeader) {
		return fmt.Errorf("dataset: gzip data after line %d: %w", lr.line, lr.err)
	}
	return fmt.Errorf("dataset: read error after line %d: %w", lr.line, lr.err)
}

// skippable reports whether a line is blank or a '#' comment.
func skippable(line []byte) bool {
	t := trimSpace(line)
	return len(t) == 0 || t[0] == '#'
}

// isSpace reports whether c is a blank: ' ', '\t', '\v', '\f' or '\r', the one test most
// bytes of a file meet, decided by its first comparison for all but these and '\n'.
func isSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c >= '\t' && c <= '\r' && c != '\n')
}

// trimSpace removes ASCII blanks at both ends.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// parseNumber parses a decimal (or Go hexadecimal) floating-point number, without
// underscores. It reports
// false for text that is not a number; values too large for float64 come back as ±Inf
// and NaN/Inf spellings are numbers too, so callers check finiteness.
func parseNumber(b []byte) (float64, bool) {
	if v, ok := decimal.Short(b); ok {
		return v, true
	}
	if bytes.IndexByte(b, '_') >= 0 {
		return 0, false // Go's digit separators (1_000): no data format writes them
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// rowParser is a format's parser: it takes data rows one at a time and builds the Data.
type rowParser interface {
	row(line []byte, lineNo int) error
	finish() (*Data, error)
}

// parseRows feeds p the line first (if not nil, already read from lr) and every later line
// that is not blank or a comment, then finishes.
func parseRows(lr *lineReader, first []byte, p rowParser) (*Data, error) {
	if first != nil {
		if err := p.row(first, lr.line); err != nil {
			return nil, err
		}
	}
	for {
		line, ok := lr.next()
		if !ok {
			return finishRows(lr, p)
		}
		if err := feedLine(lr, line, p); err != nil {
			return nil, err
		}
	}
}
