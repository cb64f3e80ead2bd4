package reference

import (
	"fmt"
	"math"
	"runtime/metrics"
)

// allocsMetric is the runtime's running total of bytes allocated on the heap.
const allocsMetric = "/gc/heap/allocs:bytes"

// HeapAllocated returns the bytes the Go heap allocated while fn ran (by every goroutine, so a
// test measures alone). The runtime counts small allocations when a span of them is used up, and
// counts every span in use at the start of a garbage collection, so one measure can include up to
// a few MB allocated before fn ran; CheckAllocBound measures again before it blames fn.
func HeapAllocated(fn func()) uint64 {
	s := []metrics.Sample{{Name: allocsMetric}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	fn()
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// AllocBound is the most a reader of untrusted input may allocate for n bytes of it: a fixed
// MB for tables and messages, plus perByte bytes for each input byte. A reader that trusts a
// count or a size written in the input (a 16M-entry table asked for by a 40-byte file) goes far
// past it; one that allocates in proportion to what it has read stays under.
func AllocBound(n, perByte int) uint64 { return 1<<20 + uint64(perByte)*uint64(n) }

// CheckAllocBound runs fn, which reads the n bytes of an untrusted input, and returns an error
// when it allocated more than AllocBound(n, perByte). A measure over the bound is taken again,
// up to three times in all, and the least counts: a reader that trusts a claimed size allocates
// it every time, while the runtime's late counting of earlier allocations (see HeapAllocated)
// does not repeat. So fn may run up to three times and must be able to.
func CheckAllocBound(n, perByte int, fn func()) error {
	bound := AllocBound(n, perByte)
	least := uint64(math.MaxUint64)
	for range 3 {
		if least = min(least, HeapAllocated(fn)); least <= bound {
			return nil
		}
	}
	return fmt.Errorf("reading %d bytes of input allocated %d bytes (the least of three runs), over the bound of %d "+
		"(1 MB + %d per input byte): a size or count the input claims was trusted before the bytes behind it were seen",
		n, least, bound, perByte)
}
