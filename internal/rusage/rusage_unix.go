//go:build unix

// Package rusage reads the process's resource use (CPU time, peak memory) for the
// benchmarks and the paper experiments, which report both beside wall time.
package rusage

import (
	"runtime"
	"syscall"
	"time"
)

// CPU returns the CPU time (user + system, all threads) this process has used so far,
// and false where it cannot be measured.
func CPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// PeakRSS returns the process's peak resident set size in bytes (what /usr/bin/time -v
// calls "Maximum resident set size"), and false where it cannot be read.
func PeakRSS() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss, true // bytes there, kilobytes on Linux and the BSDs
	}
	return ru.Maxrss * 1024, true
}
