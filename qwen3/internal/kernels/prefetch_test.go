package kernels

import (
	"math/rand/v2"
	"testing"
	"time"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestPrefetch: Prefetch takes any slice, empty, one byte, unaligned, and changes no byte.
func TestPrefetch(t *testing.T) {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = byte(i)
	}
	for _, s := range [][]byte{nil, b[:0], b[3:4], b[1:999], b[64:128], b} {
		Prefetch(s)
	}
	for i, v := range b {
		if v != byte(i) {
			t.Fatalf("byte %d changed", i)
		}
	}
}

// BenchmarkPackStream walks an 80 MB matrix as a prompt's matrix pass does: pack a block of 32
// rows, then multiply it with 128 tokens (11 tiles), block after block, so that every pack reads
// its rows from memory. pack-ns/op is the packing alone. "none" asks for nothing ahead; "burst"
// asks for all of the next block's lines before packing this one (most requests find the core's
// queue of misses full, and they compete with this pack's reads); "spread" asks for an eleventh
// of them before each tile, as the engine does (blockTimes). On an AVX-512 EPYC: Q6_K 4.3, 3.8,
// 1.6 µs per pack (1.2 µs from cache, BenchmarkQPack), Q4_0 3.7, 3.2, 0.95.
func BenchmarkPackStream(b *testing.B) {
	for _, typ := range []gguf.GGMLType{gguf.TypeQ6_K, gguf.TypeQ4_0} {
		r := rand.New(rand.NewPCG(1, 1))
		const k, rows = 1024, 96 * 1024
		bl := blockOf[typ]
		rb := k / bl.size * bl.bytes
		w := randBlocks(r, typ, rows*k/bl.size)
		p := NewQPack(k)
		a := NewAct((128 + TileTokens) * k)
		a.Quantize(randX(r, (128+TileTokens)*k))
		var out [TileTokens * TileRows]float32
		for _, mode := range []string{"none", "burst", "spread"} {
			b.Run(typ.String()+"/"+mode, func(b *testing.B) {
				var packing time.Duration
				blk := 0
				for b.Loop() {
					r0 := blk * TileRows % rows
					blk++
					next := w[min(r0+TileRows, rows)*rb : min(r0+2*TileRows, rows)*rb]
					if mode == "burst" {
						Prefetch(next)
					}
					start := time.Now()
					p.Pack(qKinds[typ], k, w[r0*rb:(r0+TileRows)*rb], rb, TileRows)
					packing += time.Since(start)
					for i := range 11 {
						if mode == "spread" {
							Prefetch(next[i*len(next)/11 : (i+1)*len(next)/11])
						}
						TileQ(p, a, i*TileTokens, &out)
					}
				}
				b.ReportMetric(float64(packing.Nanoseconds())/float64(b.N), "pack-ns/op")
			})
		}
	}
}
