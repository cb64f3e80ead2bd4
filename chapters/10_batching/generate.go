package batching

import (
	"context"
	"errors"
	"fmt"
	"slices"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// PadToken is Qwen3's padding id, <|endoftext|> (generation_config.json's pad_token_id). Any id
// would do: the mask hides padding.
const PadToken = sampling.EndOfText

// Options control one call to Generate.
type Options struct {
	// Settings, MaxNewTokens and StopTokens mean what they mean for chapter 09's Generate, for
	// every sequence: each has its own Sampler built from Settings (same seed), so each draws what
	// it would draw alone, and each stops on its own.
	sampling.GenerateOptions
	Pad  int  // the id written in padding columns (PadToken for Qwen3)
	Side Side // where the padding goes: Left. Right only to watch generation go wrong.
}

// Generate continues every prompt at once, one batched step per new token, and returns each
// prompt's new ids (out[b] for prompts[b]):
//
//	batch  = Pad(prompts, Pad, Side)
//	logits = Prefill(batch)                        one row per sequence
//	repeat: for each sequence still in the batch, pick a token from its row (its own Sampler);
//	        a stop token ends that sequence (not emitted), the budget ends it after emitting;
//	        a finished sequence leaves the batch (Cache.Remove)
//	        logits = Step(the picked tokens of the sequences still in the batch)
//	until no sequence is left
//
// onToken (which may be nil) receives each emitted token with the index of its prompt, in the
// order they are picked. The result for each prompt is what chapter 09's Generate returns for it
// alone: the same stop and budget rules, the stop token not included.
//
// It stops early, returning the ids so far, with ctx's error (checked before every step),
// onToken's error, or an error when a sequence would outgrow the model's context. Invalid
// settings, a non-positive budget, no prompts or an empty prompt are errors before any work.
func Generate(ctx context.Context, m *forward.Model, prompts [][]int, opts Options, onToken func(seq, id int) error) ([][]int, error) {
	if m == nil {
		return nil, errors.New("batching: nil model")
	}
	if opts.MaxNewTokens <= 0 {
		return nil, fmt.Errorf("batching: max new tokens %d must be > 0", opts.MaxNewTokens)
	}
	batch, err := Pad(prompts, opts.Pad, opts.Side)
	if err != nil {
		return nil, err
	}
	g := &generation{
		samplers: make([]*sampling.Sampler, batch.Len()),
		stops:    opts.StopTokens,
		budget:   opts.MaxNewTokens,
		onToken:  onToken,
		out:      make([][]int, batch.Len()),
		alive:    make([]int, batch.Len()),
	}
	for b := range g.samplers {
		if g.samplers[b], err = sampling.NewSampler(opts.Settings); err != nil {
			return nil, fmt.Errorf("batching: %w", err)
		}
		g.alive[b] = b
	}
	if g.stops == nil {
		g.stops = sampling.DefaultStopTokens()
	}
	// The last token is never fed back, so a sequence holds at most width + budget - 1 columns.
	need := batch.Width() + opts.MaxNewTokens - 1
	if need > m.MaxPositions() {
		return nil, fmt.Errorf("batching: %d columns of prompt and %d new tokens exceed the context of %d positions",
			batch.Width(), opts.MaxNewTokens, m.MaxPositions())
	}
	if g.cache, err = New(m, need); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("batching: before the prompts: %w", err)
	}
	logits, err := g.cache.Prefill(batch)
	if err != nil {
		return nil, err
	}
	for step := 0; ; step++ {
		feed, err := g.pick(logits)
		if err != nil {
			return g.out, err
		}
		if g.cache.Len() == 0 {
			return g.out, nil
		}
		if len(feed) != g.cache.Len() {
			return g.out, fmt.Errorf("batching: step %d: %d tokens to feed for the %d sequences still in the batch (each gets its pick; a finished one leaves the batch)",
				step, len(feed), g.cache.Len())
		}
		if err := ctx.Err(); err != nil {
			return g.out, fmt.Errorf("batching: after %d steps: %w", step, err)
		}
		if logits, err = g.cache.Step(feed); err != nil {
			return g.out, fmt.Errorf("batching: step %d: %w", step, err)
		}
	}
}

// generation is the state of one Generate call.
type generation struct {
	cache    *Cache
	samplers []*sampling.Sampler // one per prompt
	stops    []int
	budget   int
	onToken  func(seq, id int) error
	out      [][]int // the new ids of each prompt
	alive    []int   // alive[i]: the prompt that cache sequence i continues
}

