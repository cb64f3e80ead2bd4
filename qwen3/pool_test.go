package qwen3

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPool: every index is visited exactly once, whether the workers are spinning (runs back to
// back), parked (a pause longer than the spin between runs) or the pool is shared by goroutines;
// chunks start on whole grains and are at least one grain long (the last may be cut short by the
// total), and the first chunk is a sixth of the work (three workers: 1/(2·3)), as work promises.
func TestPool(t *testing.T) {
	p := newPool(3)
	defer p.close()
	check := func(total, grain int) {
		seen := make([]atomic.Int32, total)
		var longest atomic.Int64
		p.run(total, grain, func(w, lo, hi int) {
			if w < 0 || w >= p.workers() {
				t.Errorf("worker %d of %d", w, p.workers())
			}
			if lo%grain != 0 || (hi-lo < grain && hi != total) {
				t.Errorf("total %d grain %d: chunk [%d, %d) is not whole grains", total, grain, lo, hi)
			}
			for n := int64(hi - lo); ; {
				if m := longest.Load(); n <= m || longest.CompareAndSwap(m, n) {
					break
				}
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
		if want := int64(total / 6 / grain * grain); total > grain && longest.Load() < want {
			t.Errorf("total %d grain %d: the longest chunk has %d, want at least %d", total, grain, longest.Load(), want)
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

// TestPoolSpin: a waiting goroutine checks for spinLong before it parks when every worker has a
// core, and only for spinShort when there are more workers than cores (a spinning goroutine
// would hold a core the others need); spin reports an event that comes in time.
func TestPoolSpin(t *testing.T) {
	p := newPool(1)
	defer p.close()
	if p.spinFor != spinLong {
		t.Errorf("a pool of 1 spins %v, want %v", p.spinFor, spinLong)
	}
	calls := 0
	if !p.spin(func() bool { calls++; return calls == 1000 }) || calls != 1000 {
		t.Errorf("spin gave up after %d checks of an event that came at the 1000th", calls)
	}
	start := time.Now()
	if p.spin(func() bool { return false }) {
		t.Error("spin reported an event that never came")
	}
	if took := time.Since(start); took < spinLong {
		t.Errorf("spin parked after %v, want at least %v", took, spinLong)
	}
	over := newPool(runtime.GOMAXPROCS(0) + 1)
	defer over.close()
	if over.spinFor != spinShort {
		t.Errorf("a pool of %d on %d cores spins %v, want %v", over.workers(), runtime.GOMAXPROCS(0), over.spinFor, spinShort)
	}
}
