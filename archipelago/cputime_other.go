//go:build !unix

package archipelago

import "time"

// CPUTime returns 0: this platform's process CPU time is not read.
func CPUTime() time.Duration { return 0 }
