package pool

import (
	"fmt"
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

// ForEachErr reports the failure of the lowest index whatever the order the items ran in.
func TestForEachErrLowestIndex(t *testing.T) {
	for _, workers := range []int{1, 3} {
		err := ForEachErr(50, workers, func(i int) error {
			if i%7 == 3 {
				return fmt.Errorf("item %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "item 3" {
			t.Errorf("%d workers: %v, want item 3", workers, err)
		}
	}
	if err := ForEachErr(10, 4, func(int) error { return nil }); err != nil {
		t.Errorf("no failures: %v", err)
	}
}

// ForEachWorker's goroutine numbers stay below min(workers, n), and every item runs once.
func TestForEachWorkerNumbers(t *testing.T) {
	var runs [40]atomic.Int32
	var bad atomic.Bool
	ForEachWorker(len(runs), 3, func(w, i int) {
		if w < 0 || w >= 3 {
			bad.Store(true)
		}
		runs[i].Add(1)
	})
	if bad.Load() {
		t.Error("a goroutine number out of range")
	}
	for i := range runs {
		if n := runs[i].Load(); n != 1 {
			t.Errorf("item %d ran %d times", i, n)
		}
	}
}
