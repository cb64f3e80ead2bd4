package qwen3

import (
	"sync"
	"sync/atomic"
)

// pool is a fixed set of goroutines that split loops over all cores. The caller of run works too,
// so a pool of n uses n-1 extra goroutines. Work is handed out in chunks of grain iterations from
// an atomic counter, so a slow core takes fewer chunks instead of holding everybody up.
//
// run allocates nothing: the loop body is a func value the engine created once, the job lives in
// the pool, and waking a worker is a send of an empty struct.
type pool struct {
	wake []chan struct{}
	done sync.WaitGroup

	// the current job, written by run before the workers are woken
	body  func(lo, hi int)
	total int64
	grain int64
	next  atomic.Int64
}

func newPool(workers int) *pool {
	if workers < 1 {
		workers = 1
	}
	p := &pool{wake: make([]chan struct{}, workers-1)}
	for i := range p.wake {
		p.wake[i] = make(chan struct{})
		go func(c chan struct{}) {
			for range c {
				p.work()
				p.done.Done()
			}
		}(p.wake[i])
	}
	return p
}

// workers is the number of goroutines that run a loop, the caller's included.
func (p *pool) workers() int { return len(p.wake) + 1 }

// run calls body(lo, hi) over [0, total) in chunks of grain, on every worker, and returns when all
// chunks are done. Calls of run must not overlap.
func (p *pool) run(total, grain int, body func(lo, hi int)) {
	if total <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	if total <= grain || len(p.wake) == 0 {
		body(0, total)
		return
	}
	p.body, p.total, p.grain = body, int64(total), int64(grain)
	p.next.Store(0)
	p.done.Add(len(p.wake))
	for _, c := range p.wake {
		c <- struct{}{}
	}
	p.work()
	p.done.Wait()
	p.body = nil
}

func (p *pool) work() {
	for {
		hi := p.next.Add(p.grain)
		lo := hi - p.grain
		if lo >= p.total {
			return
		}
		p.body(int(lo), int(min(hi, p.total)))
	}
}

// close stops the workers.
func (p *pool) close() {
	for _, c := range p.wake {
		close(c)
	}
	p.wake = nil
}
