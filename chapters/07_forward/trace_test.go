package forward

import (
	"testing"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
)

// attnTol bounds |Trace.Attn - expected| for probabilities (which lie in 0..1). The expected
// maps are chapter 05's attention (golden-tested there) applied to transformers' own hidden
// states at the layer's input, so the difference is the float32 rounding of those states
// (2.2e-6 relative, see hiddenTol) carried through QK-norm and the softmax. Measured: at most
// 5e-6 over 3 prompts, 3 layers and 4 heads.
const attnTol = 1e-5

// TestTraceAttention checks that ForwardTrace keeps, for every layer and query head, the
// attention probabilities of that layer on that layer's input: one seq x seq map per head, each
// equal to chapter 05's attention.Forward on RMSNorm(input) with that layer's weights, where the
// input is transformers' hidden state before the layer (the embeddings for layer 0).
func TestTraceAttention(t *testing.T) {
	m := tinyModels(t)["gguf"]
	c := m.Attention()
	for p := 0; p < GoldenPrompts; p++ {
		want := goldenTrace(t, p)
		got, err := m.ForwardTrace(want.IDs)
		if err != nil {
			t.Fatalf("prompt %d: %v", p, err)
		}
		if len(got.Attn) != len(m.Layers) {
			t.Fatalf("prompt %d: Trace.Attn has %d layers, the model %d", p, len(got.Attn), len(m.Layers))
		}
		seq := len(want.IDs)
		worst := 0.0
		for l := range m.Layers {
			if len(got.Attn[l]) != c.Heads {
				t.Fatalf("prompt %d layer %d: %d attention maps, want one per query head (%d)", p, l, len(got.Attn[l]), c.Heads)
			}
			in := want.Embed
			if l > 0 {
				in = want.Layers[l-1]
			}
			_, probs := attention.Forward(c, &m.Layers[l].Attn, m.RoPE(), rmsnorm.RMSNorm(in, m.Layers[l].InputNorm, m.Config.RMSNormEps), 0)
			for h := range probs {
				if r, cols := got.Attn[l][h].Dims(); r != seq || cols != seq {
					t.Fatalf("prompt %d layer %d head %d: map is %dx%d, want %dx%d", p, l, h, r, cols, seq, seq)
				}
				e := maxAbs(t, got.Attn[l][h], probs[h])
				if e > attnTol {
					t.Errorf("prompt %d layer %d head %d: attention differs by %.3g from layer %d's attention on its input (tolerance %g)",
						p, l, h, e, l, attnTol)
				}
				worst = max(worst, e)
			}
		}
		t.Logf("prompt %d: attention maps within %.2g of chapter 05 on transformers' layer inputs", p, worst)
	}
}
