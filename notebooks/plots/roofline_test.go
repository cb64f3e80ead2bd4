package plots

import (
	"math"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestTokenFLOPs counts by hand on a small configuration: hidden 8, 2 layers, 2 query heads and
// 1 KV head of 4, intermediate 16, vocabulary 10. Per layer attention has 8x8 + 2 x 8x4 + 8x8 =
// 192 weights and the MLP 3 x 8x16 = 384: 1152 for both layers; the head 80; attention 4 x 2 x 2
// x 4 = 64 FLOPs per key.
func TestTokenFLOPs(t *testing.T) {
	cfg := gguf.Config{HiddenSize: 8, IntermediateSize: 16, NumHiddenLayers: 2, NumAttentionHeads: 2,
		NumKeyValueHeads: 1, HeadDim: 4, VocabSize: 10}
	for _, tc := range []struct {
		r    BenchRow
		want float64
	}{
		{BenchRow{Test: "decode", Tokens: 64, Depth: 0}, 2*(1152+80) + 64*32},
		{BenchRow{Test: "decode", Tokens: 64, Depth: 2048}, 2*(1152+80) + 64*(2048+32)},
		{BenchRow{Test: "prefill", Tokens: 128}, 2*1152 + 2*80.0/128 + 64*64},
	} {
		if got := TokenFLOPs(cfg, tc.r); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s of %d at depth %d: %g FLOPs, want %g", tc.r.Test, tc.r.Tokens, tc.r.Depth, got, tc.want)
		}
	}
}

// TestRoundBlocks: each block gets its own scale, every value moves by at most half a step, the
// block's largest value is kept exactly, a zero block stays zero, and bad shapes are errors.
func TestRoundBlocks(t *testing.T) {
	// Levels 2: steps of max/2 in each block of 4; the last block has ties, rounded to even.
	x := []float64{0.1, -1, 0.5, 0.26, 0, 0, 0, 0, 3, 2.9, -0.01, 1.5, 2, 0.5, -0.5, 1.5}
	got, err := RoundBlocks(x, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, -1, 0.5, 0.5, 0, 0, 0, 0, 3, 3, 0, 1.5, 2, 0, 0, 2}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("value %d (%g): rounded to %g, want %g", i, x[i], got[i], want[i])
		}
	}
	fine, _ := RoundBlocks(x, 4, 32767)
	for i := range x {
		block := i / 4 * 4
		amax := 0.0
		for _, v := range x[block : block+4] {
			amax = math.Max(amax, math.Abs(v))
		}
		if d := math.Abs(fine[i] - x[i]); d > amax/32767/2*(1+1e-12) {
			t.Errorf("value %d moved by %g, more than half a step (%g)", i, d, amax/32767/2)
		}
	}
	for _, bad := range []struct {
		n, block int
		levels   float64
	}{{12, 5, 2}, {12, 0, 2}, {12, 4, 0.5}, {12, 4, math.NaN()}} {
		if _, err := RoundBlocks(make([]float64, bad.n), bad.block, bad.levels); err == nil {
			t.Errorf("RoundBlocks(%d values, block %d, levels %g): no error", bad.n, bad.block, bad.levels)
		}
	}
}
