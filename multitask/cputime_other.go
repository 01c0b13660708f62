//go:build !unix

package multitask

import "time"

// CPUTime returns the CPU time this process has used so far, or false where it cannot be
// measured (here).
func CPUTime() (time.Duration, bool) { return 0, false }
