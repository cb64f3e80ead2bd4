package qwen3

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// Options control one reply.
type Options struct {
	// Sampling picks each token (chapter 09's settings); nil means the checkpoint's recommended
	// settings (Model.DefaultSettings) with seed 0.
	Sampling *sampling.Settings
	// MaxNewTokens is the budget of new tokens; 0 means 512.
	MaxNewTokens int
	// Stop lists the ids that end a reply (not emitted); nil means Model.Defaults.Stop.
	Stop []int
	// MaxContext is the KV cache length of a new session; 0 means min(4096, the model's context).
	MaxContext int
}

// Stats are the timings of one reply.
type Stats struct {
	PromptTokens int           // tokens prefilled (for a chat turn, only those not already cached)
	NewTokens    int           // tokens generated
	FirstToken   time.Duration // from the call to the first new token: prefill plus one sample
	Prefill      time.Duration // the prompt's forward pass
	Decode       time.Duration // every later step
}

// PrefillRate is prompt tokens per second.
func (s Stats) PrefillRate() float64 { return rate(s.PromptTokens, s.Prefill) }

// DecodeRate is generated tokens per second after the first one.
func (s Stats) DecodeRate() float64 { return rate(s.NewTokens-1, s.Decode) }

func rate(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// DefaultSettings returns the sampling settings the checkpoint recommends (generation_config.json
// or the GGUF's general.sampling.* keys), with the given seed; fields it does not give are neutral.
func (m *Model) DefaultSettings(seed uint64) sampling.Settings {
	s := sampling.Neutral(seed)
	d := m.Defaults
	if d.Temperature > 0 {
		s.Temperature = d.Temperature
	}
	if d.TopK > 0 {
		s.TopK = d.TopK
	}
	if d.TopP > 0 {
		s.TopP = d.TopP
	}
	s.MinP = d.MinP
	return s
}

// Generate continues prompt (plain text, no chat template) and streams the new text to onText
// (which may be nil) as complete UTF-8 pieces. It returns the whole new text and the timings.
// It stops at a stop token, after the token budget, when ctx is cancelled (returning what was
// generated and ctx's error), or when onText returns an error.
func (m *Model) Generate(ctx context.Context, prompt string, opts Options, onText func(string) error) (string, Stats, error) {
	s, err := m.NewSession(opts.MaxContext)
	if err != nil {
		return "", Stats{}, err
	}
	ids := m.Tokenizer.Encode(prompt)
	if len(ids) == 0 {
		return "", Stats{}, errors.New("qwen3: empty prompt")
	}
	var text strings.Builder
	_, st, err := m.continueSession(ctx, s, ids, opts, textSink(m.Tokenizer, &text, onText))
	return text.String(), st, err
}

// textSink turns a stream of ids into a stream of complete UTF-8 text with chapter 02's
// streaming decoder, collecting it into b and passing each piece to onText. Call it with id -1
// at the end to flush. Ids the tokenizer has no text for (Qwen3's unused "[PAD…]" ids, which a
// random model can draw) give no text, as Hugging Face's decode silently drops them.
func textSink(tok *tokenizer.Tokenizer, b *strings.Builder, onText func(string) error) func(id int) error {
	dec := tok.NewStreamDecoder(false)
	return func(id int) error {
		var piece string
		if id < 0 {
			piece = dec.Flush()
		} else {
			var err error
			var unknown *tokenizer.UnknownIDError
			if piece, err = dec.Add(id); errors.As(err, &unknown) {
				piece = ""
			} else if err != nil {
				return err
			}
		}
		if piece == "" {
			return nil
		}
		b.WriteString(piece)
		if onText != nil {
			return onText(piece)
		}
		return nil
	}
}

// continueSession prefills ids after what s already holds and generates until a stop token, the
// budget, cancellation or an error from emit. emit gets every new id, then -1 once at the end.
// The new ids are in the session's cache except the last one (which is not fed back).
func (m *Model) continueSession(ctx context.Context, s *Session, ids []int, opts Options, emit func(id int) error) ([]int, Stats, error) {
	settings := m.DefaultSettings(0)
	if opts.Sampling != nil {
		settings = *opts.Sampling
	}
	sampler, err := sampling.NewSampler(settings)
	if err != nil {
		return nil, Stats{}, fmt.Errorf("qwen3: %w", err)
	}
	budget := opts.MaxNewTokens
	if budget == 0 {
		budget = 512
	}
	if budget < 0 {
		return nil, Stats{}, fmt.Errorf("qwen3: token budget %d is negative", budget)
	}
	stop := opts.Stop
	if stop == nil {
		stop = m.Defaults.Stop
	}
	p := newPicker(m.Config.VocabSize, sampler)
	st := Stats{PromptTokens: len(ids)}
	start := time.Now()
	logits, err := s.Prefill(ctx, ids)
	if err != nil {
		return nil, st, err
	}
	st.Prefill = time.Since(start)
	var out []int
	finish := func(err error) ([]int, Stats, error) {
		if e := emit(-1); err == nil {
			err = e
		}
		st.NewTokens = len(out)
		if len(out) > 0 {
			st.Decode = time.Since(start) - st.FirstToken
		}
		return out, st, err
	}
	for {
		id, err := p.pick(logits)
		if err != nil {
			return finish(fmt.Errorf("qwen3: token %d: %w", len(out), err))
		}
		if slices.Contains(stop, id) {
			return finish(nil)
		}
		out = append(out, id)
		if len(out) == 1 {
			st.FirstToken = time.Since(start)
		}
		if err := emit(id); err != nil {
			return finish(err)
		}
		if len(out) == budget {
			return finish(nil)
		}
		if err := ctx.Err(); err != nil {
			return finish(err)
		}
		if logits, err = s.Step(id); err != nil {
			return finish(err)
		}
	}
}

// picker chooses the next token from float32 logits with chapter 09's Sampler. Greedy settings
// take the argmax directly. With top-k, only the candidates that survive top-k (ties at the k-th
// value included, in id order) are handed to the sampler: the later warpers never revive a token
// top-k removed, so the distribution, and with the same seed the drawn token, are the same as
// chapter 09's on the whole vocabulary, at a fraction of the work and garbage.
type picker struct {
	sampler *sampling.Sampler
	ids     []int
	sub     []float64
	kth     minHeap
}

func newPicker(vocab int, sm *sampling.Sampler) *picker {
	p := &picker{sampler: sm}
	if k := min(sm.Settings().TopK, vocab); k > 0 && !sm.Settings().IsGreedy() { // top_k >= vocab keeps all
		p.kth = make(minHeap, 0, k)
		p.ids = make([]int, 0, 4*k)
		p.sub = make([]float64, 0, 4*k)
	} else if !sm.Settings().IsGreedy() {
		p.sub = make([]float64, vocab)
	}
	return p
}

func (p *picker) pick(logits []float32) (int, error) {
	s := p.sampler.Settings()
	if s.IsGreedy() {
		best := -1
		for i, v := range logits {
			if v != v { // NaN
				return 0, fmt.Errorf("logit %d is NaN", i)
			}
			if best < 0 || v > logits[best] {
				best = i
			}
		}
		return best, nil
	}
	if s.TopK == 0 || s.TopK >= len(logits) {
		p.sub = p.sub[:len(logits)]
		for i, v := range logits {
			p.sub[i] = float64(v)
		}
		return p.sampler.Sample(p.sub)
	}
	// the k-th largest value
	p.kth = p.kth[:0]
	for _, v := range logits {
		if len(p.kth) < s.TopK {
			heap.Push(&p.kth, v)
		} else if v > p.kth[0] {
			p.kth[0] = v
			heap.Fix(&p.kth, 0)
		}
	}
	threshold := p.kth[0]
	p.ids, p.sub = p.ids[:0], p.sub[:0]
	for i, v := range logits {
		if v >= threshold {
			p.ids = append(p.ids, i)
			p.sub = append(p.sub, float64(v))
		}
	}
	j, err := p.sampler.Sample(p.sub)
	if err != nil {
		return 0, err
	}
	return p.ids[j], nil
}

// minHeap of float32 values, for the k largest logits.
type minHeap []float32

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float32)) }
func (h *minHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
