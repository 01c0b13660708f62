// Package workerpanic carries a panic from a worker goroutine to the goroutine that waits
// for the workers. A panic in a worker ends the process with a goroutine dump that no
// recover can catch; re-raised in the waiting goroutine, it reaches the command line's
// top-level recover, which reports it in one line and asks for a bug report.
package workerpanic

import "sync"

// Catcher records the first panic of the workers that defer its Catch.
type Catcher struct {
	mu     sync.Mutex
	value  any
	caught bool
}

// Catch stops a panic of the calling goroutine and records the first one; a worker defers
// it around each item, so that it goes on taking items and no sender blocks.
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
