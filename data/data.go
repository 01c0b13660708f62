// Package data embeds the data sets that ship with ivm, so that `ivm demo`, the tests and
// the benchmarks run on a fresh clone without anything else. See README.md in this folder
// for where each file comes from.
package data

import (
	"compress/gzip"
	"embed"

	"github.com/ivmlab/ivm/dataset"
)

//go:embed usps/*.csv.gz
var files embed.FS

// USPS reads the shipped USPS training (7291 images) and test (2007 images) sets:
// label first, then the 256 pixel values in [−1, 1].
func USPS() (train, test *dataset.Data, err error) {
	if train, err = readCSV("usps/usps_train.csv.gz"); err != nil {
		return nil, nil, err
	}
	if test, err = readCSV("usps/usps_test.csv.gz"); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// readCSV reads an embedded gzipped CSV file whose first column is the label.
func readCSV(name string) (*dataset.Data, error) {
	f, err := files.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return dataset.Read(gz, dataset.ReadOptions{Format: dataset.CSV, LabelCol: dataset.LabelFirst})
}
