package dataset

import (
	"runtime"
	"sync"
)

// A large file is parsed on every core: one goroutine reads its lines into batches,
// workers parse the batches with parsers forked from the one that read the first rows, and
// the batches are merged in the file's order. A batch whose worker met an error, or whose
// rows would pass MaxValues, is parsed again in order by the first parser, so that a file
// reads to the same Data and the same first error as line by line.

// Batching parameters, variables so that tests can make every batch a few lines long.
var (
	serialRows = 2048    // rows parsed line by line before the batches begin
	batchBytes = 1 << 20 // a batch ends with the line that reaches this many bytes
	readers    = runtime.GOMAXPROCS
	partValues = 1 << 20 // the least values of a matrix each core fills
)

// forkParser is a rowParser whose later rows can be parsed apart and merged back.
type forkParser interface {
	rowParser
	rows() int
	// fork returns a parser for later rows, or nil when they must be parsed in order; a
	// fork's forks start as it did.
	fork() forkParser
	// fits reports whether merging part keeps every row within the limits.
	fits(part forkParser) bool
	merge(part forkParser)
}

// batch is a run of data lines: their bytes, where each ends, and their line numbers.
type batch struct {
	text  []byte
	ends  []int
	lines []int
	part  forkParser
	err   error
	done  chan struct{}
}

func (b *batch) line(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.text[start:b.ends[i]]
}

// parseRowsParallel is parseRows for a parser that can fork: the first serialRows rows in
// order, then the rest in batches on every core.
func parseRowsParallel(lr *lineReader, first []byte, p forkParser) (*Data, error) {
	if first != nil {
		if err := p.row(first, lr.line); err != nil {
			return nil, err
		}
	}
	for p.rows() < serialRows { // parseRows' loop, until the rows are enough to fork
		line, ok := lr.next()
		if !ok {
			return finishRows(lr, p)
		}
		if err := feedLine(lr, line, p); err != nil {
			return nil, err
		}
	}
	workers := readers(0)
	var start forkParser // each batch's parser starts as this one, which the merge leaves alone
	if workers >= 2 {
		start = p.fork()
	}
	if start == nil {
		return parseRows(lr, nil, p)
	}
	queue := make(chan *batch, 4*workers) // batches in the file's order, for the merge
	work := make(chan *batch, 4*workers)
	free := make(chan *batch, 4*workers) // merged batches, whose buffers are read into again
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.part = start.fork()
				for i := range b.ends {
					if b.err = b.part.row(b.line(i), b.lines[i]); b.err != nil {
						break
					}
				}
				close(b.done)
			}
		})
	}
	go func() {
		defer close(queue)
		defer close(work)
		readBatches(lr, queue, work, free, stop)
	}()
	err := mergeBatches(queue, free, p)
	close(stop)
	for range queue { // let the reader see stop and end
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return finishRows(lr, p)
}

// feedLine gives p a line unless it is blank or a comment.
func feedLine(lr *lineReader, line []byte, p rowParser) error {
	if skippable(line) {
		if !lr.skip(line) {
			return lr.error()
		}
		return nil
	}
	lr.skipped = 0
	return p.row(line, lr.line)
}

func finishRows(lr *lineReader, p rowParser) (*Data, error) {
	if err := lr.error(); err != nil {
		return nil, err
	}
	return p.finish()
}

// readBatches reads the data lines of lr into batches, each sent to work and to queue, until
// the input ends or stop is closed. It reuses the batches it finds in free.
func readBatches(lr *lineReader, queue, work chan<- *batch, free <-chan *batch,
	stop <-chan struct{}) {
	next := func() *batch {
		select {
		case b := <-free:
			*b = batch{text: b.text[:0], ends: b.ends[:0], lines: b.lines[:0],
				done: make(chan struct{})}
			return b
		default:
			return &batch{done: make(chan struct{})}
		}
	}
	b := next()
	send := func() bool {
		select {
		case <-stop:
			return false
		default:
		}
		select {
		case queue <- b:
		case <-stop:
			return false
		}
		work <- b
		b = next()
		return true
	}
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		if skippable(line) {
			if !lr.skip(line) {
				break
			}
			continue
		}
		lr.skipped = 0
		b.text = append(b.text, line...)
		b.ends = append(b.ends, len(b.text))
		b.lines = append(b.lines, lr.line)
		if len(b.text) >= batchBytes && !send() {
			return
		}
	}
	if len(b.ends) > 0 {
		send()
	}
}

// mergeBatches merges the batches into p in order, parsing again in order any batch that
// failed or would pass the limits, and hands each merged batch to free; it returns the first
// error.
func mergeBatches(queue <-chan *batch, free chan<- *batch, p forkParser) error {
	for b := range queue {
		<-b.done
		if b.err == nil && p.fits(b.part) {
			p.merge(b.part)
		} else {
			for i := range b.ends {
				if err := p.row(b.line(i), b.lines[i]); err != nil {
					return err
				}
			}
		}
		b.part = nil
		select {
		case free <- b:
		default:
		}
	}
	return nil
}
