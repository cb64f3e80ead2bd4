package qwen3

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// Batched decoding: chapter 10's lesson in the engine.
//
// Decoding one token streams every weight of the model from memory to compute a single row of
// activations; the arithmetic waits for the memory. A Batch decodes one token of each of several
// sessions in one forward pass: every matrix pass serves all of them, so a weight read from
// memory once makes B tokens. The batched kernels (kernels.Dot*RowsN) go further: they decode
// each block of weights once, into registers, and multiply it with eight, four or two tokens'
// inputs, so the arithmetic per token shrinks too (decoding the 4- and 6-bit types is half of a
// dot product's work). Attention stays per sequence: each token attends to its own session's
// cache at its own position, so nothing needs padding or a padding mask (chapter 10 pads because
// its cache is one rectangle; here every session keeps its own).

// Batch steps several sessions of one model together. A Batch is not safe for concurrent use,
// and neither are the sessions while it steps them.
type Batch struct {
	s    *Session    // the buffers of a chunk of up to size tokens; its own cache is unused
	out  [][]float32 // Step's result, rows of s.batchLogits
	seen map[*Session]bool
	size int
}

// NewBatch returns a Batch that steps up to size sessions (1..128) at a time.
func (m *Model) NewBatch(size int) (*Batch, error) {
	if size < 1 || size > maxChunk {
		return nil, fmt.Errorf("qwen3: batch size %d outside 1..%d", size, maxChunk)
	}
	s, err := m.NewSession(1)
	if err != nil {
		return nil, err
	}
	c := s.c
	s.batch = true
	s.finals = make([]float32, size*c.Hidden)
	s.batchLogits = make([]float32, size*c.Vocab)
	if m.roundsActs() {
		s.finalsAct = kernels.NewAct(size * c.Hidden)
	}
	b := &Batch{s: s, size: size, out: make([][]float32, size), seen: make(map[*Session]bool, size)}
	for i := range b.out {
		b.out[i] = s.batchLogits[i*c.Vocab : (i+1)*c.Vocab]
	}
	return b, nil
}

// Size is the most sessions one Step takes.
func (b *Batch) Size() int { return b.size }

// Step runs ids[i] after the cached tokens of sessions[i], for every i at once, and returns the
// logits that predict each session's next token: logits[i] for sessions[i], owned by the batch
// and valid until its next Step. Each session must have room for one more token and may appear
// only once. The caches and logits are exactly, bit for bit, those of Session.Step(ids[i]) on
// each session: the batched kernels round each token's input to int16 as Step does and do, lane
// by lane, Step's float operations in Step's order; only the decoding of the weights is shared.
func (b *Batch) Step(sessions []*Session, ids []int) ([][]float32, error) {
	n := len(sessions)
	if n == 0 || n > b.size {
		return nil, fmt.Errorf("qwen3: batch step of %d sessions (the batch takes 1..%d)", n, b.size)
	}
	if len(ids) != n {
		return nil, fmt.Errorf("qwen3: batch step of %d sessions with %d ids", n, len(ids))
	}
	clear(b.seen)
	for i, s := range sessions {
		switch {
		case s == nil:
			return nil, fmt.Errorf("qwen3: batch step: session %d is nil", i)
		case s.m != b.s.m:
			return nil, fmt.Errorf("qwen3: batch step: session %d belongs to another model", i)
		case b.seen[s]:
			return nil, fmt.Errorf("qwen3: batch step: session %d appears twice", i)
		}
		b.seen[s] = true
		if err := s.check(ids[i : i+1]); err != nil {
			return nil, fmt.Errorf("qwen3: batch step: session %d: %w", i, err)
		}
	}
	bs := b.s
	for i, s := range sessions {
		bs.owner[i], bs.posOf[i] = s, s.Len()
	}
	bs.forward(ids, true)
	clear(bs.owner[:n]) // the batch keeps no session alive
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
// the text so far with ctx's error.
func (m *Model) GenerateBatch(ctx context.Context, prompts []string, opts Options, onText func(seq int, piece string) error) ([]string, []Stats, error) {
	n := len(prompts)
	if n == 0 {
		return nil, nil, errors.New("qwen3: GenerateBatch of no prompts")
	}
	if n > maxChunk {
		return nil, nil, fmt.Errorf("qwen3: GenerateBatch of %d prompts (at most %d)", n, maxChunk)
	}
	sessions := make([]*Session, n)
	prompt := make([][]int, n)
	for i, p := range prompts {
		s, err := m.NewSession(opts.MaxContext)
		if err != nil {
			return nil, nil, err
		}
		ids := m.Tokenizer.Encode(p)
		if len(ids) == 0 {
			return nil, nil, fmt.Errorf("qwen3: prompt %d is empty", i)
		}
		if len(ids) > s.MaxLen() {
			return nil, nil, fmt.Errorf("%w: prompt %d is %d tokens, the context holds %d", ErrContextFull, i, len(ids), s.MaxLen())
		}
		sessions[i], prompt[i] = s, ids
	}
	batch, err := m.NewBatch(n)
	if err != nil {
		return nil, nil, err
	}
	texts := make([]strings.Builder, n)
	replies := make([]*reply, n)
	stats := make([]Stats, n)
	errs := make([]error, n)
	logits := make([][]float32, n)
	var active []int // the sequences still generating, in order
	for i := range n {
		sink := textSink(m.Tokenizer, &texts[i], nil)
		if onText != nil {
			sink = textSink(m.Tokenizer, &texts[i], func(piece string) error { return onText(i, piece) })
		}
		if replies[i], err = m.newReply(opts, sink); err != nil {
			return nil, nil, err
		}
		if logits[i], err = replies[i].prefill(ctx, sessions[i], prompt[i], nil); err != nil {
			_, stats[i], errs[i] = replies[i].finish(err)
			continue
		}
		active = append(active, i)
	}
	end := func(i int, why Finish, err error) {
		r := replies[i]
		if why != "" {
			r.st.Finish = why
		}
		_, stats[i], errs[i] = r.finish(err)
	}
	step := make([]*Session, 0, n)
	next := make([]int, 0, n)
	for len(active) > 0 {
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
			case sessions[i].Len() == sessions[i].MaxLen():
				end(i, FinishContext, nil)
			default:
				keep, step, next = append(keep, i), append(step, sessions[i]), append(next, id)
			}
		}
		active = keep
		if len(active) == 0 {
			break
		}
		rows, err := batch.Step(step, next)
		if err != nil {
			for _, i := range active {
				end(i, "", err)
			}
			break
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
	if err := ctx.Err(); err != nil {
		all = append(all, err)
	}
	return out, stats, errors.Join(all...)
}
