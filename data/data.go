// Package data embeds the data sets that ship with ivm, so that `ivm demo`, the tests and
// the benchmarks run on a fresh clone without anything else. See README.md in this folder
// for where each file comes from.
package data

import (
	"embed"
	"io"
	"io/fs"
)

//go:embed usps/*.csv.gz
var files embed.FS

// Open opens an embedded file by its path below this folder, e.g. "usps/usps_train.csv.gz".
func Open(name string) (fs.File, error) { return files.Open(name) }

// Names lists the embedded files.
func Names() []string {
	var out []string
	fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// ReadAll returns the bytes of an embedded file (still gzip-compressed).
func ReadAll(name string) ([]byte, error) {
	f, err := files.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
