//go:build !linux

package reproduce

// peakRSS returns 0: the peak resident set size is read on Linux only.
func peakRSS() float64 { return 0 }
