package qwen3

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Batched decoding: chapter 10's lesson in the engine.
//
// Decoding one token streams every weight of the model from memory to compute a single row of
// activations; the arithmetic waits for the memory. A Batch decodes one token of each of several
// caches in one forward pass: every matrix pass serves all of them, so a weight read from
// memory once makes B tokens. The batched kernels (kernels.Dot*RowsN) go further: they decode
// each block of weights once, into registers, and multiply it with eight, four or two tokens'
// inputs, so the arithmetic per token shrinks too (decoding the 4- and 6-bit types is half of a
// dot product's work). Past a dozen tokens the arithmetic binds, and the dots' float work per
// block (eight lanes per token, kept so that a batch gives Step's bits) with it: from
// batchTileMin tokens the quantized matrices take kernels.TileQN, a tile with the tokens in its
// lanes that flushes a block once per row and token, as a prompt's tile does. Attention stays per sequence: each token attends to its own cache at its
// own position, so nothing needs padding or a padding mask (chapter 10 pads because its cache is
// one rectangle; here every sequence keeps its own).

// Batch steps several caches of one model together: one token each, each at its own position.
// It holds only the logits of a step; the model's engine runs it. A Batch is not safe for
// concurrent use, and neither are the caches while it steps them.
type Batch struct {
	m      *Model
	logits []float32   // size x Vocab
	out    [][]float32 // Step's result, rows of logits
	seen   map[*Cache]bool
	size   int
	flat   []int // Run's tokens, one after another
}

// NewBatch returns a Batch that steps up to size caches (1..128) at a time.
func (m *Model) NewBatch(size int) (*Batch, error) {
	if size < 1 || size > maxChunk {
		return nil, fmt.Errorf("qwen3: batch size %d outside 1..%d", size, maxChunk)
	}
	v := m.sizes.Vocab
	b := &Batch{m: m, size: size, logits: make([]float32, size*v), out: make([][]float32, size), seen: make(map[*Cache]bool, size), flat: make([]int, 0, maxChunk)}
	for i := range b.out {
		b.out[i] = b.logits[i*v : (i+1)*v]
	}
	return b, nil
}

// NewCache returns an empty cache of maxLen tokens (0: as Model.NewCache) for stepping in
// batches: in the model's KV type, or float16 under KVAuto (the default), since a batch holds one
// cache per sequence beside the weights they all share (see KVAuto for the sizes). It is an
// ordinary Cache (Prefill, Step; a Batch of another model refuses it), and it is the caller's to
// close. A Batch steps Model.NewCache's caches as well, each in its own type.
func (b *Batch) NewCache(maxLen int) (*Cache, error) {
	c, err := b.m.newCache(maxLen, true)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return c, nil
}

// Size is the most caches one Step or Run takes.
func (b *Batch) Size() int { return b.size }

// MaxTokens is the most tokens one Run takes, all caches together (128).
func (b *Batch) MaxTokens() int { return maxChunk }

// Step runs ids[i] after the cached tokens of caches[i], for every i at once, and returns the
// logits that predict each cache's next token: logits[i] for caches[i], owned by the batch and
// valid until its next Step. Each cache must have room for one more token and may appear only
// once; the caches may hold different numbers of tokens. For up to 11 caches the caches and logits
// are exactly, bit for bit, those of Cache.Step(ids[i]) on each cache: the batched kernels round
// each token's input to int16 as Step does and do, lane by lane, Step's float operations in
// Step's order; only the decoding of the weights is shared. From 12 caches on, where the CPU has
// AVX-512 VNNI, the block-quantized matrices go through a tile with the tokens in its lanes
// (kernels.TileQN), which sums the same exact integer products but rounds in other places (as a
// prompt's tiles do): each cache's logits are then within Step's tolerance of chapter 07, not
// Step's bits, and the same whichever other caches share the step. An error leaves every cache as
// it was.
func (b *Batch) Step(caches []*Cache, ids []int) ([][]float32, error) {
	logits, err := b.step(caches, ids)
	if err != nil {
		return nil, fmt.Errorf("qwen3: batch step: %w", err)
	}
	return logits, nil
}

