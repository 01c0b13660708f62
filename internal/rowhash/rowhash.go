// Package rowhash hashes rows of float64 values by their bits.
package rowhash

import "math"

// Sum mixes seed with a row's values: FNV-1a over the bytes of their bits, then a final
// avalanche. Equal rows hash equal; rows that differ only in the sign of a zero, or in a
// NaN's payload, hash apart.
func Sum(seed uint64, row []float64) uint64 {
	h := seed ^ 0xcbf29ce484222325
	for _, v := range row {
		b := math.Float64bits(v)
		for range 8 {
			h ^= b & 0xff
			h *= 0x100000001b3
			b >>= 8
		}
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
