package qwen3

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// threadCPU is the calling thread's CPU time in ns (Linux).
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// BenchmarkAttendDecode (Linux: it reads the thread's CPU time): one layer's attention of a Batch step, B sequences at depth D, on one
// core (attend called directly), Qwen3-0.6B's heads; GB/s of keys and values read per CPU ns.
func BenchmarkAttendDecode(b *testing.B) {
	for _, kv := range []KVType{KVFloat16, KVFloat32} {
		for _, c := range []struct{ seqs, depth int }{{16, 160}, {1, 2048}, {4, 2048}} {
			b.Run(fmt.Sprintf("%v/%dx%d", kv, c.seqs, c.depth), func(b *testing.B) {
				gc := randomConfig()
				gc.HiddenSize, gc.NumAttentionHeads, gc.NumKeyValueHeads, gc.HeadDim, gc.NumHiddenLayers = 1024, 16, 8, 128, 1
				gc.IntermediateSize = 256
				m := &Model{config: gc, sizes: sizesOf(gc), layers: make([]layer, 1), tied: true}
				one := randomMatrix(b, rand.New(rand.NewPCG(3, 3)), F32, 1, 1)
				l := &m.layers[0]
				l.q, l.k, l.v, l.o, l.gate, l.up, l.down = one, one, one, one, one, one, one
				m.head, m.embed = one, one
				m.start(loadOptions{threads: 1, kv: kv})
				defer m.pool.close()
				e := m.eng
				r := rand.New(rand.NewPCG(1, 2))
				// enough caches that the keys and values do not stay in cache between calls
				sets := max(1, (256<<20)/(c.seqs*c.depth*int(m.KVBytesPerToken())))
				caches := make([][]*Cache, sets)
				for s := range caches {
					for range c.seqs {
						ca, err := m.NewCache(c.depth + 1)
						if err != nil {
							b.Fatal(err)
						}
						defer ca.Close()
						for i := range ca.mem.data {
							ca.mem.data[i] = byte(r.Uint32() & 0x3b) // small float16/float32 values
						}
						ca.tokens = ca.tokens[:c.depth]
						caches[s] = append(caches[s], ca)
					}
				}
				for i := range e.q[:c.seqs*m.sizes.qDim()] {
					e.q[i] = float32(r.NormFloat64())
				}
				e.batch, e.n, e.li, e.prepared = true, c.seqs, 0, false
				e.segs = e.segs[:0] // a Batch step: one segment of one token per cache
				for t := range c.seqs + 1 {
					e.segs = append(e.segs, t)
				}
				e.countItems()
				items := e.attentionItemCount()
				bytes := float64(c.seqs*c.depth) * float64(m.KVBytesPerToken())
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t0 := threadCPU()
				i := 0
				for b.Loop() {
					for t, ca := range caches[i%sets] {
						e.owner[t], e.posOf[t] = ca, c.depth-1
					}
					e.attend(0, 0, items)
					i++
				}
				b.ReportMetric(bytes*float64(b.N)/float64(threadCPU()-t0), "GB/cpu-s")
			})
		}
	}
}
