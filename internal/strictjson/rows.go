package strictjson

import (
	"encoding/json"
	"strconv"

	"github.com/ivmlab/ivm/internal/decimal"
)

// Rows is a matrix of a model file, row by row. A projected model's centres are millions
// of numbers, whose decoding by reflection was most of a load; Rows reads arrays of numbers
// itself and leaves anything else (a null, a string) to encoding/json, so that the value
// and every error are encoding/json's.
type Rows [][]float64

// UnmarshalJSON decodes b, valid JSON (json.Unmarshal checks the whole text first).
func (r *Rows) UnmarshalJSON(b []byte) error {
	if rows, ok := numberRows(b); ok {
		*r = rows
		return nil
	}
	return json.Unmarshal(b, (*[][]float64)(r))
}

// numberRows parses b where it is an array of arrays of numbers; ok is false for anything
// else (a null, a string, text that is not JSON), or a number out of float64's range.
func numberRows(b []byte) ([][]float64, bool) {
	rows := [][]float64{}
	i, ok := elements(b, skipSpace(b, 0), func(i int) (int, bool) {
		row := []float64{}
		i, ok := elements(b, i, func(i int) (int, bool) {
			j := i
			for j < len(b) && isNumberByte(b[j]) {
				j++
			}
			v, ok := decimal.Short(b[i:j])
			if !ok {
				var err error
				v, err = strconv.ParseFloat(string(b[i:j]), 64)
				ok = j > i && err == nil
			}
			row = append(row, v)
			return j, ok
		})
		rows = append(rows, row)
		return i, ok
	})
	return rows, ok && skipSpace(b, i) == len(b)
}

// elements parses the array at b[i:], calling element at each element's first byte for the
// index after the element; it returns the index after the array.
func elements(b []byte, i int, element func(int) (int, bool)) (int, bool) {
	if i == len(b) || b[i] != '[' {
		return i, false
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = element(i); !ok {
			return i, false
		}
		if i = skipSpace(b, i); i == len(b) {
			return i, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return i, false
		}
	}
}

// skipSpace returns the index of the first byte of b from i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// isNumberByte reports whether c can be part of a JSON number.
func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
