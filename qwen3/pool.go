package qwen3

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// pool is a fixed set of goroutines that split loops over all cores. The caller of run works too,
// so a pool of n uses n-1 extra goroutines. Work is handed out in chunks of whole grains from
// an atomic counter (long ones first, see work), so a slow core takes fewer chunks instead of
// holding everybody up.
//
// Decoding a token runs about 141 loops (five per layer and the LM head), each a fraction of a
// millisecond, with short serial steps between them. Waking a parked goroutine costs tens of
// microseconds (the scheduler, a futex), so between loops the workers spin on the job counter for
// spinFor before they park, and run's caller spins the same way for the last worker to finish.
// A pool that is not used parks its workers, so an idle model costs no CPU.
//
// run allocates nothing: the loop body is a func value the engine created once and the job lives in
// the pool.
//
// A panic in the body, on any goroutine, ends the job: the others take no more chunks, and once
// they are done run panics on its caller's goroutine with a *PanicError that names the function
// that panicked (the engine turns it into an error). The workers live on, so the pool stays
// usable. close stops them and waits until they have returned.
type pool struct {
	mu    sync.Mutex     // one loop at a time: the engine runs one forward pass at a time, and tests share pools
	extra []*worker      // the extra goroutines
	exits sync.WaitGroup // one per extra goroutine, done when it returns

	gen     atomic.Uint64 // job number: a worker runs each new job once
	pending atomic.Int64  // extra workers still in the current job
	waiting atomic.Bool   // run's caller is parked on done
	done    chan struct{} // the last worker's signal to a parked caller (buffer 1)
	closed  atomic.Bool
	spinFor time.Duration              // spinLong, or spinShort when there are more workers than cores
	failed  atomic.Pointer[PanicError] // the first panic of the current job

	// the current job, written by run before gen moves on (total and grain atomically, as the
	// race detector once saw a worker's last read of them, after its final chunk, as racing with
	// the next job's write)
	body  func(worker, lo, hi int)
	total atomic.Int64
	grain atomic.Int64
	next  atomic.Int64
}

// worker is one extra goroutine's parking place.
type worker struct {
	parked atomic.Bool
	wake   chan struct{} // buffer 1: run's signal to a parked worker
}

// spinLong is how long a waiting goroutine checks for its event before parking when every
// goroutine of the pool has a core: longer than the gaps of a decoding step (its serial steps, a
// worker's wait through attention's eight items, the sampling between tokens), so that a worker
// does not park in the middle of a token. It was a count of 32,768 checks, about 8 µs on the AMD
// EPYC build machine: the worker parked 39 times a token of Q4_K_M and started each loop 20 µs
// late on average (2.2 ms a token); with 200 µs it parks none, and decoding went from 83 to 98
// tok/s, Q8_0 from 65 to 72 (2 threads, alternated runs of scripts/bench, 2026-11-27).
//
// With more goroutines than cores (WithThreads above GOMAXPROCS) a spinning goroutine holds a core
// that another one needs to finish the loop, so there the spin is spinShort (4 threads on 2 cores
// decoded at 14 tok/s with 200 µs, 59 with 8 µs).
const (
	spinLong  = 200 * time.Microsecond
	spinShort = 8 * time.Microsecond
)

// spin calls done until it reports true, for at most p.spinFor; it reports whether done did. Every
// 256 checks it also lets other goroutines of its core run (runtime.Gosched returns at once when
// there are none), so that a spin does not hold a core that another pool, or any other work of the
// program, is waiting for.
func (p *pool) spin(done func() bool) bool {
	start := time.Now()
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i%256 == 0 {
			if time.Since(start) > p.spinFor {
				return false
			}
			runtime.Gosched()
		}
	}
}

func newPool(workers int) *pool {
	spin := spinLong
	if workers > runtime.GOMAXPROCS(0) {
		spin = spinShort
	}
	return newPoolSpin(workers, spin)
}

