// Package pool runs work on a few goroutines and carries a worker's panic to the goroutine
// that waits for the workers. A panic in a worker ends the process with a goroutine dump
// that no recover can catch; re-raised in the waiting goroutine, it reaches the command
// line's top-level recover, which reports it in one line and asks for a bug report.
package pool

import (
	"runtime"
	"sync"
)

// Catcher records the first panic of the workers that defer its Catch.
type Catcher struct {
	mu     sync.Mutex
	value  any
	caught bool
}

// Catch stops a panic of the calling goroutine and records the first one. A worker that
// takes items from a channel defers it around each item, so that it goes on taking items
// and no sender blocks.
func (c *Catcher) Catch() {
	if r := recover(); r != nil {
		c.mu.Lock()
		if !c.caught {
			c.value, c.caught = r, true
		}
		c.mu.Unlock()
	}
}

// Rethrow re-raises the recorded panic, if any, in the calling goroutine: call it after the
// workers are done.
func (c *Catcher) Rethrow() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.caught {
		panic(c.value)
	}
}

// Workers returns w, or for w ≤ 0 (the callers' "all cores") GOMAXPROCS.
func Workers(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// ForEach runs f(i) for every i < n on at most workers goroutines (in the calling goroutine
// when workers ≤ 1 or n ≤ 1) and returns when all are done; a panic of f is re-raised in the
// caller after the others have run.
func ForEach(n, workers int, f func(i int)) {
	ForEachWorker(n, workers, func(_, i int) { f(i) })
}

// ForEachErr runs f(i) for every i < n as ForEach does and returns the error of the lowest
// i that failed (nil when none did), so that which error is reported does not depend on
// the goroutines' timing.
func ForEachErr(n, workers int, f func(i int) error) error {
	errs := make([]error, n)
	ForEach(n, workers, func(i int) { errs[i] = f(i) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ForEachWorker is ForEach that also passes f the number w < min(workers, n) of the
// goroutine running it (0 when it runs in the caller), so that each goroutine can keep its
// own scratch space across items.
func ForEachWorker(n, workers int, f func(w, i int)) {
	if workers <= 1 || n <= 1 {
		for i := 0; i < n; i++ {
			f(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	var panics Catcher
	next := make(chan int)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				func() {
					defer panics.Catch()
					f(w, i)
				}()
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	panics.Rethrow()
}
