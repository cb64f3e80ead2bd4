package qwen3

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// DefaultMaxNewTokens and DefaultMaxContext are what a zero ReplyOptions.MaxNewTokens and
// MaxContext mean. The qwen3 command's -max-tokens and -ctx start from the same values.
const (
	DefaultMaxNewTokens = 512
	DefaultMaxContext   = 4096
)

// ReplyOptions control one reply: of Generate, of each sequence of GenerateBatch, or of every
// turn of a Chat. The zero ReplyOptions is ready to use: the checkpoint's recommended sampling
// with seed 0, up to DefaultMaxNewTokens (512) new tokens, the checkpoint's stop tokens, and a
// context of min(DefaultMaxContext, the model's context) tokens, 4096 for Qwen3-0.6B.
type ReplyOptions struct {
	// Sampling picks each token; the zero Sampling is the checkpoint's recommended settings.
	Sampling Sampling
	// MaxNewTokens is the budget of new tokens; 0 means DefaultMaxNewTokens (512).
	MaxNewTokens int
	// Stop lists the ids that end a reply (not emitted); nil means Model.Defaults().Stop, and an
	// empty, non-nil slice means none.
	Stop []int
	// MaxContext is the length in tokens of the KV cache the reply runs in (prompt and reply
	// together); 0 means min(DefaultMaxContext, the model's context). A Chat whose MaxContext
	// changes moves to a cache of the new length at its next turn, prefilling the conversation
	// again.
	MaxContext int
	// Progress, when not nil, is called while a prompt is prefilled, after each chunk of up to
	// 128 tokens, with the tokens done and the total: a long prompt takes a while. It runs on
	// the generating goroutine, so it should return quickly.
	Progress func(done, total int)
	// OnStep, when not nil, is called at every decode step with what the sampler saw and drew
	// (Step): the logits, the distribution the token was drawn from, the token, and whether it
	// ends the reply. It runs on the generating goroutine before the token's text is streamed,
	// so it should return quickly; when it is nil the loop copies nothing.
	OnStep func(Step)
}

// Sampling says how a reply picks its tokens, as changes to the settings the checkpoint
// recommends (Model.Defaults: generation_config.json, or the GGUF's general.sampling.* keys).
// A nil field keeps the checkpoint's value, so the zero Sampling is the checkpoint's
// recommendation with seed 0. A field that is set has chapter 09's meaning (sampling.Settings):
// Temperature 0 is greedy decoding, TopK 0 and MinP 0 switch their filter off, and so does
// TopP 1. Go 1.26's new(value) makes a pointer to a value:
//
//	qwen3.Sampling{}                                   // Qwen3-0.6B's: T 0.6, top-k 20, top-p 0.95
//	qwen3.Sampling{Temperature: new(0.7), Seed: 42}    // T 0.7 and the checkpoint's filters
//	qwen3.Sampling{Temperature: new(0.0)}              // greedy
//	qwen3.SamplingFrom(sampling.QwenNonThinking(42))   // exactly chapter 09's settings
//
// Model.Settings resolves a Sampling into chapter 09's Settings and checks it. Sampling and
// chapter 09's Settings are the course's own types, kept as the lesson taught them.
type Sampling struct {
	Temperature *float64 // >= 0; 0 is greedy
	TopK        *int     // >= 0; 0 is off
	TopP        *float64 // in (0, 1]; 1 is off
	MinP        *float64 // in [0, 1]; 0 is off
	Seed        uint64   // the random generator's seed: the same seed draws the same tokens
}

// SamplingFrom returns a Sampling that sets every field to s's: the checkpoint's
// recommendation no longer matters.
func SamplingFrom(s sampling.Settings) Sampling {
	return Sampling{Temperature: &s.Temperature, TopK: &s.TopK, TopP: &s.TopP, MinP: &s.MinP, Seed: s.Seed}
}

