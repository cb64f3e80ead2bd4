package kernels

// Prefetch asks the memory system to bring b into the core's caches (the level-2 cache on amd64)
// and returns at once, before the bytes arrive. A prompt's matrix pass decodes a block of weight
// rows, then multiplies it with every token of the chunk for tens of microseconds; asking for the
// next block's bytes first lets them come from memory during that arithmetic, so that decoding
// them finds them in cache instead of waiting on 16 or 32 row streams at once. Ask for a few
// kilobytes at a time, spread over the work: a core keeps only so many misses in flight, and a
// burst of requests beyond them mostly comes to nothing (BenchmarkPackStream). Architectures
// without a form do nothing: it changes when bytes arrive, never a result.
func Prefetch(b []byte) {
	if len(b) > 0 {
		if k, ok := prefetchOp.get(); ok {
			k(noEscape(&b[0]), len(b))
		}
	}
}