func (b *Batch) step(caches []*Cache, ids []int) ([][]float32, error) {
	n := len(caches)
	if len(ids) != n {
		return nil, fmt.Errorf("%d caches with %d ids", n, len(ids))
	}
	if err := b.checkCaches(caches, func(i int) []int { return ids[i : i+1] }); err != nil {
		return nil, err
	}
	if err := b.m.eng.runBatch(caches, ids, b.logits); err != nil {
		return nil, err
	}
	return b.out[:n], nil
}

// checkCaches says whether caches (1..Size of them, each once, of this batch's model) can take
// the tokens idsOf(i) each.
func (b *Batch) checkCaches(caches []*Cache, idsOf func(i int) []int) error {
	n := len(caches)
	if n == 0 || n > b.size {
		return fmt.Errorf("%d caches (the batch takes 1..%d)", n, b.size)
	}
	clear(b.seen)
	defer clear(b.seen) // the batch keeps no cache alive
	for i, c := range caches {
		switch {
		case c == nil:
			return fmt.Errorf("cache %d is nil", i)
		case c.m != b.m:
			return fmt.Errorf("cache %d belongs to another model", i)
		case b.seen[c]:
			return fmt.Errorf("cache %d appears twice", i)
		}
		b.seen[c] = true
		if err := c.check(idsOf(i)); err != nil {
			return fmt.Errorf("cache %d: %w", i, err)
		}
	}
	return nil
}

// Run is Step with any number of tokens per cache: it runs ids[i] (one token or more) after
// the cached tokens of caches[i], for every i, all in one forward pass, and returns the logits
// that predict each cache's next token, the one after ids[i]'s last: logits[i] for caches[i],
// owned by the batch and valid until its next Step or Run. The tokens, at most MaxTokens in
// all, share every weight read: this is how a server prefills a prompt chunk while other
// sequences decode (chunked prefill: one pass instead of a prefill pass and a decoding pass,
// each reading the weights). Each cache must have room for its tokens and may appear only once.
//
// When every ids[i] is one token, Run is Step, bits and all. Otherwise a pass of three tokens
// or more takes a prompt's tiles (matmul.go) for every token: a cache's prompt chunk gets the
// bits Prefill gives it (a token's tile lanes do not depend on the other tokens), and a
// decoding token gets logits within Step's tolerance of chapter 07, not Step's bits. An error leaves
// every cache as it was.
func (b *Batch) Run(caches []*Cache, ids [][]int) ([][]float32, error) {
	logits, err := b.run(caches, ids)
	if err != nil {
		return nil, fmt.Errorf("qwen3: batch run: %w", err)
	}
	return logits, nil
}

func (b *Batch) run(caches []*Cache, ids [][]int) ([][]float32, error) {
	n := len(caches)
	if len(ids) != n {
		return nil, fmt.Errorf("%d caches with %d lists of ids", n, len(ids))
	}
	total := 0
	for i, s := range ids {
		if len(s) == 0 {
			return nil, fmt.Errorf("cache %d has no ids to run", i)
		}
		total += len(s)
	}
	if total > maxChunk {
		return nil, fmt.Errorf("%d tokens in one pass (at most %d)", total, maxChunk)
	}
	if err := b.checkCaches(caches, func(i int) []int { return ids[i] }); err != nil {
		return nil, err
	}
	if err := b.m.eng.runSegments(caches, ids, b.flat, b.logits); err != nil {
		return nil, err
	}
	return b.out[:n], nil
}

