package kvcache

import (
	"fmt"
	"testing"

	"github.com/qwen3go/qwen3go/reference/tinymodel"
)

// Time per generated token at a few positions, with the cache (Step: one new row through the
// layers, attention over pos cached keys) and without (a fresh prefill of all pos+1 tokens, which
// is chapter 07's forward pass with logits for the last row only). Not asserted anywhere; the
// chapter 08 notebook plots the same measurement. On the tiny model the LM head (151936 x 32)
// dominates a cached step, so the gap opens only after a few hundred tokens; on Qwen3-0.6B the
// layers dominate and it opens at once.
//
//	go test -run '^$' -bench . ./chapters/08_kvcache/
func BenchmarkStep(b *testing.B) {
	m := tinymodel.Model(b)
	for _, pos := range []int{16, 128, 512} {
		ids := make([]int, pos+1)
		for i := range ids {
			ids[i] = (i*7919 + 13) % 151643
		}
		b.Run(fmt.Sprintf("cached/pos=%d", pos), func(b *testing.B) {
			c, err := New(m, pos+1)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Prefill(ids[:pos]); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := c.Step(ids[pos]); err != nil {
					b.Fatal(err)
				}
				if err := c.Truncate(pos); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("recompute/pos=%d", pos), func(b *testing.B) {
			c, err := New(m, pos+1)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				c.Reset()
				if _, err := c.Prefill(ids); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
