package dataset

import (
	"bytes"
	"fmt"
	"math"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// svmParser accumulates libsvm rows in compressed sparse row form; the dense matrix is
// built once at the end, when the dimension is known.
type svmParser struct {
	opt     ReadOptions
	y       []float64
	rowEnd  []int   // rowEnd[i] is the end of row i in idx and val
	idx     []int32 // 0-based feature indices
	val     []float64
	maxIdx  int // largest 1-based index kept
	seenIdx int // largest 1-based index seen, dropped ones included

	// tasks holds the task of every row so far when the rows have "task:NAME" tokens;
	// firstLine is the line of the first row, taskLine of the first row with a task token.
	tasks     []string
	firstLine int
	taskLine  int

	// lone is set while the format is undecided in auto mode: every row so far was a lone
	// label (see the package documentation); loneLine is the first of them.
	lone     bool
	loneLine int
}

// readLibSVM parses libsvm rows; first, if not nil, is a line already read from lr. lone
// says that first was classified as a lone label by auto-detection.
func readLibSVM(lr *lineReader, opt ReadOptions, first []byte, lone bool) (*Data, error) {
	p := &svmParser{opt: opt, lone: lone}
	if lone {
		p.loneLine = lr.line
	}
	return parseRows(lr, first, p)
}

// tokErr is a ParseError at libsvm token col.
func tokErr(ln, col int, format string, args ...any) error {
	return &ParseError{Line: ln, Col: col, Msg: fmt.Sprintf(format, args...), token: true}
}

// row parses one non-blank, non-comment line: the label, then its qid, task and
// index:value tokens, each checked as it is read so that an error names its token.
func (p *svmParser) row(line []byte, ln int) error {
	if h := bytes.IndexByte(line, '#'); h >= 0 {
		line = line[:h]
	}
	if p.lone && bytes.IndexByte(line, ',') >= 0 {
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf("comma-separated row after line %d, which holds a single number: "+
				"as CSV the field counts differ, as libsvm this row is invalid", p.loneLine)}
	}
	tok, prev := 0, 0
	rest := line
	var task []byte
	for {
		var t []byte
		t, rest = nextField(rest)
		if t == nil {
			break
		}
		tok++
		if tok == 1 && p.opt.LabelOptional && bytes.IndexByte(t, ':') >= 0 {
			p.y = append(p.y, math.NaN()) // no label: t is the row's first feature
		} else if tok == 1 {
			y, err := parseLabel(t, ln)
			if err != nil {
				return err
			}
			p.y = append(p.y, y)
			continue
		}
		p.lone = false // a second token: this is no lone label
		if bytes.HasPrefix(t, []byte("qid:")) {
			continue
		}
		if bytes.HasPrefix(t, []byte("task:")) {
			if err := checkTaskToken(t, task, ln, tok); err != nil {
				return err
			}
			task = t[len("task:"):]
			continue
		}
		idx, err := p.feature(t, ln, tok, prev)
		if err != nil {
			return err
		}
		prev = idx
	}
	if tok == 0 {
		return nil // only blanks before a comment
	}
	return p.endRow(ln, task)
}

// checkTaskToken checks the task token t, token tok of line ln, in a row whose earlier
// task name, if any, is task: a row names one non-empty task in UTF-8 text.
func checkTaskToken(t, task []byte, ln, tok int) error {
	switch {
	case task != nil:
		return tokErr(ln, tok, "second task token %s in the row", snippet(t))
	case len(t) == len("task:"):
		return tokErr(ln, tok, "empty task name in %s", snippet(t))
	case !utf8.Valid(t):
		return tokErr(ln, tok, "task name in %s is not UTF-8 text", snippet(t))
	}
	return nil
}

// feature parses the index:value token t, token tok of line ln, whose index must exceed
// prev, the row's previous index, and keeps the value in the current row unless it lies
// beyond the dimension and IgnoreExtra drops it. It returns the index.
func (p *svmParser) feature(t []byte, ln, tok, prev int) (int, error) {
	c := bytes.IndexByte(t, ':')
	if c < 0 {
		return 0, tokErr(ln, tok, "%s is not index:value", snippet(t))
	}
	idx, ok := parseIndex(t[:c])
	switch {
	case !ok:
		return 0, tokErr(ln, tok, "bad feature index in %s (want an integer from 1 to %d)",
			snippet(t), maxIndex)
	case idx == 0:
		return 0, tokErr(ln, tok, "feature index 0 in %s: indices are 1-based", snippet(t))
	case idx <= prev:
		return 0, tokErr(ln, tok,
			"feature index %d in %s is not greater than the previous index %d", idx, snippet(t),
			prev)
	}
	vb := t[c+1:]
	v, ok := parseNumber(vb)
	switch {
	case len(vb) == 0:
		return 0, tokErr(ln, tok, "missing value in %s", snippet(t))
	case !ok:
		return 0, tokErr(ln, tok, "value in %s is not a number", snippet(t))
	case !finite(v):
		return 0, tokErr(ln, tok, "value in %s is not finite (NaN or ±Inf, or out of range)",
			snippet(t))
	}
	p.seenIdx = max(p.seenIdx, idx)
	if p.opt.Dim > 0 && idx > p.opt.Dim {
		if p.opt.IgnoreExtra {
			return idx, nil
		}
		return 0, tokErr(ln, tok, "feature index %d in %s exceeds the dimension %d", idx,
			snippet(t), p.opt.Dim)
	}
	if idx > p.maxIdx {
		p.maxIdx = idx
		if err := p.checkSize(ln, tok, t); err != nil {
			return 0, err
		}
	}
	p.idx = append(p.idx, int32(idx-1))
	p.val = append(p.val, v)
	return idx, nil
}

