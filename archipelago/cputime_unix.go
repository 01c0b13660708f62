//go:build unix

package archipelago

import (
	"syscall"
	"time"
)

// CPUTime returns the user+system CPU time of the process so far (0 where the
// platform does not report it). The machine is shared, so wall times are noisy;
// reports give both.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
