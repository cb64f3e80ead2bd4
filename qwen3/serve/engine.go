package serve

import (
	"context"
	"fmt"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
)

// engine is all the scheduler asks of a model: a KV cache per slot, kept between requests; a
// chunk of a prompt run after what a slot's cache holds; one token of several slots run in one
// batched pass; and such a pass with a prompt's chunk of another slot beside them (run).
// modelEngine below is the one implementation over package qwen3; the scheduler's tests use a
// fake one. Keeping the scheduler behind this small interface means a change of the engine's
// API touches this file only.
type engine interface {
	// slots is the number of caches, maxLen how many tokens each holds, vocab the logits' length.
	slots() int
	maxLen() int
	vocab() int
	// cached returns the ids slot's cache holds, in order (read-only, valid until the next call
	// that changes the cache).
	cached(slot int) []int
	// truncate keeps the first n cached ids of slot: the prefix a new request shares with them.
	truncate(slot, n int)
	// prefill runs ids after slot's cached ids and returns the logits that predict the next
	// token (valid until the next call).
	prefill(ctx context.Context, slot int, ids []int) ([]float32, error)
	// step runs ids[i] after the cached ids of slots[i], all in one forward pass, and returns
	// the logits for each (valid until the next call).
	step(slots, ids []int) ([][]float32, error)
	// run is step with any number of ids per slot (a decoding token, a prompt's chunk), at
	// most passTokens in all, in one forward pass; the logits of each slot predict the token
	// after its last id.
	run(slots []int, ids [][]int) ([][]float32, error)
	passTokens() int
	// close releases the caches; the engine is not used afterwards.
	close() error
}

// picker chooses the next token of one reply from its logits: the engine's own picker
// (qwen3.Picker), which draws chapter 09's token seed for seed.
type picker interface {
	Pick(logits []float32) (int, error)
}

// newPicker returns the picker of a reply with settings s, over logits of length vocab.
func newPicker(vocab int, s sampling.Settings) (picker, error) { return qwen3.NewPicker(vocab, s) }

// modelEngine runs a qwen3.Model: a Cache per slot (made when the slot is first used and kept
// until Close: it is the prefix cache) and one Batch for the decoding steps.
type modelEngine struct {
	m      *qwen3.Model
	n, max int
	caches []*qwen3.Cache
	batch  *qwen3.Batch
	args   []*qwen3.Cache // step's argument, reused
}

func newModelEngine(m *qwen3.Model, slots, maxLen int) (*modelEngine, error) {
	if limit := modelContext(m); maxLen < 1 || maxLen > limit {
		return nil, fmt.Errorf("serve: a slot's context of %d tokens is outside 1..%d (the model's)", maxLen, limit)
	}
	b, err := m.NewBatch(slots)
	if err != nil {
		return nil, fmt.Errorf("serve: %d slots: %w", slots, err)
	}
	return &modelEngine{m: m, n: slots, max: maxLen, caches: make([]*qwen3.Cache, slots), batch: b}, nil
}

func (e *modelEngine) slots() int  { return e.n }
func (e *modelEngine) maxLen() int { return e.max }
func (e *modelEngine) vocab() int  { return e.m.Config().VocabSize }

// cache returns slot's cache, making it on first use.
func (e *modelEngine) cache(slot int) (*qwen3.Cache, error) {
	if c := e.caches[slot]; c != nil {
		return c, nil
	}
	c, err := e.m.NewCache(e.max)
	if err != nil {
		return nil, err
	}
	e.caches[slot] = c
	return c, nil
}

func (e *modelEngine) cached(slot int) []int {
	if c := e.caches[slot]; c != nil {
		return c.Tokens()
	}
	return nil
}

func (e *modelEngine) truncate(slot, n int) {
	if c := e.caches[slot]; c != nil {
		c.Truncate(min(n, c.Len())) // n <= Len(): the scheduler keeps a prefix of what is cached
	}
}

func (e *modelEngine) prefill(ctx context.Context, slot int, ids []int) ([]float32, error) {
	c, err := e.cache(slot)
	if err != nil {
		return nil, err
	}
	return c.Prefill(ctx, ids)
}

func (e *modelEngine) step(slots, ids []int) ([][]float32, error) {
	if err := e.gather(slots); err != nil {
		return nil, err
	}
	return e.batch.Step(e.args, ids)
}

func (e *modelEngine) run(slots []int, ids [][]int) ([][]float32, error) {
	if err := e.gather(slots); err != nil {
		return nil, err
	}
	return e.batch.Run(e.args, ids)
}

func (e *modelEngine) passTokens() int { return e.batch.MaxTokens() }

// gather puts the caches of slots in args.
func (e *modelEngine) gather(slots []int) error {
	e.args = e.args[:0]
	for _, i := range slots {
		c, err := e.cache(i)
		if err != nil {
			return err
		}
		e.args = append(e.args, c)
	}
	return nil
}

// close returns the caches' memory.
func (e *modelEngine) close() error {
	var first error
	for i, c := range e.caches {
		if c != nil {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
			e.caches[i] = nil
		}
	}
	return first
}

// The model's facts the server needs, read in one place: package qwen3's API is changing
// (issue 35), and only this file should have to follow it.

func modelTokenizer(m *qwen3.Model) *tokenizer.Tokenizer { return m.Tokenizer() }
func modelStops(m *qwen3.Model) []int                    { return m.Defaults().Stop }
func modelContext(m *qwen3.Model) int                    { return m.Config().MaxPositionEmbeddings }

// modelSettings resolves a request's sampling against the checkpoint's recommendation.
func modelSettings(m *qwen3.Model, r *request, seed uint64) (sampling.Settings, error) {
	return m.Settings(qwen3.Sampling{Temperature: r.temperature, TopK: r.topK, TopP: r.topP, MinP: r.minP, Seed: seed})
}
