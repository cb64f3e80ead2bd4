package qwen3

import (
	"fmt"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// Picker chooses tokens from float32 logits exactly as Generate does: seed for seed, the token
// chapter 09's Sampler with the same settings draws from the same logits (in float64) on the
// whole vocabulary. Greedy settings take the first largest logit; with top-k only the candidates
// that survive top-k (ties at the k-th value kept) reach the sampler, at a fraction of the work.
// Logits holding NaN or +Inf, or no finite value, are an error, as in chapter 09.
//
// It is for a program that runs the forward passes itself (Cache.Prefill, Batch.Step) and so
// picks outside Generate's loop: a server choosing the next token of many replies at once
// (package qwen3/serve). A Picker holds its sampler's random state: one per reply, not safe for
// concurrent use.
type Picker struct {
	p     *picker
	vocab int
}

// NewPicker returns a Picker for logits of length vocab and the settings s (resolved already,
// e.g. by Model.Settings); it fails when s is invalid.
func NewPicker(vocab int, s sampling.Settings) (*Picker, error) {
	if vocab < 1 {
		return nil, fmt.Errorf("qwen3: a picker over %d logits", vocab)
	}
	sm, err := sampling.NewSampler(s)
	if err != nil {
		return nil, err
	}
	return &Picker{p: newPicker(vocab, sm), vocab: vocab}, nil
}

// Pick returns the next token's id; logits must have the length NewPicker was given.
func (p *Picker) Pick(logits []float32) (int, error) {
	if len(logits) != p.vocab {
		return 0, fmt.Errorf("qwen3: %d logits for a picker over %d", len(logits), p.vocab)
	}
	return p.p.pick(logits)
}
