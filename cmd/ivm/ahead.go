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
// time and need not wait for each other: a libsvm file is parsed while the model decodes,
// with the dimension it shows, and kept where that reads it as the model's dimension would
// (fitAhead); anything else is read again once the model is known.
func readModelAndRows(modelPath, rowsPath string, opt dataset.ReadOptions, limit memLimit,
	stderr io.Writer) (mf *modelFile, rows *dataset.Data, err error) {
	b, err := readModelBytes(modelPath, limit)
	if err != nil {
		return nil, nil, err
	}
	var ahead *dataset.Data
	var wg sync.WaitGroup
	if format, _ := fileformat.Of(b); format == ivm.ModelFormat && isLibSVMFile(rowsPath, opt) {
		wg.Go(func() {
			o := opt
			o.Dim, o.IgnoreExtra = 0, false
			ahead, _ = readInput(rowsPath, o, false) // its errors are the second reading's
		})
	}
	mf, err = decodeModel(b, modelPath, false)
	wg.Wait()
	if err != nil || mf.single == nil {
		return mf, nil, err
	}
	dim := mf.single.InputDim()
	if rows = fitAhead(ahead, dim, opt); rows != nil {
		return mf, rows, nil
	}
	ahead = nil
	rows, err = readTest(rowsPath, opt, dim, stderr)
	return mf, rows, err
}

// isLibSVMFile says whether the regular file path holds libsvm rows by opt's format or by
// its first data line (a lone label, which a later row may show to be CSV, is not enough).
// Standard input is never read twice.
func isLibSVMFile(path string, opt dataset.ReadOptions) bool {
	if path == stdinPath {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	format, err := dataset.DetectFormat(f, opt)
	return err == nil && format == dataset.LibSVM
}

// fitAhead returns the libsvm rows d, read without a dimension, as readTest reads them for a
// model of dim inputs: d itself when its largest index is dim, widened with zero columns when
// it is below and the value limit allows the width; nil when d is nil or has features beyond
// dim, which readTest drops and reports.
func fitAhead(d *dataset.Data, dim int, opt dataset.ReadOptions) *dataset.Data {
	if d == nil || d.Format != dataset.LibSVM || d.MaxIndex > dim {
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
