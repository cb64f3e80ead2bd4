package qwen3

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolWakeups provokes the races of parking and waking: with no spin, every worker parks
// between jobs and the caller parks while it waits, and jobs of two chunks come back to back, so
// that a job is published while workers are on their way to park, hundreds of thousands of times
// a second. A wake-up lost on either side (a worker that parks after run looked for parked
// workers and sleeps through the job; a caller that parks after the last worker looked for it)
// stops the jobs, and the test fails as soon as no job has finished for two seconds: every run
// when such a bug is there, instead of a rare hang that go test's timeout ends. (Three such bugs,
// one at a time: a worker that does not look at the job number again after it says it is parked;
// run waking parked workers before it publishes the job; a caller that parks without looking at
// the workers' count again. Each hung a pool of two within 25,000 jobs, a fraction of a second,
// in each of three runs.)
func TestPoolWakeups(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		p := newPoolSpin(n, 0)
		var jobs atomic.Int64
		stop := make(chan struct{})
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			for {
				select {
				case <-stop:
					return
				default:
				}
				p.run(2, 1, func(w, lo, hi int) {})
				jobs.Add(1)
			}
		}()
		start := time.Now()
		last, lastAt := int64(-1), start
		for time.Since(start) < time.Second || time.Since(lastAt) > 100*time.Millisecond {
			time.Sleep(10 * time.Millisecond)
			if j := jobs.Load(); j != last {
				last, lastAt = j, time.Now()
			} else if time.Since(lastAt) > 2*time.Second {
				t.Fatalf("a pool of %d with no spin: job %d has not returned after %v: a wake-up was lost",
					n, j+1, time.Since(lastAt).Round(time.Millisecond))
			}
		}
		close(stop)
		select {
		case <-finished:
		case <-time.After(2 * time.Second):
			t.Fatalf("a pool of %d with no spin: the last job has not returned after 2s: a wake-up was lost", n)
		}
		p.close()
		t.Logf("a pool of %d with no spin: %d jobs in a second", n, jobs.Load())
	}
}

// TestPoolSpinWidths: the spin is long for every pool that has a core per goroutine, up to one as
// wide as the machine, and short from one goroutine more (TestPoolSpin checks 1 and the machine
// plus one; a comparison off by one at the machine's width went unseen).
func TestPoolSpinWidths(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for n := 1; n <= procs+2; n++ {
		p := newPool(n)
		want := spinLong
		if n > procs {
			want = spinShort
		}
		if p.spinFor != want {
			t.Errorf("a pool of %d goroutines on %d cores spins %v, want %v", n, procs, p.spinFor, want)
		}
		p.close()
	}
}

// TestPoolEdges: a loop of no items calls nothing, a grain below one counts as one, a pool of one
// goroutine runs the loop on the caller's, and closing a pool twice is harmless.
func TestPoolEdges(t *testing.T) {
	p := newPool(3)
	calls := 0
	p.run(0, 4, func(w, lo, hi int) { calls++ })
	p.run(-5, 4, func(w, lo, hi int) { calls++ })
	if calls != 0 {
		t.Errorf("loops of no items called the body %d times", calls)
	}
	var seen [10]atomic.Int32
	p.run(len(seen), 0, func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			seen[i].Add(1)
		}
	})
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Errorf("grain 0: item %d visited %d times", i, n)
		}
	}
	p.close()
	p.close()
	one := newPool(1)
	defer one.close()
	one.run(100, 1, func(w, lo, hi int) {
		if w != 0 || lo != 0 || hi != 100 {
			t.Errorf("a pool of one ran [%d, %d) on worker %d, want [0, 100) on 0", lo, hi, w)
		}
	})
}
