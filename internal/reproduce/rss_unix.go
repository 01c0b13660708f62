//go:build linux

package reproduce

import "syscall"

// peakRSS returns the process's peak resident set size in bytes (what /usr/bin/time -v
// reports as "Maximum resident set size"), or 0 where it cannot be read.
func peakRSS() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) * 1024 // Linux reports kilobytes
}
