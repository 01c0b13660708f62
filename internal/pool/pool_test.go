package pool

import (
	"sync/atomic"
	"testing"
)

// A panic in one of several workers stops neither the others nor the sender, and comes
// out of ForEach in the calling goroutine.
func TestForEachRethrows(t *testing.T) {
	done := make([]atomic.Bool, 10)
	defer func() {
		r := recover()
		if r == nil || r.(int)%4 != 1 {
			t.Errorf("recovered %v, want one of the workers' panics", r)
		}
		for i := range done {
			if done[i].Load() == (i%4 == 1) {
				t.Errorf("item %d done %v", i, done[i].Load())
			}
		}
	}()
	ForEach(len(done), 3, func(i int) {
		if i%4 == 1 {
			panic(i)
		}
		done[i].Store(true)
	})
	t.Error("ForEach returned")
}

// Every item runs once, on one goroutine or several.
func TestForEachRunsAll(t *testing.T) {
	for _, w := range []int{0, 1, 4} {
		var count [7]atomic.Int32
		ForEach(len(count), w, func(i int) { count[i].Add(1) })
		for i := range count {
			if count[i].Load() != 1 {
				t.Errorf("%d workers: item %d ran %d times", w, i, count[i].Load())
			}
		}
	}
}
