package dataset

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"sync"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/decimal"
)

// svmParser accumulates libsvm rows in compressed sparse row form; the dense matrix is
// built once at the end, when the dimension is known.
type svmParser struct {
	opt     ReadOptions
	y       []float64
	rowEnd  []int // rowEnd[i] is the end of row i in entries
	entries entryChunks
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

	// A fork parses later rows apart: it counts rowBase rows and taskBase tasks before its
	// own, enough for endRow to tell a row that breaks the file's task rule, and leaves the
	// limits to the merge.
	rowBase, taskBase int
	forked            bool
}

// readLibSVM parses libsvm rows; first, if not nil, is a line already read from lr. lone
// says that first was classified as a lone label by auto-detection.
func readLibSVM(lr *lineReader, opt ReadOptions, first []byte, lone bool) (*Data, error) {
	p := &svmParser{opt: opt, lone: lone}
	if lone {
		p.loneLine = lr.line
	}
	return parseRowsParallel(lr, first, p)
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
		if tok > 0 && plainRows {
			if idx, v, i, j, ok := plainFeature(rest, prev); ok {
				tok++
				p.lone = false
				if _, err := p.keep(rest[i:j], idx, v, ln, tok); err != nil {
					return err
				}
				prev, rest = idx, rest[j:]
				continue
			}
		}
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
		if t[0] == 'q' && bytes.HasPrefix(t, []byte("qid:")) {
			continue
		}
		if t[0] == 't' && bytes.HasPrefix(t, []byte("task:")) {
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
	return p.keep(t, idx, v, ln, tok)
}

// plainFeature parses the token at the start of b (after blanks) where it is a plain
// index:value: an index above prev of at most 10 digits and a value decimal.ShortPrefix reads
// to the token's end. It returns the index, the value and the token's bounds in b; ok is
// false for any other token, which feature reads (and explains where it is wrong). The
// token is then found by its parse, not by a search for its end before it.
func plainFeature(b []byte, prev int) (idx int, v float64, i, j int, ok bool) {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	for j = i; j < len(b) && j-i < 10; j++ {
		c := b[j] - '0'
		if c > 9 {
			break
		}
		idx = idx*10 + int(c)
	}
	if j == i || j == len(b) || b[j] != ':' || idx <= prev || idx > maxIndex {
		return 0, 0, 0, 0, false
	}
	v, end, ok := decimal.ShortPrefix(b[j+1:])
	if j += 1 + end; !ok || j < len(b) && !isSpace(b[j]) {
		return 0, 0, 0, 0, false
	}
	return idx, v, i, j, true
}

// keep records feature idx of value v, read from token t (token tok of line ln), in the
// current row unless it lies beyond the dimension and IgnoreExtra drops it. It returns the
// index.
func (p *svmParser) keep(t []byte, idx int, v float64, ln, tok int) (int, error) {
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
	p.entries.add(int32(idx-1), v)
	return idx, nil
}

// endRow closes the row of line ln, whose task name is task (nil without a task token):
// either every row has a task or none has, and the rows must stay within MaxValues.
func (p *svmParser) endRow(ln int, task []byte) error {
	row := p.rowBase + len(p.rowEnd)
	if row == 0 {
		p.firstLine = ln
	}
	switch {
	case task != nil && p.taskBase+len(p.tasks) != row:
		return &ParseError{Line: ln,
			Msg: fmt.Sprintf(
				"row has a task token but the row on line %d has none: "+
					"give every row its task or none",
				p.firstLine)}
	case task == nil && p.taskBase+len(p.tasks) > 0:
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
	p.rowEnd = append(p.rowEnd, p.entries.n)
	return nil
}

// checkSize fails as soon as the rows so far, at the largest index so far, would make a
// dense matrix of more than MaxValues values: before the memory is spent, naming the line
// (and token t at col, when a feature index raised the dimension).
func (p *svmParser) checkSize(ln, col int, t []byte) error {
	if p.forked {
		return nil
	}
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
	p.entries.scatter(flat, d, p.rowEnd)
	return &Data{X: mat.NewDense(n, d, flat), Y: p.y, Task: p.tasks, Format: LibSVM,
		MaxIndex: p.seenIdx}, nil
}

// chunkLen is the number of entries in one chunk of entryChunks: small beside a batch of
// parallel.go, whose last chunk is part empty.
const chunkLen = 1 << 12

// entryChunks holds the index:value entries of the rows read so far in chunks of chunkLen,
// so that a large file's entries are never copied to grow a slice: copies that cost more
// time than the parsing and half as much memory again at their peak.
type entryChunks struct {
	idx [][]int32 // 0-based feature indices
	val [][]float64
	n   int // entries in all
}

func (e *entryChunks) add(idx int32, v float64) {
	if c := len(e.idx) - 1; c < 0 || len(e.idx[c]) == chunkLen {
		e.idx = append(e.idx, make([]int32, 0, chunkLen))
		e.val = append(e.val, make([]float64, 0, chunkLen))
	}
	c := len(e.idx) - 1
	e.idx[c] = append(e.idx[c], idx)
	e.val[c] = append(e.val[c], v)
	e.n++
}

// scatter writes the entries into flat, rows of width d ending at rowEnd, the rows split
// among the cores, and releases the chunks.
func (e *entryChunks) scatter(flat []float64, d int, rowEnd []int) {
	starts := make([]int, len(e.idx)+1) // starts[c] is the first entry of chunk c
	for c, idx := range e.idx {
		starts[c+1] = starts[c] + len(idx)
	}
	parts := min(readers(0), max(1, len(flat)/partValues))
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := w*len(rowEnd)/parts, (w+1)*len(rowEnd)/parts
		wg.Go(func() { e.scatterRows(flat, d, rowEnd, starts, lo, hi) })
	}
	wg.Wait()
	e.idx, e.val = nil, nil
}

// scatterRows writes the entries of rows lo to hi−1 into flat.
func (e *entryChunks) scatterRows(flat []float64, d int, rowEnd, starts []int, lo, hi int) {
	if lo == hi {
		return
	}
	k := 0
	if lo > 0 {
		k = rowEnd[lo-1]
	}
	c := sort.SearchInts(starts, k+1) - 1 // the chunk holding entry k
	row := lo
	for ; k < rowEnd[hi-1]; k++ {
		for k >= rowEnd[row] {
			row++
		}
		for k >= starts[c+1] {
			c++
		}
		flat[row*d+int(e.idx[c][k-starts[c]])] = e.val[c][k-starts[c]]
	}
}

// append adds f's entries after e's, taking its chunks.
func (e *entryChunks) append(f *entryChunks) {
	e.idx = append(e.idx, f.idx...)
	e.val = append(e.val, f.val...)
	e.n += f.n
}

func (p *svmParser) rows() int { return len(p.rowEnd) }

func (p *svmParser) fork() forkParser {
	if p.lone {
		return nil // the format is still undecided
	}
	q := &svmParser{opt: p.opt, firstLine: p.firstLine, taskLine: p.taskLine,
		rowBase: p.rowBase, taskBase: p.taskBase, forked: true}
	if !p.forked {
		q.rowBase = max(1, len(p.rowEnd))
		if len(p.tasks) > 0 {
			q.taskBase = q.rowBase
		}
	}
	return q
}

func (p *svmParser) fits(part forkParser) bool {
	q := part.(*svmParser)
	d := max(p.maxIdx, q.maxIdx, p.opt.Dim, 1)
	return len(p.rowEnd)+len(q.rowEnd)+1 <= p.opt.MaxValues/d
}

func (p *svmParser) merge(part forkParser) {
	q := part.(*svmParser)
	p.y = append(p.y, q.y...)
	for _, end := range q.rowEnd {
		p.rowEnd = append(p.rowEnd, p.entries.n+end)
	}
	p.entries.append(&q.entries)
	p.tasks = append(p.tasks, q.tasks...)
	p.maxIdx = max(p.maxIdx, q.maxIdx)
	p.seenIdx = max(p.seenIdx, q.seenIdx)
}
