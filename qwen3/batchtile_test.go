package qwen3

import (
	"context"

	"math"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
)

// TestBatchTileMatchesChapter07: Batch steps of 12, 16, 17 and 33 caches, whose block-quantized
// matrices go through kernels.TileQN where the CPU has it (a token group of 16 lanes part empty, a
// full one, the 32-token kernel with a part-empty group, two 32-token groups and a token alone),
// give every cache the logits of chapter 07's forward pass on the same weights at its position
// within actTol, the tolerance of decoding one cache (Step), for every block-quantized type and
// the Q4_K_M mix, at every kernel level. TileQN sums the same exact integer products as the
// one-token dots and rounds in other places, so it is held to Step's contract, not to Step's bits.
// The caches hold the same ids, each a different number of them, and step three tokens.
func TestBatchTileMatchesChapter07(t *testing.T) {
	ids := []int{3, 141, 59, 265, 358, 97, 93, 238, 462, 64, 338, 327, 95, 28, 84, 19, 71, 69, 39, 93,
		75, 105, 82, 9, 74, 94, 45, 92, 30, 78, 16, 40, 62, 86, 20, 89}
	for _, tc := range []struct {
		name   string
		typeOf func(string, int) DType
	}{
		{"Q8_0", func(string, int) DType { return Q8_0 }}, {"Q4_0", func(string, int) DType { return Q4_0 }},
		{"Q4_K", func(string, int) DType { return Q4_K }}, {"Q6_K", func(string, int) DType { return Q6_K }},
		{"Q4_K_M", q4KM},
	} {
		m, cfg := randomModel(t, 19, tc.typeOf)
		ref, err := forward.FromSource(newModelSource(m), cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Forward(ids)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) {
			eachLevel(t, func(t *testing.T) {
				worst := 0.0
				for _, n := range []int{12, 16, 17, 33} {
					caches := make([]*Cache, n)
					for i := range caches {
						c, err := m.NewCache(64)
						if err != nil {
							t.Fatal(err)
						}
						defer c.Close()
						if _, err := c.Prefill(context.Background(), ids[:1+i%(len(ids)-3)]); err != nil {
							t.Fatal(err)
						}
						caches[i] = c
					}
					b, err := m.NewBatch(n)
					if err != nil {
						t.Fatal(err)
					}
					for step := range 3 {
						next := make([]int, n)
						for i, c := range caches {
							next[i] = ids[c.Len()]
						}
						got, err := b.Step(caches, next)
						if err != nil {
							t.Fatal(err)
						}
						for i, c := range caches {
							pos := c.Len() - 1
							var d, top float64
							for j, v := range got[i] {
								d = math.Max(d, math.Abs(float64(v)-want.At(pos, j)))
								top = math.Max(top, math.Abs(want.At(pos, j)))
							}
							worst = math.Max(worst, d/top)
							if d > actTol*top {
								t.Fatalf("%d caches, step %d, cache %d at position %d: logits differ from chapter 07 by %.3g of the largest (tolerance %g)",
									n, step, i, pos, d/top, actTol)
							}
						}
					}
				}
				t.Logf("largest difference from chapter 07: %.3g of the largest logit", worst)
			})
		})
	}
}