// pick chooses the next token of every sequence still in the batch, each from its own row of
// logits (logits[i] belongs to cache sequence i, which continues prompt alive[i]), and returns the
// tokens to feed to the next Step, in cache order. A sequence that draws a stop token finishes
// without emitting it; one whose new token fills its budget finishes after emitting it. A finished
// sequence leaves the batch (leave) and gets nothing fed; the others are unaffected.
func (g *generation) pick(logits [][]float64) ([]int, error) {
	var feed []int
	// exercise: batching.generation.pick — pick each sequence's token; a stop token or the budget ends that sequence alone, and it leaves the batch
	// tests: TestGenerateGolden TestRightPaddingGoesWrong TestSampledBatchEqualsAlone ExampleGenerate
	// difficulty: hard, 35 min
	for i := 0; i < len(g.alive); {
		b := g.alive[i]
		id, err := g.samplers[b].Sample(logits[i])
		if err != nil {
			return nil, fmt.Errorf("batching: prompt %d, new token %d: %w", b, len(g.out[b]), err)
		}
		if slices.Contains(g.stops, id) {
			logits = g.leave(i, logits)
			continue
		}
		g.out[b] = append(g.out[b], id)
		if g.onToken != nil {
			if err := g.onToken(b, id); err != nil {
				return nil, fmt.Errorf("batching: callback for prompt %d, new token %d (id %d): %w", b, len(g.out[b])-1, id, err)
			}
		}
		if len(g.out[b]) == g.budget {
			logits = g.leave(i, logits)
			continue
		}
		feed = append(feed, id)
		i++
	}
	// hint: Walk the sequences still in the batch: each draws from its own row of logits with its
	// own sampler. A stop token or a full budget ends that sequence alone; g.leave takes it out of
	// the batch (and out of logits), so the next sequence then sits at the same index i.
	// hint: For sequence i (prompt b = g.alive[i]): id = Sample(logits[i]); a stop token: leave,
	// not emitted; otherwise emit (g.out[b], g.onToken), then leave if the budget is full, else feed
	// id and move on (i++).
	// hint: The shape:
	//	for i := 0; i < len(g.alive); {
	//		b := g.alive[i]; id, err := g.samplers[b].Sample(logits[i])
	//		if slices.Contains(g.stops, id) { logits = g.leave(i, logits); continue }
	//		... emit, budget ...
	//		feed = append(feed, id); i++
	//	}
	// mistake: stop tokens ignored: a finished sequence goes on emitting up to the budget
	// says: a finished sequence must stop
	//	- if slices.Contains(g.stops, id) {
	//	- logits = g.leave(i, logits)
	//	- continue
	//	- }
	// mistake: the stop token emitted before the sequence stops
	// says: a stop token ends a sequence but is not emitted
	//	- if slices.Contains(g.stops, id) {
	//	+ if slices.Contains(g.stops, id) {
	//	+ 	g.out[b] = append(g.out[b], id)
	// mistake: the first stop token ends every sequence, not only its own
	// says: each sequence stops on its own
	//	- if slices.Contains(g.stops, id) {
	//	- logits = g.leave(i, logits)
	//	- continue
	//	- }
	//	+ if slices.Contains(g.stops, id) {
	//	+ 	for len(g.alive) > 0 {
	//	+ 		logits = g.leave(0, logits)
	//	+ 	}
	//	+ 	return nil, nil
	//	+ }
	// mistake: i advanced past a sequence that left, so the sequence that moved into its place skips its turn
	// says: the next sequence sits at index i
	//	- logits = g.leave(i, logits)
	//	- continue
	//	- }
	//	- g.out[b] = append(g.out[b], id)
	//	+ logits = g.leave(i, logits)
	//	+ i++
	//	+ continue
	//	+ }
	//	+ g.out[b] = append(g.out[b], id)
	// end exercise
	return feed, nil
}

// leave takes cache sequence i out of the batch: out of the cache, out of alive (which maps cache
// sequences to prompts) and out of this step's logits, which it returns.
func (g *generation) leave(i int, logits [][]float64) [][]float64 {
	if err := g.cache.Remove(i); err != nil {
		panic(err) // i indexes alive, which mirrors the cache
	}
	g.alive = slices.Delete(g.alive, i, i+1)
	return slices.Delete(logits, i, i+1)
}
