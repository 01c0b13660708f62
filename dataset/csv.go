package dataset

import (
	"bytes"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/decimal"
)

// csvParser accumulates CSV rows into a flat row-major feature slice.
type csvParser struct {
	opt       ReadOptions
	nf        int // fields per row; 0 before the first row
	firstLine int // line of the first row (header or data)
	label     int // 0-based index of the label field
	task      int // 0-based index of the task field, −1 without one
	// flat holds the latest rows' features, row-major; chunks the earlier rows', in order,
	// values counting them: a large file's values are never copied to grow one slice.
	flat      []float64
	chunks    [][]float64
	values    int
	y         []float64
	names     []string
	labelName string
	tasks     []string
	taskName  string
	fields    [][]byte
	plain     []float64 // plainRow's values of a line
	forked    bool      // parses later rows apart: the merge checks the limit (parallel.go)
}

// plainRows says whether plain numbers are parsed as they are split (plainRow, and libsvm's
// plainFeature); tests read without it too, for the general way's values and errors.
var plainRows = true

// csvChunk is the most values a chunk of flat holds.
const csvChunk = 1 << 20

// readCSV parses CSV rows; first, if not nil, is a line already read from lr.
func readCSV(lr *lineReader, opt ReadOptions, first []byte) (*Data, error) {
	p := &csvParser{opt: opt}
	return parseRowsParallel(lr, first, p)
}

// row parses one non-blank, non-comment line.
func (p *csvParser) row(line []byte, ln int) error {
	if plainRows && p.nf > 0 && p.task < 0 && p.plainRow(line) {
		return p.checkLimit(ln)
	}
	var err error
	p.fields, err = splitCSV(p.fields[:0], line, ln)
	if err != nil {
		return err
	}
	f := p.fields
	if p.nf == 0 {
		return p.firstRow(f, ln)
	}
	if len(f) != p.nf {
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf("row has %d fields, expected %d as on line %d",
				len(f), p.nf, p.firstLine)}
	}
	return p.data(f, ln)
}

// firstRow fixes the field count and label column and decides whether f is a header.
func (p *csvParser) firstRow(f [][]byte, ln int) error {
	n := len(f)
	task := -1
	if p.opt.TaskCol != TaskNone {
		if n < 3 {
			return &ParseError{Line: ln,
				Msg: fmt.Sprintf(
					"row has %d fields: a CSV file with a task column needs a task, a label "+
						"and at least one feature column", n)}
		}
		task = n - 1
		if p.opt.TaskCol != TaskLast {
			task = int(p.opt.TaskCol) - 1
			if task >= n {
				return &ParseError{Line: ln,
					Msg: fmt.Sprintf("task column %d out of range: row has %d fields",
						int(p.opt.TaskCol), n)}
			}
		}
	}
	if p.unlabelled(n, task) {
		p.nf, p.label, p.task, p.firstLine = n, -1, task, ln
		return p.header(f, ln, p.opt.Dim)
	}
	if n < 2 {
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf(
				"row has 1 field %s: a CSV file needs a label column and at least one "+
					"feature column", snippet(f[0]))}
	}
	label := n - 1
	if p.opt.LabelCol != LabelLast {
		label = int(p.opt.LabelCol) - 1
		if label >= n {
			return &ParseError{Line: ln,
				Msg: fmt.Sprintf("label column %d out of range: row has %d fields",
					int(p.opt.LabelCol), n)}
		}
	}
	if label == task {
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf("column %d is both the label and the task column", label+1)}
	}
	nfeat := n - 1
	if task >= 0 {
		nfeat--
	}
	if p.opt.Dim > 0 && nfeat != p.opt.Dim {
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf("%d input columns besides the label%s, expected %d",
				nfeat, taskNote(task), p.opt.Dim), err: ErrDim}
	}
	p.nf, p.label, p.task, p.firstLine = n, label, task, ln
	return p.header(f, ln, nfeat)
}

// unlabelled reports whether rows of n fields, the task's at index task (−1: none), have no
// label column: LabelOptional and exactly Dim other fields.
func (p *csvParser) unlabelled(n, task int) bool {
	if task >= 0 {
		n--
	}
	return p.opt.LabelOptional && p.opt.Dim > 0 && n == p.opt.Dim
}