// Settings resolves s against the checkpoint's recommended settings (DefaultSettings) and
// validates the result; the error names the first setting out of range.
func (m *Model) Settings(s Sampling) (sampling.Settings, error) {
	r := m.DefaultSettings(s.Seed)
	if s.Temperature != nil {
		r.Temperature = *s.Temperature
	}
	if s.TopK != nil {
		r.TopK = *s.TopK
	}
	if s.TopP != nil {
		r.TopP = *s.TopP
	}
	if s.MinP != nil {
		r.MinP = *s.MinP
	}
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("qwen3: %w", err)
	}
	return r, nil
}

// DefaultSettings returns the sampling settings the checkpoint recommends (generation_config.json
// or the GGUF's general.sampling.* keys), with the given seed; the settings it does not give are
// off (temperature 1, no top-k, top-p or min-p). It is what the zero Sampling resolves to.
func (m *Model) DefaultSettings(seed uint64) sampling.Settings {
	s := sampling.Neutral(seed)
	d := m.defaults
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

// Finish says why a reply ended.
type Finish string

const (
	FinishStop    Finish = "stop"      // the model produced a stop token (ReplyOptions.Stop)
	FinishLength  Finish = "length"    // ReplyOptions.MaxNewTokens were generated
	FinishContext Finish = "context"   // the context (ReplyOptions.MaxContext tokens) is full
	FinishCancel  Finish = "cancelled" // ctx was cancelled; its error is returned
	FinishError   Finish = "error"     // an error was returned (from onText, or a bad setting)
)

// Stats are the timings of one reply and why it ended.
type Stats struct {
	PromptTokens int           // tokens prefilled: for a chat turn only those not already cached; after a cancel, those done
	NewTokens    int           // tokens generated
	FirstToken   time.Duration // from the call to the first new token: prefill plus one sample
	Prefill      time.Duration // the forward passes over prompt tokens (a chat that made room re-prefills too)
	Decode       time.Duration // every later step
	Finish       Finish        // why the reply ended
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

// Generate continues prompt (plain text, no chat template) and streams the new text to onText
// (which may be nil) as complete UTF-8 pieces. It returns the whole new text and the timings.
// It stops at a stop token, after the token budget, when the context is full (Stats.Finish
// says which), when ctx is cancelled (returning what was generated and ctx's error), or when
// onText returns an error (returned as it is). A prompt longer than the context is an error
// wrapping ErrContextFull, before anything is generated.
//
// The reply runs in a KV cache that the model keeps between calls: one cache for the model,
// reused by the next call with the same MaxContext (a call while it is in use, or with another
// length, maps a cache of its own), so that calls one after another do not grow the process's
// memory. Close returns it.
func (m *Model) Generate(ctx context.Context, prompt string, opts ReplyOptions, onText func(string) error) (string, Stats, error) {
	ids := m.tok.Encode(prompt)
	if len(ids) == 0 {
		return "", Stats{}, errors.New("qwen3: empty prompt")
	}
	c, err := m.getCache(opts.MaxContext)
	if err != nil {
		return "", Stats{}, fmt.Errorf("qwen3: %w", err)
	}
	defer m.putCache(c)
	if len(ids) > c.MaxLen() {
		return "", Stats{}, fmt.Errorf("qwen3: %w: the prompt is %d tokens, the context holds %d", ErrContextFull, len(ids), c.MaxLen())
	}
	var text strings.Builder
	_, st, err := m.continueCache(ctx, c, ids, opts, textSink(m.tok, &text, onText), nil)
	return text.String(), st, err
}

// getCache returns an empty cache of maxLen tokens (0: the default): the one Generate keeps
// between calls when it has that length, or a new one.
func (m *Model) getCache(maxLen int) (*Cache, error) {
	if maxLen == 0 {
		maxLen = min(DefaultMaxContext, m.sizes.MaxContext)
	}
	e := m.eng
	e.mu.Lock()
	c := e.idle
	if c != nil && c.maxLen == maxLen {
		e.idle = nil
	} else {
		c = nil
	}
	e.mu.Unlock()
	if c != nil {
		return c, nil
	}
	return m.newCache(maxLen, false)
}

// putCache keeps c, emptied, for the next Generate, in place of the one kept so far (whose
// memory is returned); after Close it returns c's memory.
func (m *Model) putCache(c *Cache) {
	e := m.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || c.mem == nil {
		c.close()
		return
	}
	if e.idle != nil {
		e.idle.close()
	}
	c.Reset()
	e.idle = c
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

// makeRoom is called when a reply fills the context: given the ids generated so far, it returns
// the whole token sequence the cache should hold instead (ending with those ids), shorter
// than the context, or an error wrapping ErrContextFull when it cannot make room.
type makeRoom func(out []int) ([]int, error)

// continueCache prefills ids after what c already holds and generates until a stop token, the
// budget, a full context, cancellation or an error from emit. emit gets every new id, then -1
// once at the end. The new ids are in the cache except the last one (which is not fed back).
// When the context fills and room is not nil, room gives the sequence to re-prefill, and
// generation goes on after it.
//
// It is the one generation loop of the package: a reply (newReply) picks tokens and keeps the
// budget, the stop ids and the timings; the cache runs the model. Its errors are the package's,
// with "qwen3: " in front, except ctx's and emit's, which come back as they were.
func (m *Model) continueCache(ctx context.Context, c *Cache, ids []int, opts ReplyOptions, emit func(id int) error, room makeRoom) ([]int, Stats, error) {
	r, err := m.newReply(opts, emit)
	if err != nil {
		return nil, Stats{}, err
	}
	logits, err := r.prefill(ctx, c, ids, opts.Progress)
	if err != nil {
		return r.finish(ours(ctx, err))
	}
	for {
		id, more, err := r.next(logits)
		if err != nil && err != r.emitErr {
			err = ours(ctx, err)
		}
		if err != nil || !more {
			return r.finish(err)
		}
		if err := ctx.Err(); err != nil {
			return r.finish(err)
		}
		if c.Len() < c.MaxLen() {
			if logits, err = c.step(id); err != nil {
				return r.finish(ours(ctx, err))
			}
			continue
		}
		// The context is full: the reply ends, unless room can be made.
		if room == nil {
			return r.finishAt(FinishContext)
		}
		all, err := room(r.out)
		if errors.Is(err, ErrContextFull) || (err == nil && len(all) >= c.MaxLen()) {
			return r.finishAt(FinishContext)
		} else if err != nil {
			return r.finish(ours(ctx, err))
		}
		keep := cachedPrefix(c, all)
		c.tokens = c.tokens[:keep]
		start := time.Now()
		logits, err = r.prefill(ctx, c, all[keep:], opts.Progress)
		r.refill += time.Since(start)
		if err != nil {
			return r.finish(ours(ctx, err))
		}
	}
}

// ours puts the package's name in front of one of its own errors; ctx's error comes back as it
// was.
func ours(ctx context.Context, err error) error {
	if err == nil || err == ctx.Err() {
		return err
	}
	return fmt.Errorf("qwen3: %w", err)
}

// reply is one reply being generated: it picks each token, checks it against the stop ids and
// the budget, streams it, and keeps the timings. continueCache drives one over a Cache.
type reply struct {
	picker  *picker
	stop    []int
	budget  int
	emit    func(id int) error
	emitErr error // the error emit returned, if it did: the caller's, returned as it is
	out     []int
	st      Stats
	start   time.Time
	refill  time.Duration // time spent re-prefilling after the context filled

	// OnStep's (step.go): nothing of it runs when onStep is nil.
	onStep func(Step)
	seq    int       // the sequence's index in GenerateBatch
	cache  *Cache    // the cache the reply runs in, for Step.Position
	mark   time.Time // when the previous step's OnStep returned, or the prefill ended
}

func (m *Model) newReply(opts ReplyOptions, emit func(id int) error) (*reply, error) {
	settings, err := m.Settings(opts.Sampling)
	if err != nil {
		return nil, err
	}
	sampler, err := sampling.NewSampler(settings) // settings are valid: no error
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	budget := opts.MaxNewTokens
	if budget == 0 {
		budget = DefaultMaxNewTokens
	}
	if budget < 0 {
		return nil, fmt.Errorf("qwen3: token budget %d is negative", budget)
	}
	stop := opts.Stop
	if stop == nil {
		stop = m.defaults.Stop
	}
	return &reply{picker: newPicker(m.sizes.Vocab, sampler), stop: stop, budget: budget, emit: emit, start: time.Now(), onStep: opts.OnStep}, nil
}

// prefill runs ids after what c holds, counting the tokens done and the time even when it is
// cancelled part way, and reporting progress between chunks.
func (r *reply) prefill(ctx context.Context, c *Cache, ids []int, progress func(done, total int)) ([]float32, error) {
	before, start := c.Len(), time.Now()
	logits, err := c.prefill(ctx, ids, progress)
	r.st.Prefill += time.Since(start)
	r.st.PromptTokens += c.Len() - before
	r.cache, r.mark = c, time.Now()
	return logits, err
}

// next picks the token that follows logits and streams it. more is false when the reply is over:
// a stop token (not streamed), or the budget reached.
func (r *reply) next(logits []float32) (id int, more bool, err error) {
	id, err = r.picker.pick(logits)
	if err != nil {
		return 0, false, fmt.Errorf("new token %d: %w", len(r.out), err)
	}
	stop := slices.Contains(r.stop, id)
	if r.onStep != nil {
		r.observe(logits, id, stop)
	}
	if stop {
		r.st.Finish = FinishStop
		return id, false, nil
	}
	r.out = append(r.out, id)
	if len(r.out) == 1 {
		r.st.FirstToken = time.Since(r.start)
	}
	if err := r.emit(id); err != nil {
		r.emitErr = err
		return id, false, err
	}
	if len(r.out) == r.budget {
		r.st.Finish = FinishLength
		return id, false, nil
	}
	return id, true, nil
}

// finishAt ends the reply for reason why.
func (r *reply) finishAt(why Finish) ([]int, Stats, error) {
	r.st.Finish = why
	return r.finish(nil)
}

// finish flushes the text, completes the stats and returns the new ids.
func (r *reply) finish(err error) ([]int, Stats, error) {
	if e := r.emit(-1); err == nil && e != nil {
		r.emitErr = e
		err = e
	}
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		r.st.Finish = FinishCancel
	case err != nil:
		r.st.Finish = FinishError
	}
	r.st.NewTokens = len(r.out)
	if len(r.out) > 0 {
		r.st.Decode = time.Since(r.start) - r.st.FirstToken - r.refill
	}
	return r.out, r.st, err
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
		// The argmax, refusing what chapter 09's Sample refuses: a NaN or +Inf logit, or none finite.
		best := -1
		for i, v := range logits {
			if v != v || v > math.MaxFloat32 {
				return 0, fmt.Errorf("sampling: logit %d of %d is %v", i, len(logits), v)
			}
			if best < 0 || v > logits[best] {
				best = i
			}
		}
		if best < 0 || logits[best] < -math.MaxFloat32 {
			return 0, fmt.Errorf("sampling: none of the %d logits is a finite number", len(logits))
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
	// the k-th largest value (a NaN is refused here: it would not be among the candidates, and
	// chapter 09 refuses it wherever it is)
	p.kth = p.kth[:0]
	for i, v := range logits {
		if v != v {
			return 0, fmt.Errorf("sampling: logit %d of %d is NaN", i, len(logits))
		}
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