// newPoolSpin is newPool with the spin chosen by the caller (tests: zero, so that every wait
// parks). The spin is set before any worker starts, since workers read it without a lock.
func newPoolSpin(workers int, spin time.Duration) *pool {
	p := &pool{done: make(chan struct{}, 1), spinFor: spin}
	for i := 1; i < workers; i++ {
		w := &worker{wake: make(chan struct{}, 1)}
		p.extra = append(p.extra, w)
		p.exits.Add(1)
		go p.loop(w, i)
	}
	return p
}

// workers is the number of goroutines that run a loop, the caller's included.
func (p *pool) workers() int { return len(p.extra) + 1 }

// loop is an extra worker: wait for a job, do chunks of it, report.
func (p *pool) loop(w *worker, id int) {
	defer p.exits.Done()
	var seen uint64
	for {
		seen = p.await(w, seen)
		if p.closed.Load() {
			return
		}
		p.work(id)
		if p.pending.Add(-1) == 0 && p.waiting.CompareAndSwap(true, false) {
			p.done <- struct{}{}
		}
	}
}

// await returns the next job number after seen: it spins, then parks until run wakes it.
func (p *pool) await(w *worker, seen uint64) uint64 {
	if p.spin(func() bool { return p.gen.Load() != seen }) {
		return p.gen.Load()
	}
	for {
		w.parked.Store(true)
		if g := p.gen.Load(); g != seen {
			if !w.parked.CompareAndSwap(true, false) {
				<-w.wake // run saw us parked and sent a signal: take it
			}
			return g
		}
		<-w.wake
		if g := p.gen.Load(); g != seen {
			return g
		}
	}
}

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
	if total <= grain || len(p.extra) == 0 {
		body(0, 0, total)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.body = body
	p.total.Store(int64(total))
	p.grain.Store(int64(grain))
	p.next.Store(0)
	p.pending.Store(int64(len(p.extra)))
	p.gen.Add(1)
	for _, w := range p.extra {
		if w.parked.CompareAndSwap(true, false) {
			w.wake <- struct{}{}
		}
	}
	p.work(0)
	p.wait()
	p.body = nil
	if pe := p.failed.Swap(nil); pe != nil {
		panic(pe) // on the caller's goroutine, with the lock released by the deferred Unlock
	}
}

// wait returns when every extra worker has finished the current job.
func (p *pool) wait() {
	if p.spin(func() bool { return p.pending.Load() == 0 }) {
		return
	}
	p.waiting.Store(true)
	if p.pending.Load() == 0 && p.waiting.CompareAndSwap(true, false) {
		return
	}
	<-p.done
}

// work takes chunks until none is left. A chunk is a share of what is left: 1/(2·workers) of it,
// in whole grains, never less than one grain (guided self-scheduling). Early chunks are long, so
// each core reads long runs of consecutive rows, which its prefetchers follow (a run of one grain,
// 18 KB of a Q4_K matrix, ends before they reach full speed); the last chunks are one grain, so a
// core that falls behind still leaves the others little to wait for. Q8_0 decoding, whose kernel
// did not change, went from 53 to 62-65 tok/s with this (Q4_K_M, with its 512-bit kernels in the
// same step, from 62-63 to 71-75); a larger LM-head chunk alone took Q4_K_M from 59 to 68.
//
// A panic in the body ends the job for every worker (next jumps to the end) and is kept, the
// first one only, for run to raise on its caller's goroutine.
func (p *pool) work(worker int) {
	div, total, grain := 2*int64(p.workers()), p.total.Load(), p.grain.Load()
	defer func() {
		if v := recover(); v != nil {
			p.next.Store(total)
			p.failed.CompareAndSwap(nil, newPanicError(v))
		}
	}()
	for {
		lo := p.next.Load()
		if lo >= total {
			return
		}
		n := max((total-lo)/div/grain, 1) * grain
		if !p.next.CompareAndSwap(lo, lo+n) {
			continue
		}
		p.body(worker, int(lo), int(min(lo+n, total)))
	}
}

// close stops the workers and returns when every one of them has returned. It waits for a job
// in progress; a later run does its work on the caller's goroutine alone.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Swap(true) {
		return
	}
	p.gen.Add(1)
	for _, w := range p.extra {
		if w.parked.CompareAndSwap(true, false) {
			w.wake <- struct{}{}
		}
	}
	p.exits.Wait()
	p.extra = nil
}
