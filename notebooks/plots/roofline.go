package plots

import (
	"fmt"
	"math"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TokenFLOPs is the floating-point work of one token of the bench row r on a model of
// configuration cfg, 2 FLOPs (a multiply and an add) per multiply-add:
//
//	every layer matrix and the LM head once:  2 * (CountParams' Attention + MLP + vocab x hidden)
//	attention over the context:               4 * layers * query heads * head_dim per cached key
//	                                          (a score and a weighted value per head dimension)
//
// A decoded token (r.Test "decode", r.Tokens generated after r.Depth tokens of context) sees
// r.Depth + r.Tokens/2 keys on average. A prompt token (r.Test "prefill", a prompt of r.Tokens)
// sees r.Tokens/2 keys on average, and the LM head runs once for the whole prompt, so each token
// carries 1/r.Tokens of it.
func TokenFLOPs(cfg gguf.Config, r BenchRow) float64 {
	p := gguf.CountParams(cfg)
	layers := float64(p.Attention + p.MLP)
	head := float64(cfg.VocabSize) * float64(cfg.HiddenSize)
	perKey := 4 * float64(cfg.NumHiddenLayers*cfg.NumAttentionHeads*cfg.HeadDim)
	if r.Test == "decode" {
		return 2*(layers+head) + perKey*(float64(r.Depth)+float64(r.Tokens)/2)
	}
	return 2*layers + 2*head/float64(max(r.Tokens, 1)) + perKey*float64(r.Tokens)/2
}

// RoundBlocks rounds x the way an engine rounds activations to integers: in blocks of block
// values, each with its own scale s = max|x| / levels, every value becomes s * round(x/s) (ties to
// even), an integer of at most levels in magnitude times the scale. levels 32767 is int16,
// 127 int8. Each value moves by at most s/2. A block of zeros stays zeros. len(x) must be a
// multiple of block, and levels at least 1.
func RoundBlocks(x []float64, block int, levels float64) ([]float64, error) {
	if block <= 0 || len(x)%block != 0 || !(levels >= 1) {
		return nil, fmt.Errorf("plots: RoundBlocks: %d values in blocks of %d at %g levels, want whole blocks and levels >= 1", len(x), block, levels)
	}
	out := make([]float64, len(x))
	for b := 0; b < len(x); b += block {
		amax := 0.0
		for _, v := range x[b : b+block] {
			amax = math.Max(amax, math.Abs(v))
		}
		if amax == 0 {
			continue
		}
		s := amax / levels
		for i := b; i < b+block; i++ {
			out[i] = s * math.RoundToEven(x[i]/s)
		}
	}
	return out, nil
}
