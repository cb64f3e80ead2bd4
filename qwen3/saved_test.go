package qwen3

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
)

// TestTransformersSavedCheckpoint: the checkpoint transformers 5 saved by itself (rope_parameters,
// dtype, untied head, theta 1e4, eps 1e-5, one KV head, a cut vocabulary padded to 2112) loads,
// tokenizes like transformers, gives transformers' logits at every position within 1e-4 absolute
// (DESIGN.md's tolerance for tiny-model logits) and greedy-decodes transformers' tokens.
func TestTransformersSavedCheckpoint(t *testing.T) {
	m, err := Load(t.Context(), reference.TinySavedDir(), WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := m.Config()
	if c.RopeTheta != 1e4 || c.RMSNormEps != 1e-5 || m.Tied() || c.NumKeyValueHeads != 1 || c.VocabSize != 2112 || m.WeightType() != BF16 {
		t.Fatalf("config %+v, tied %v, %v: not the saved checkpoint's", c, m.Tied(), m.WeightType())
	}
	d := m.Defaults()
	if d.Temperature != 0.7 || d.TopK != 20 || d.TopP != 0.8 || !slices.Equal(d.Stop, []int{2050, 2048}) {
		t.Errorf("defaults %+v, want generation_config.json's", d)
	}
	prompts, err := reference.SavedPrompts()
	if err != nil {
		t.Fatal(err)
	}
	greedy := sampling.Greedy()
	var worst float64
	for n, p := range prompts {
		if got := m.Tokenizer().Encode(p.Text); !slices.Equal(got, p.IDs) {
			t.Fatalf("prompt %d encodes to %v, transformers %v", n, got, p.IDs)
		}
		want, err := reference.LoadArray("tiny-qwen3-saved", fmt.Sprintf("prompt%d_logits.npy", n))
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.NewCache(64)
		if err != nil {
			t.Fatal(err)
		}
		vocab := want.Shape[1]
		for i, id := range p.IDs {
			logits, err := s.Step(id)
			if err != nil {
				t.Fatal(err)
			}
			for j, w := range want.Data[i*vocab : (i+1)*vocab] {
				worst = math.Max(worst, math.Abs(float64(logits[j])-w))
			}
		}
		s.Reset()
		ids, _, err := m.continueCache(context.Background(), s, p.IDs,
			ReplyOptions{Sampling: SamplingFrom(greedy), MaxNewTokens: len(p.NewIDs)}, func(int) error { return nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, p.NewIDs) {
			t.Errorf("prompt %d: greedy ids %v, transformers %v", n, ids, p.NewIDs)
		}
	}
	if worst > 1e-4 {
		t.Errorf("logits differ from transformers by %.3g (tolerance 1e-4)", worst)
	}
	t.Logf("max |Δ| against transformers: %.3g", worst)
}
