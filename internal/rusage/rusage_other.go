//go:build !unix

// Package rusage reads the process's resource use (CPU time, peak memory) for the
// benchmarks and the paper experiments, which report both beside wall time.
package rusage

import "time"

// CPU returns false: this platform's CPU time is not read.
func CPU() (time.Duration, bool) { return 0, false }

// PeakRSS returns false: this platform's peak memory is not read.
func PeakRSS() (int64, bool) { return 0, false }
