package qwen3

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPool: every index is visited exactly once, whether the workers are spinning (runs back to
// back), parked (a pause longer than the spin between runs) or the pool is shared by goroutines.
func TestPool(t *testing.T) {
	p := newPool(3)
	defer p.close()
	check := func(total, grain int) {
		seen := make([]atomic.Int32, total)
		p.run(total, grain, func(w, lo, hi int) {
			if w < 0 || w >= p.workers() {
				t.Errorf("worker %d of %d", w, p.workers())
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if n := seen[i].Load(); n != 1 {
				t.Fatalf("total %d grain %d: index %d visited %d times", total, grain, i, n)
			}
		}
	}
	for i := 0; i < 200; i++ {
		check(1+i*7%300, 1+i%9)
	}
	time.Sleep(20 * time.Millisecond) // the workers park
	check(1000, 3)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				check(100+g, 7)
				if i%10 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
}
