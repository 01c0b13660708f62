package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"

	"github.com/ivmlab/ivm/dataset"
)

// stdinPath is the data argument that means standard input, as "-" is standard output
// for an output.
const stdinPath = "-"

// readHashes holds the SHA-256 of every data file read, of the bytes as they were read:
// a pipe or FIFO cannot be read twice, so the provenance hash is never taken by reading
// the file again.
var readHashes = struct {
	sync.Mutex
	sums map[string]string
}{sums: map[string]string{}}

// readData reads the data file path ("-": standard input) as dataset.ReadFile does, and
// records the SHA-256 of its bytes for the model's provenance (dataHash).
func readData(path string, opt dataset.ReadOptions) (*dataset.Data, error) {
	return readInput(path, opt, true)
}

// readInput reads the data file path as readData does, recording its hash only with
// provenance: rows to predict or query are in no model's provenance, and hashing them
// costs a tenth of their reading.
func readInput(path string, opt dataset.ReadOptions, provenance bool) (*dataset.Data, error) {
	f := os.Stdin
	if path != stdinPath {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
		defer f.Close()
	}
	st, statErr := f.Stat()
	if statErr == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a data file", path)
	}
	if !provenance {
		d, err := dataset.Read(f, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return d, nil
	}
	h := sha256.New()
	d, err := dataset.Read(io.TeeReader(f, h), opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if statErr == nil && st.Mode().IsRegular() {
		io.Copy(h, f) // what the reader left unread (after a gzip stream) is the file's too
	}
	recordHash(path, h)
	return d, nil
}

// recordHash keeps the SHA-256 of the data file path, as read, for dataHash.
func recordHash(path string, h hash.Hash) {
	readHashes.Lock()
	readHashes.sums[path] = hex.EncodeToString(h.Sum(nil))
	readHashes.Unlock()
}

// dataHash returns the SHA-256 of the data file path as readData read it; a file it did not
// read is hashed now, unless it is not a regular file (it cannot be read again).
func dataHash(path string) (string, error) {
	readHashes.Lock()
	sum, ok := readHashes.sums[path]
	readHashes.Unlock()
	if ok {
		return sum, nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not read before its provenance hash (internal error)", path)
	}
	return fileSHA256(path)
}
