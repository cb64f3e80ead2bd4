package qwen3

import (
	"time"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// Step is one decode step of a reply as its sampler saw it, what ReplyOptions.OnStep receives:
// the warpers' input (the logits and the settings), their output (the distribution the token
// was drawn from) and the token drawn. Prompt tokens are not steps: they are given, not drawn.
//
// The slices belong to the generation loop and hold only during the call: copy what you keep.
// Package qwen3/viz turns a Step into the JSON event that `qwen3 run -trace` writes and its page
// draws.
type Step struct {
	// Seq is the sequence's index in GenerateBatch; 0 for Generate and a Chat.
	Seq int
	// Index is the token's index in the reply, 0 for the first new token.
	Index int
	// Position is where the token goes in the context: the tokens before it (the prompt, the
	// earlier turns of a chat that the cache holds, the reply so far).
	Position int
	// Settings are the resolved sampling settings the token was picked with.
	Settings sampling.Settings
	// Logits are the model's logits over the whole vocabulary (float32, as the engine computes
	// them): the warpers' input.
	Logits []float32
	// Candidates are the ids the sampler was handed, in id order, and Probs[i] is the probability
	// of Candidates[i]. With top-k the engine hands the sampler only the candidates that survive
	// it (ties at the k-th value included), which draws the same token as the whole vocabulary
	// would; without top-k Candidates is nil and Probs has one entry per id. For greedy settings
	// Candidates is the argmax alone.
	Candidates []int
	// Probs is the distribution the token was drawn from: chapter 09's
	// sampling.Distribution(input, Settings) of the sampler's very input, the vector its Draw
	// walked (0 for a token a warper cut, the kept ones summing to 1). For greedy settings it is
	// [1]: chapter 09's Distribution at temperature 0.
	Probs []float64
	// ID is the token drawn.
	ID int
	// Stop is true when ID is one of the reply's stop tokens: the reply ends, without it.
	Stop bool
	// Time is the time since the previous step's OnStep returned (for the first step, since the
	// prompt's prefill ended): the forward pass that made Logits, the pick, and streaming the
	// previous token's text. In GenerateBatch the forward pass is shared by the batch's sequences.
	Time time.Duration
}

// observe builds the Step of the token the picker just chose from logits and hands it to
// r.onStep. It runs only when someone listens: without OnStep the loop copies nothing.
func (r *reply) observe(logits []float32, id int, stop bool) {
	s := Step{
		Seq:      r.seq,
		Index:    len(r.out),
		Settings: r.picker.sampler.Settings(),
		Logits:   logits,
		ID:       id,
		Stop:     stop,
		Time:     time.Since(r.mark),
	}
	if r.cache != nil {
		s.Position = r.cache.Len()
	}
	s.Candidates, s.Probs = r.picker.distribution(id, len(logits))
	r.onStep(s)
	r.mark = time.Now()
}

// distribution returns what the last pick, of id from vocab logits, drew from: the ids handed to the sampler (nil
// for the whole vocabulary) and chapter 09's Distribution of the sampler's input, which pick left
// in p.sub untouched (Sample never modifies its input), so that this is the same function of the
// same numbers as the vector Sample's Draw walked. Greedy picks take the argmax without the
// sampler: the argmax alone, with probability 1.
func (p *picker) distribution(id, vocab int) ([]int, []float64) {
	s := p.sampler.Settings()
	if s.IsGreedy() {
		return []int{id}, []float64{1}
	}
	probs := sampling.Distribution(p.sub, s)
	if s.TopK == 0 || s.TopK >= vocab { // pick handed the sampler every logit
		return nil, probs
	}
	return p.ids, probs
}
