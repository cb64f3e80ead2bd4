package qwen3

import (
	"math"
	"math/rand/v2"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
)

// TestLongContextMatchesChapter07: a 300-token context through every attention path — prompt
// chunks of 128 tokens (six query rows per item, keys in many blocks of 64, the online softmax
// rescaling as the maximum grows), then decoding at depth 290..299 (two query rows per item) —
// against chapter 07's plain softmax over all positions, within DESIGN.md's float32 tolerance.
func TestLongContextMatchesChapter07(t *testing.T) {
	m, cfg := randomModel(t, 21, func(string, int) DType { return F32 })
	ref, err := forward.FromSource(newModelSource(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	ids := make([]int, 300)
	for i := range ids {
		ids[i] = r.IntN(cfg.VocabSize)
	}
	want, err := ref.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	const prompt = 290
	eachLevel(t, func(t *testing.T) {
		s, err := m.NewSession(len(ids))
		if err != nil {
			t.Fatal(err)
		}
		var worst, scale float64
		check := func(pos int, logits []float32) {
			for c, v := range logits {
				worst = math.Max(worst, math.Abs(float64(v)-want.At(pos, c)))
				scale = math.Max(scale, math.Abs(want.At(pos, c)))
			}
		}
		logits, err := s.Prefill(t.Context(), ids[:prompt])
		if err != nil {
			t.Fatal(err)
		}
		check(prompt-1, logits)
		for i := prompt; i < len(ids); i++ {
			if logits, err = s.Step(ids[i]); err != nil {
				t.Fatal(err)
			}
			check(i, logits)
		}
		if worst > floatTol*scale {
			t.Errorf("logits differ from chapter 07 by %.3g (largest %.3g, tolerance %g relative)", worst, scale, floatTol)
		}
		t.Logf("max |Δ| %.3g, %.2g relative", worst, worst/scale)
	})
}

// TestAttentionNeedsLanes: a head_dim the attention tiles cannot cover is refused with an error.
func TestAttentionNeedsLanes(t *testing.T) {
	m, _ := randomModel(t, 1, func(string, int) DType { return F32 })
	m.sizes.HeadDim = 24
	if _, err := m.NewSession(8); err == nil {
		t.Error("head_dim 24: no error")
	}
}
