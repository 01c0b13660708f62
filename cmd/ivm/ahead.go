package main

import (
	"io"
	"os"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/fileformat"
)

// readModelAndRows reads the model file modelPath and, for a single-task IVM model, the
// rows of rowsPath to predict or query as readTest reads them (rows is nil for other
// models). A large model's decoding and a large file's parsing are most of such a command's
// time and need not wait for each other: the file is parsed while the model decodes, at a
// width it shows itself (aheadOptions), and kept where that reads it as the model's width
// would (fitAhead); otherwise it is read again once the model is known.
func readModelAndRows(modelPath, rowsPath string, opt dataset.ReadOptions, limit memLimit,
	stderr io.Writer) (mf *modelFile, rows *dataset.Data, err error) {
	b, err := readModelBytes(modelPath, limit)
	if err != nil {
		return nil, nil, err
	}
	var ahead *dataset.Data
	var wg sync.WaitGroup
	guessed, ok := dataset.ReadOptions{}, false
	if format, _ := fileformat.Of(b); format == ivm.ModelFormat {
		guessed, ok = aheadOptions(rowsPath, opt)
	}
	if ok {
		wg.Go(func() {
			ahead, _ = readInput(rowsPath, guessed, false) // its errors are the second reading's
		})
	}
	mf, err = decodeModel(b, modelPath, false)
	wg.Wait()
	if err != nil || mf.single == nil {
		return mf, nil, err
	}
	dim := mf.single.InputDim()
	if rows = fitAhead(ahead, guessed.Dim, dim, opt); rows != nil {
		warnDropped(stderr, rowsPath, rows, dim)
		return mf, rows, nil
	}
	ahead = nil // its memory is free for the second reading
	rows, err = readTest(rowsPath, opt, dim, stderr)
	return mf, rows, err
}

// aheadOptions returns the options to read the regular file path with before the model's
// width is known, as readTest reads it with opt: a libsvm file without a width (the largest
// index sets it), a CSV file at the width its first line's fields give (all of them inputs
// but a task column and, unless labels are optional, the label column). ok is false for
// standard input (never read twice) and for a file whose first data line does not say its
// format (a lone label, which a later row may show to be CSV).
func aheadOptions(path string, opt dataset.ReadOptions) (_ dataset.ReadOptions, ok bool) {
	if path == stdinPath {
		return opt, false
	}
	f, err := os.Open(path)
	if err != nil {
		return opt, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return opt, false
	}
	d, err := dataset.DetectFormat(f, opt)
	switch {
	case err != nil:
		return opt, false
	case d.Format == dataset.LibSVM:
		opt.Dim, opt.IgnoreExtra = 0, false
		return opt, true
	case d.Format == dataset.CSV:
		opt.Dim, opt.IgnoreExtra = d.Fields, true
		if opt.TaskCol != dataset.TaskNone {
			opt.Dim--
		}
		if !opt.LabelOptional {
			opt.Dim--
		}
		return opt, opt.Dim > 0
	}
	return opt, false
}

// fitAhead returns the rows d, read at width readDim by aheadOptions' options, as readTest
// reads them for a model of dim inputs, or nil where they may differ. A CSV file is kept
// where readDim is dim: its options were readTest's. A libsvm file, read without a width,
// is kept where its largest index is dim, widened with zero columns where it is below and
// the value limit allows the width; a feature beyond dim is dropped and reported by
// readTest.
func fitAhead(d *dataset.Data, readDim, dim int, opt dataset.ReadOptions) *dataset.Data {
	switch {
	case d == nil:
		return nil
	case d.Format == dataset.CSV:
		if readDim == dim {
			return d
		}
		return nil
	case d.Format != dataset.LibSVM || d.MaxIndex > dim:
		return nil
	}
	n, cols := d.X.Dims()
	if cols == dim {
		return d
	}
	maxValues := opt.MaxValues
	if maxValues == 0 {
		maxValues = dataset.DefaultMaxValues
	}
	if int64(n)*int64(dim) > int64(maxValues) {
		return nil
	}
	wide := make([]float64, n*dim)
	for i := range n {
		copy(wide[i*dim:], d.X.RawRowView(i))
	}
	d.X = mat.NewDense(n, dim, wide)
	return d
}