// endRow closes the row of line ln, whose task name is task (nil without a task token):
// either every row has a task or none has, and the rows must stay within MaxValues.
func (p *svmParser) endRow(ln int, task []byte) error {
	row := len(p.rowEnd)
	if row == 0 {
		p.firstLine = ln
	}
	switch {
	case task != nil && len(p.tasks) != row:
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf(
				"row has a task token but the row on line %d has none: "+
					"give every row its task or none",
				p.firstLine)}
	case task == nil && len(p.tasks) > 0:
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf(
				"row has no task token but the row on line %d has one: "+
					"give every row its task or none",
				p.taskLine)}
	case task != nil:
		if row == 0 {
			p.taskLine = ln
		}
		p.tasks = append(p.tasks, string(task))
	}
	if err := p.checkSize(ln, 0, nil); err != nil {
		return err
	}
	p.rowEnd = append(p.rowEnd, len(p.idx))
	return nil
}

// checkSize fails as soon as the rows so far, at the largest index so far, would make a
// dense matrix of more than MaxValues values: before the memory is spent, naming the line
// (and token t at col, when a feature index raised the dimension).
func (p *svmParser) checkSize(ln, col int, t []byte) error {
	d := max(p.maxIdx, p.opt.Dim, 1) // rows of a lone label cost a value each too
	n := len(p.rowEnd) + 1
	if n <= p.opt.MaxValues/d {
		return nil
	}
	what := fmt.Sprintf("line %d: %d rows × %d features exceeds the limit of %d values", ln, n, d,
		p.opt.MaxValues)
	if t != nil {
		what = fmt.Sprintf(
			"line %d, token %d: feature index %d in %s makes %d rows × %d features, "+
				"which exceeds the limit of %d values",
			ln, col, p.maxIdx, snippet(t), n, d, p.opt.MaxValues)
	}
	return &LimitError{What: what}
}

// nextField returns the first whitespace-separated field of b and what follows it, or
// nil when b holds only blanks.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return nil, nil
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// parseLabel parses a libsvm label: a finite number, or "?" for an unlabelled row.
func parseLabel(t []byte, ln int) (float64, error) {
	if len(t) == 1 && t[0] == '?' {
		return math.NaN(), nil
	}
	v, ok := parseNumber(t)
	switch {
	case !ok && bytes.IndexByte(t, ',') >= 0:
		return 0, tokErr(ln, 1, "label %s is not a number (the line looks like CSV)", snippet(t))
	case !ok:
		return 0, tokErr(ln, 1, "label %s is not a number", snippet(t))
	case !finite(v):
		return 0, tokErr(ln, 1, "label %s is not finite (use ? for an unlabelled row)", snippet(t))
	}
	return v, nil
}

// parseIndex parses a non-negative decimal integer no larger than maxIndex.
func parseIndex(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > maxIndex {
			return 0, false
		}
	}
	return n, true
}

func (p *svmParser) finish() (*Data, error) {
	n := len(p.y)
	if n == 0 {
		return nil, ErrNoData
	}
	d := p.opt.Dim
	if d == 0 {
		d = p.maxIdx
	}
	if d == 0 {
		if p.lone {
			return nil,
				fmt.Errorf("dataset: every data row is a single number: " +
					"a CSV file with only a label column or libsvm rows with no features; " +
					"there are no inputs to learn from")
		}
		return nil,
			fmt.Errorf(
				"dataset: no features: every libsvm row holds only its label; " +
					"there are no inputs to learn from")
	}
	if d > p.opt.MaxValues/n {
		return nil, &LimitError{What: fmt.Sprintf(
			"%d rows × %d features exceeds the limit of %d values", n, d, p.opt.MaxValues)}
	}
	flat := make([]float64, n*d)
	start := 0
	for i, end := range p.rowEnd {
		row := flat[i*d : (i+1)*d]
		for k := start; k < end; k++ {
			row[p.idx[k]] = p.val[k]
		}
		start = end
	}
	return &Data{X: mat.NewDense(n, d, flat), Y: p.y, Task: p.tasks, Format: LibSVM,
		MaxIndex: p.seenIdx}, nil
}
