//go:build unix

package multitask

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user + system) this process has used so far, or false
// where it cannot be measured.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
