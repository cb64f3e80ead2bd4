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
	mu   sync.Mutex // one loop at a time: sessions of one model may run on different goroutines
	wake []chan struct{}
	done sync.WaitGroup

	// the current job, written by run before the workers are woken
	body  func(worker, lo, hi int)
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
		go func(c chan struct{}, worker int) {
			for range c {
				p.work(worker)
				p.done.Done()
			}
		}(p.wake[i], i+1)
	}
	return p
}

// workers is the number of goroutines that run a loop, the caller's included.
func (p *pool) workers() int { return len(p.wake) + 1 }

// run calls body(worker, lo, hi) over [0, total) in chunks of grain, on every worker, and returns
// when all chunks are done. worker (0 .. workers()-1) tells which goroutine runs the chunk, so that
// it can use its own scratch space. Concurrent calls take turns.
func (p *pool) run(total, grain int, body func(worker, lo, hi int)) {
	if total <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	if total <= grain || len(p.wake) == 0 {
		body(0, 0, total)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.body, p.total, p.grain = body, int64(total), int64(grain)
	p.next.Store(0)
	p.done.Add(len(p.wake))
	for _, c := range p.wake {
		c <- struct{}{}
	}
	p.work(0)
	p.done.Wait()
	p.body = nil
}

func (p *pool) work(worker int) {
	for {
		hi := p.next.Add(p.grain)
		lo := hi - p.grain
		if lo >= p.total {
			return
		}
		p.body(worker, int(lo), int(min(hi, p.total)))
	}
}

// close stops the workers.
func (p *pool) close() {
	for _, c := range p.wake {
		close(c)
	}
	p.wake = nil
}
