package workerpanic

import (
	"sync"
	"testing"
)

// A panic in one of several workers stops neither the others nor the sender, and comes
// out of Rethrow in the waiting goroutine.
func TestRethrow(t *testing.T) {
	var c Catcher
	var wg sync.WaitGroup
	next := make(chan int)
	done := make([]bool, 10)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				func() {
					defer c.Catch()
					if i%4 == 1 {
						panic(i)
					}
					done[i] = true
				}()
			}
		}()
	}
	for i := range done {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, d := range done {
		if d == (i%4 == 1) {
			t.Errorf("item %d done %v", i, d)
		}
	}
	defer func() {
		if r := recover(); r == nil || r.(int)%4 != 1 {
			t.Errorf("recovered %v, want one of the workers' panics", r)
		}
	}()
	c.Rethrow()
	t.Error("Rethrow returned")
}