// GenerateBatch continues several prompts together, one reply each, and returns the replies
// and their Stats in the prompts' order. Each prompt is prefilled alone, then the sequences are
// decoded together by a Batch of len(prompts), every sequence picking its tokens with its own
// sampler built from opts (the same seed for each, so sequence i draws what Generate would
// draw for prompt i alone). A sequence that reaches a stop token, its budget or the end of its
// context leaves the batch, and the others go on. onText, when not nil, receives each piece of
// text with the index of its sequence, on the calling goroutine; an error it returns ends that
// sequence only, and GenerateBatch returns it (wrapped, with the index) after the others end.
// A cancelled ctx ends every sequence (Stats.Finish is FinishCancel) and GenerateBatch returns
// the text so far with ctx's error. Each sequence has a cache of opts.MaxContext tokens
// (Batch.NewCache's: float16 unless the model was loaded with another KVType), whose memory is
// returned when GenerateBatch returns.
func (m *Model) GenerateBatch(ctx context.Context, prompts []string, opts ReplyOptions, onText func(seq int, piece string) error) ([]string, []Stats, error) {
	n := len(prompts)
	if n == 0 {
		return nil, nil, errors.New("qwen3: GenerateBatch of no prompts")
	}
	if n > maxChunk {
		return nil, nil, fmt.Errorf("qwen3: GenerateBatch of %d prompts (at most %d)", n, maxChunk)
	}
	maxLen := opts.MaxContext
	if maxLen == 0 {
		maxLen = min(DefaultMaxContext, m.sizes.MaxContext)
	}
	prompt := make([][]int, n)
	for i, p := range prompts {
		ids := m.tok.Encode(p)
		if len(ids) == 0 {
			return nil, nil, fmt.Errorf("qwen3: prompt %d is empty", i)
		}
		if len(ids) > maxLen {
			return nil, nil, fmt.Errorf("qwen3: %w: prompt %d is %d tokens, the context holds %d", ErrContextFull, i, len(ids), maxLen)
		}
		prompt[i] = ids
	}
	batch, err := m.NewBatch(n)
	if err != nil {
		return nil, nil, err
	}
	caches := make([]*Cache, n)
	defer func() {
		for _, c := range caches {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range caches {
		var err error
		if caches[i], err = m.newCache(maxLen, true); err != nil {
			return nil, nil, fmt.Errorf("qwen3: %w", err)
		}
	}
	texts := make([]strings.Builder, n)
	replies := make([]*reply, n)
	stats := make([]Stats, n)
	errs := make([]error, n) // each sequence's own error: its callback's
	logits := make([][]float32, n)
	var active []int // the sequences still generating, in order
	end := func(i int, why Finish, err error) {
		r := replies[i]
		if why != "" {
			r.st.Finish = why
		}
		_, stats[i], errs[i] = r.finish(err)
	}
	var failed error // the engine's error, which ends every sequence
	for i := range n {
		sink := textSink(m.tok, &texts[i], nil)
		if onText != nil {
			sink = textSink(m.tok, &texts[i], func(piece string) error { return onText(i, piece) })
		}
		if replies[i], err = m.newReply(opts, sink); err != nil {
			return nil, nil, err
		}
		replies[i].seq = i
		if failed != nil {
			end(i, FinishError, nil)
			continue
		}
		if logits[i], err = replies[i].prefill(ctx, caches[i], prompt[i], nil); err != nil {
			if err != ctx.Err() {
				failed = fmt.Errorf("qwen3: prompt %d: %w", i, err)
				err = nil
			}
			end(i, FinishError, err)
			continue
		}
		active = append(active, i)
	}
	step := make([]*Cache, 0, n)
	next := make([]int, 0, n)
	for len(active) > 0 {
		if failed != nil {
			for _, i := range active {
				end(i, FinishError, nil)
			}
			break
		}
		if err := ctx.Err(); err != nil {
			for _, i := range active {
				end(i, "", err)
			}
			break
		}
		keep := active[:0]
		step, next = step[:0], next[:0]
		for _, i := range active {
			id, more, err := replies[i].next(logits[i])
			switch {
			case err != nil || !more:
				end(i, "", err)
			case caches[i].Len() == caches[i].MaxLen():
				end(i, FinishContext, nil)
			default:
				keep, step, next = append(keep, i), append(step, caches[i]), append(next, id)
			}
		}
		active = keep
		if len(active) == 0 {
			break
		}
		rows, err := batch.step(step, next)
		if err != nil {
			failed = fmt.Errorf("qwen3: batch step: %w", err)
			continue
		}
		for k, i := range active {
			logits[i] = rows[k]
		}
	}
	out := make([]string, n)
	var all []error
	for i := range n {
		out[i] = texts[i].String()
		if errs[i] != nil && !errors.Is(errs[i], ctx.Err()) {
			all = append(all, fmt.Errorf("qwen3: sequence %d: %w", i, errs[i]))
		}
	}
	if failed != nil {
		all = append(all, failed)
	}
	if err := ctx.Err(); err != nil {
		all = append(all, err)
	}
	return out, stats, errors.Join(all...)
}
