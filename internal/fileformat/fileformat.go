// Package fileformat reads the "format" field of a model file, which every family writes
// first, so that a reader can choose the family's loader without decoding the whole file
// twice (a large IVM model is hundreds of megabytes of JSON), and checks that a file starts as
// a model file before it is read whole.
package fileformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNoFormat is returned for a JSON object without a "format" field.
var ErrNoFormat = errors.New(`no "format" field`)

// Of returns the top-level "format" string of the JSON object b. It reads the fields in
// order and stops at "format", skipping the values before it without decoding them. A
// document that is not a JSON object, or whose format is not a string, is an error.
func Of(b []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil {
		return "", err
	} else if t != json.Delim('{') {
		return "", fmt.Errorf("not a JSON object (it starts with %v)", t)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", err
		}
		if key == "format" {
			var format string
			if err := dec.Decode(&format); err != nil {
				return "", fmt.Errorf(`"format": %w`, err)
			}
			return format, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", ErrNoFormat
}
