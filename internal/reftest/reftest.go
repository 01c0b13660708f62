// Package reftest reads the reference toolbox's fixtures in testdata/ref (see the README
// there) for the tests of every package: numeric CSV files (gzipped or not) and the runs'
// summary files.
package reftest

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Dir is the absolute path of testdata/ref, found from this source file's location so that
// tests in any package directory can use it.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "ref")
}

// Path joins elements below Dir.
func Path(elem ...string) string { return filepath.Join(append([]string{Dir()}, elem...)...) }

// ReadCSV reads a numeric CSV file without header, gzipped when its name ends in .gz.
func ReadCSV(path string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	}
	cr := csv.NewReader(r)
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([][]float64, len(recs))
	for i, rec := range recs {
		out[i] = make([]float64, len(rec))
		for j, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
			}
			out[i][j] = v
		}
	}
	return out, nil
}

// ReadXY reads data/NAME.gz (NAME like "class_train_500.csv") as inputs and targets (the
// last column).
func ReadXY(name string) (*mat.Dense, []float64, error) { return ReadXYFrom(Dir(), name) }

// ReadXYFrom is ReadXY with the fixture folder given.
func ReadXYFrom(dir, name string) (*mat.Dense, []float64, error) {
	rows, err := ReadCSV(filepath.Join(dir, "data", name+".gz"))
	if err != nil {
		return nil, nil, err
	}
	d := len(rows[0]) - 1
	x := mat.NewDense(len(rows), d, nil)
	y := make([]float64, len(rows))
	for i, r := range rows {
		x.SetRow(i, r[:d])
		y[i] = r[d]
	}
	return x, y, nil
}

// ReadSummary reads runs/RUN_summary.txt into key → fields. A key written as
// "name(what it holds)" is stored as "name"; the parenthesis may contain spaces.
func ReadSummary(run string) (map[string][]string, error) { return ReadSummaryFrom(Dir(), run) }

// ReadSummaryFrom is ReadSummary with the fixture folder given.
func ReadSummaryFrom(dir, run string) (map[string][]string, error) {
	path := filepath.Join(dir, "runs", run+"_summary.txt")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		key, rest := fields[0], fields[1:]
		if i := strings.IndexByte(key, '('); i >= 0 {
			for !strings.Contains(fields[0], ")") && len(rest) > 0 {
				fields, rest = rest, rest[1:]
			}
			key = key[:i]
		}
		out[key] = rest
	}
	return out, sc.Err()
}

// Floats parses the summary fields of one key as numbers.
func Floats(fields []string) ([]float64, error) {
	out := make([]float64, len(fields))
	for i, s := range fields {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
