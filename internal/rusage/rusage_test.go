package rusage

import (
	"runtime"
	"testing"
)

func TestCPUGrowsWithWork(t *testing.T) {
	c0, ok := CPU()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("CPU time not readable on linux")
		}
		return
	}
	x := 0.0
	for i := 0; i < 50_000_000; i++ {
		x += float64(i) * 1e-9
	}
	c1, _ := CPU()
	if c1 <= c0 || x == 0 {
		t.Errorf("CPU time did not grow over a busy loop: %v then %v", c0, c1)
	}
	if rss, ok := PeakRSS(); ok && rss < 1<<20 {
		t.Errorf("peak RSS %d bytes: implausibly small for a Go test binary", rss)
	}
}