// header decides whether the first row f, of nfeat features, is a header, and reads it as
// the names or as data.
func (p *csvParser) header(f [][]byte, ln, nfeat int) error {
	label, task := p.label, p.task
	header := p.opt.Header == HeaderYes
	if p.opt.Header == HeaderAuto {
		for i, b := range f {
			if i == task {
				continue // task labels are any text
			}
			b = trimSpace(b)
			_, num := parseNumber(b)
			if i == label {
				num = num || isMissing(b)
			} else {
				num = num || len(b) == 0 // an empty feature is a data error, not a name
			}
			if !num {
				header = true
				break
			}
		}
	}
	if !header {
		return p.data(f, ln)
	}
	p.names = make([]string, 0, nfeat)
	for i, b := range f {
		switch i {
		case label:
			p.labelName = string(b)
		case task:
			p.taskName = string(b)
		default:
			p.names = append(p.names, string(b))
		}
	}
	return nil
}

// isMissing reports whether a label field marks an unlabelled row.
func isMissing(b []byte) bool {
	return len(b) == 0 || (len(b) == 1 && b[0] == '?')
}

// data parses one data row.
func (p *csvParser) data(f [][]byte, ln int) error {
	if p.label < 0 {
		p.y = append(p.y, math.NaN())
	}
	for i, b := range f {
		b = trimSpace(b)
		if i == p.task {
			if len(b) == 0 {
				return &ParseError{Line: ln, Col: i + 1, Msg: "empty task label"}
			}
			if !utf8.Valid(b) {
				return &ParseError{Line: ln, Col: i + 1,
					Msg: "task label " + snippet(b) + " is not UTF-8 text"}
			}
			p.tasks = append(p.tasks, string(b))
			continue
		}
		if i == p.label {
			if isMissing(b) {
				p.y = append(p.y, math.NaN())
				continue
			}
			v, ok := parseNumber(b)
			switch {
			case !ok:
				return &ParseError{Line: ln, Col: i + 1,
					Msg: "label " + snippet(b) +
						" is not a number (use ? or leave it empty for an unlabelled row)"}
			case !finite(v):
				return &ParseError{Line: ln, Col: i + 1,
					Msg: "label " + snippet(b) +
						" is not finite (use ? or leave it empty for an unlabelled row)"}
			}
			p.y = append(p.y, v)
			continue
		}
		if len(b) == 0 {
			return &ParseError{Line: ln, Col: i + 1,
				Msg: "empty feature field (missing values are not supported)"}
		}
		v, ok := parseNumber(b)
		switch {
		case !ok:
			return &ParseError{Line: ln, Col: i + 1, Msg: "feature " + snippet(b) +
				" is not a number"}
		case !finite(v):
			return &ParseError{Line: ln, Col: i + 1, Msg: "feature " + snippet(b) +
				" is not finite (NaN or ±Inf, or out of range)"}
		}
		if len(p.flat) == cap(p.flat) {
			p.grow()
		}
		p.flat = append(p.flat, v)
	}
	return p.checkLimit(ln)
}

// checkLimit fails once the rows so far, up to line ln, pass MaxValues.
func (p *csvParser) checkLimit(ln int) error {
	if n := p.values + len(p.flat); n > p.opt.MaxValues && !p.forked {
		return &LimitError{What: fmt.Sprintf(
			"line %d: the input matrix passes the limit of %d values (%d rows of %d inputs so far)",
			ln, p.opt.MaxValues, len(p.y), n/len(p.y))}
	}
	return nil
}

// plainRow takes line where it is p.nf plain numbers (decimal.ShortPrefix's: digits, at most
// one point, a sign) between commas, with no blank, quote, exponent or missing value and no
// task column: a numeric file's rows, whose fields are then found by their parse instead
// of a split before it, in half the time. It reports false, having kept nothing, for any
// other line, which row reads the general way; a row it takes gets the values row would
// give it.
func (p *csvParser) plainRow(line []byte) bool {
	vals := p.plain[:0]
	for i := 0; ; {
		v, end, ok := decimal.ShortPrefix(line[i:])
		if !ok || len(vals) == p.nf {
			return false
		}
		vals = append(vals, v)
		if i += end; i == len(line) {
			break
		}
		if line[i] != ',' {
			return false
		}
		i++
	}
	p.plain = vals
	if len(vals) != p.nf {
		return false
	}
	if p.label < 0 {
		p.y = append(p.y, math.NaN())
	} else {
		p.y = append(p.y, vals[p.label])
	}
	for i, v := range vals {
		if i == p.label {
			continue
		}
		if len(p.flat) == cap(p.flat) {
			p.grow()
		}
		p.flat = append(p.flat, v)
	}
	return true
}

