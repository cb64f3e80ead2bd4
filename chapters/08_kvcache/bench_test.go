package kvcache

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qwen3go/qwen3go/reference/tinymodel"
)

// BenchmarkStep times one generated token of the tiny model at positions 16 .. 2048, split in
// the two parts of a token's work. Not asserted anywhere: the chapter 08 notebook plots the
// numbers, from notebooks/data/kvcache_bench.txt, which is this benchmark's output:
//
//	go test -run '^$' -bench Step ./chapters/08_kvcache/ | tee notebooks/data/kvcache_bench.txt
//
// Sub-benchmarks:
//
//	layers/cached/pos=N      the decoder layers for token N with the cache (Step without the LM
//	                         head): one row through every layer, attention over N+1 cached keys.
//	layers/recompute/pos=N   the decoder layers without a cache: all N+1 tokens through every
//	                         layer again (chapter 07's forward pass without the LM head).
//	lmhead                   the final norm and the LM head for the one row whose logits are
//	                         needed (vocab x hidden multiply-adds): the same for both, whatever N.
//
// A cached layer pass grows linearly with N (the attention over N keys), a recomputed one
// quadratically (N rows, each attending over up to N keys), once the parts that do not depend on
// N are small beside them.
func BenchmarkStep(b *testing.B) {
	m := tinymodel.Model(b)
	const maxPos = 2048
	ids := make([]int, maxPos+1)
	for i := range ids {
		ids[i] = (i*7919 + 13) % 151643 // any valid tokens will do for timing
	}
	for pos := 16; pos <= maxPos; pos *= 2 {
		b.Run(fmt.Sprintf("layers/cached/pos=%d", pos), func(b *testing.B) {
			c, err := New(m, pos+1)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.run(ids[:pos]); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := c.run(ids[pos : pos+1]); err != nil {
					b.Fatal(err)
				}
				if err := c.Truncate(pos); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("layers/recompute/pos=%d", pos), func(b *testing.B) {
			c, err := New(m, pos+1)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				c.Reset()
				if _, err := c.run(ids[:pos+1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("lmhead", func(b *testing.B) {
		_, hidden := m.Embedding.Dims()
		x := mat.NewDense(1, hidden, nil)
		x.SetRow(0, m.Embedding.RawRowView(ids[0]))
		for b.Loop() {
			m.Logits(x)
		}
	})
}
