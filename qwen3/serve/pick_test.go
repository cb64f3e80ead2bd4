package serve

import (
	"math"
	"math/rand/v2"
	"testing"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// The picker draws, seed for seed, the token chapter 09's Sampler draws from the same logits on
// the whole vocabulary: chapter 09 is the reference, the picker only skips work.
func TestPickerMatchesChapter09(t *testing.T) {
	const vocab = 5000
	rng := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, vocab)
	wide := make([]float64, vocab)
	settings := []sampling.Settings{
		sampling.Greedy(),
		sampling.QwenThinking(0),    // T 0.6, top-k 20, top-p 0.95
		sampling.QwenNonThinking(0), // T 0.7, top-k 20, top-p 0.8
		{Temperature: 1, TopK: 3, TopP: 1},
		{Temperature: 1.3, TopP: 0.9},           // no top-k: the whole vocabulary
		{Temperature: 0.8, TopP: 1, MinP: 0.05}, // min-p alone
	}
	for _, base := range settings {
		for seed := range uint64(20) {
			s := base
			s.Seed = seed
			ours, err := newTokenPicker(vocab, s)
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := sampling.NewSampler(s)
			for step := range 10 {
				for i := range logits {
					logits[i] = float32(rng.NormFloat64() * 3)
					wide[i] = float64(logits[i])
				}
				if step%3 == 0 { // ties at the top-k boundary: kept, as torch.topk keeps them
					v := logits[7]
					for _, i := range []int{11, 900, 4000} {
						logits[i], wide[i] = v, float64(v)
					}
				}
				got, err := ours.pick(logits)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ref.Sample(wide)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("%+v step %d: picked %d, chapter 09 samples %d", s, step, got, want)
				}
			}
		}
	}
}

func TestPickerRefusesBadLogits(t *testing.T) {
	for _, s := range []sampling.Settings{sampling.Greedy(), sampling.QwenThinking(1), {Temperature: 1, TopP: 1}} {
		p, _ := newTokenPicker(4, s)
		for _, l := range [][]float32{
			{0, float32(math.NaN()), 1, 2},
			{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))},
		} {
			if id, err := p.pick(l); err == nil {
				t.Errorf("%+v: logits %v gave token %d, want an error", s, l, id)
			}
		}
	}
}
