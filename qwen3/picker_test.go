package qwen3

import (
	"math/rand/v2"
	"testing"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// The exported Picker is the engine's picker (TestPickerMatchesSampler, FuzzPicker): seed for
// seed it draws chapter 09's token; it refuses settings chapter 09 refuses and logits of the
// wrong length (an error, not a panic).
func TestExportedPicker(t *testing.T) {
	const vocab = 3000
	r := rand.New(rand.NewPCG(21, 22))
	logits32 := make([]float32, vocab)
	logits64 := make([]float64, vocab)
	for _, s := range []sampling.Settings{sampling.Greedy(), sampling.QwenThinking(7), {Temperature: 1.1, TopP: 0.9, Seed: 8}} {
		p, err := NewPicker(vocab, s)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := sampling.NewSampler(s)
		for draw := range 50 {
			for i := range logits32 {
				logits32[i] = float32(r.NormFloat64() * 3)
				logits64[i] = float64(logits32[i])
			}
			got, err := p.Pick(logits32)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := ref.Sample(logits64); got != want {
				t.Fatalf("%+v draw %d: Pick chose %d, chapter 09's sampler %d", s, draw, got, want)
			}
		}
		if id, err := p.Pick(make([]float32, vocab+1)); err == nil {
			t.Errorf("%+v: %d logits for a picker over %d gave token %d, want an error", s, vocab+1, vocab, id)
		}
	}
	if _, err := NewPicker(vocab, sampling.Settings{Temperature: -1}); err == nil {
		t.Error("temperature -1: NewPicker gave no error")
	}
	if _, err := NewPicker(0, sampling.Greedy()); err == nil {
		t.Error("vocab 0: NewPicker gave no error")
	}
}