// grow ends flat's chunk, which is full, and starts one twice as large, from 1 024 values up
// to csvChunk: values are never copied to grow a slice (finish copies each once).
func (p *csvParser) grow() {
	size := min(csvChunk, max(1024, 2*cap(p.flat)))
	p.flush()
	p.flat = make([]float64, 0, size)
}

// flush ends flat's chunk.
func (p *csvParser) flush() {
	if len(p.flat) > 0 {
		p.chunks = append(p.chunks, p.flat)
		p.values += len(p.flat)
		p.flat = nil
	}
}

func (p *csvParser) rows() int { return len(p.y) }

func (p *csvParser) fork() forkParser {
	if p.nf == 0 {
		return nil // the first row, which may be a header, is still to come
	}
	return &csvParser{opt: p.opt, nf: p.nf, firstLine: p.firstLine, label: p.label,
		task: p.task, forked: true}
}

func (p *csvParser) fits(part forkParser) bool {
	q := part.(*csvParser)
	return p.values+len(p.flat)+q.values+len(q.flat) <= p.opt.MaxValues
}

func (p *csvParser) merge(part forkParser) {
	q := part.(*csvParser)
	p.y = append(p.y, q.y...)
	p.tasks = append(p.tasks, q.tasks...)
	p.flush()
	q.flush()
	p.chunks = append(p.chunks, q.chunks...)
	p.values += q.values
}

// taskNote says, in a column-count message, whether a task column was discounted.
func taskNote(task int) string {
	if task >= 0 {
		return " and the task"
	}
	return ""
}

func (p *csvParser) finish() (*Data, error) {
	if len(p.y) == 0 {
		return nil, ErrNoData
	}
	nfeat := p.nf
	if p.task >= 0 {
		nfeat--
	}
	if p.label >= 0 {
		nfeat--
	}
	p.flush()
	var flat []float64
	if len(p.chunks) == 1 {
		flat = p.chunks[0]
	} else {
		flat = concat(p.chunks, p.values)
		p.chunks = nil
	}
	return &Data{
		X:         mat.NewDense(len(p.y), nfeat, flat),
		Y:         p.y,
		Names:     p.names,
		LabelName: p.labelName,
		Task:      p.tasks,
		TaskName:  p.taskName,
		Format:    CSV,
	}, nil
}

// concat returns the chunks' n values in one slice, the chunks copied on every core: a
// large file's last step, which one core would take alone.
func concat(chunks [][]float64, n int) []float64 {
	flat := make([]float64, n)
	parts := min(readers(0), max(1, n/partValues))
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := w*len(chunks)/parts, (w+1)*len(chunks)/parts
		at := 0
		for _, c := range chunks[:lo] {
			at += len(c)
		}
		wg.Go(func() {
			for _, c := range chunks[lo:hi] {
				at += copy(flat[at:], c)
			}
		})
	}
	wg.Wait()
	return flat
}

// splitCSV appends the fields of line to dst. Fields are trimmed of blanks; a field
// enclosed in double quotes may hold commas and "" for a quote, and is kept as it is
// (numbers are parsed with surrounding blanks ignored).
func splitCSV(dst [][]byte, line []byte, ln int) ([][]byte, error) {
	i := 0
	for {
		j := i
		for j < len(line) && isSpace(line[j]) {
			j++
		}
		if j == len(line) || line[j] != '"' {
			c := bytes.IndexByte(line[i:], ',')
			if c < 0 {
				return append(dst, trimSpace(line[i:])), nil
			}
			dst = append(dst, trimSpace(line[i:i+c]))
			i += c + 1
			continue
		}
		// Quoted field.
		k, esc := j+1, false
		for {
			q := bytes.IndexByte(line[k:], '"')
			if q < 0 {
				return dst, &ParseError{Line: ln, Col: len(dst) + 1,
					Msg: "unterminated quoted field"}
			}
			k += q
			if k+1 < len(line) && line[k+1] == '"' {
				k += 2
				esc = true
				continue
			}
			break
		}
		field := line[j+1 : k]
		if esc {
			field = bytes.ReplaceAll(field, []byte(`""`), []byte(`"`))
		}
		dst = append(dst, field)
		m := k + 1
		for m < len(line) && isSpace(line[m]) {
			m++
		}
		if m == len(line) {
			return dst, nil
		}
		if line[m] != ',' {
			return dst, &ParseError{Line: ln, Col: len(dst), Msg: "text after closing quote"}
		}
		i = m + 1
	}
}
