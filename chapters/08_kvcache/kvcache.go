package kvcache

import (
	"fmt"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/mat"
)

// Cache holds the keys and values of every token seen so far, for every layer, and runs the model
// on new tokens only. It belongs to one sequence; it is not safe for concurrent use.
type Cache struct {
	m      *forward.Model
	maxLen int // positions the cache may hold: at most the model's max_position_embeddings
	kvw    int // KVHeads*HeadDim: the width of one cached key (or value) row

	n int         // tokens cached: the next token sits at position n
	k [][]float64 // per layer, n rows of kvw keys (after QK-norm and RoPE), row-major
	v [][]float64 // per layer, n rows of kvw values

	projected int // rows passed through attention.Project, summed over layers (see ProjectedRows)
}

// New returns an empty cache for model m that can hold up to maxLen tokens, one sequence's
// context. maxLen must be between 1 and the model's max_position_embeddings (positions beyond it
// have no RoPE angle the model was trained with).
//
// The cache is sized from the configuration: per layer, maxLen x (KVHeads*HeadDim) keys and as
// many values (Bytes(cfg, maxLen, 8) in all). Memory is taken as tokens arrive, not up front, so
// a cache for Qwen3-0.6B's whole 40960-token context costs nothing until it is used.
func New(m *forward.Model, maxLen int) (*Cache, error) {
	if m == nil {
		return nil, fmt.Errorf("kvcache: nil model")
	}
	if maxLen <= 0 || maxLen > m.MaxPositions() {
		return nil, fmt.Errorf("kvcache: cache length %d outside 1..%d (the model's max_position_embeddings)", maxLen, m.MaxPositions())
	}
	layers := len(m.Layers)
	ac := m.Attention()
	return &Cache{
		m: m, maxLen: maxLen, kvw: ac.KVHeads * ac.HeadDim,
		k: make([][]float64, layers), v: make([][]float64, layers),
	}, nil
}

// Bytes is the memory a KV cache of tokens positions takes for configuration cfg when each value
// is bytesPerValue bytes (8 for this chapter's float64, 4 for float32, 2 for BF16):
//
//	layers * 2 (K and V) * KVHeads * HeadDim * bytesPerValue * tokens
//
// For Qwen3-0.6B in float32 that is 28*2*8*128*4 = 229,376 bytes (224 KiB) per token, 9.4 GB for
// the whole 40960-token context (half that in BF16). Grouped-query attention is what keeps it that small: with a K and V for
// each of the 16 query heads it would be twice as much.
func Bytes(cfg gguf.Config, tokens, bytesPerValue int) int64 {
	// exercise: kvcache.Bytes — keys and values of every layer, KV head and head_dim entry
	// tests: TestBytes ExampleBytes
	// difficulty: easy, 5 min
	perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)
	return perToken * int64(tokens)
	// hint: For every token, every layer keeps one key row and one value row, and a row is as wide
	// as the KV heads, not the query heads and not the hidden size.
	// hint: bytes = layers * 2 * KVHeads * HeadDim * bytesPerValue * tokens (config names:
	// NumHiddenLayers, NumKeyValueHeads, HeadDim). Use int64: 40960 tokens overflow an int32.
	// hint: Two lines:
	//	perToken := int64(cfg.NumHiddenLayers) * 2 * int64(...) * int64(...) * int64(bytesPerValue)
	//	return perToken * int64(tokens)
	// mistake: a key and a value for every query head, as if there were no grouped-query attention
	// says: each of the 16 query heads
	//	- perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)
	//	+ perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumAttentionHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)
	// mistake: the keys counted, the values forgotten
	// says: the values are cached as well as the keys
	//	- perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)
	//	+ perToken := int64(cfg.NumHiddenLayers) * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)
	// mistake: the hidden size as the width of a cached row
	// says: the hidden size is not in it
	//	- perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)
	//	+ perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.HiddenSize) * int64(bytesPerValue)
	// end exercise
}

// Len is the number of cached tokens, which is also the position of the next token.
func (c *Cache) Len() int { return c.n }

// MaxLen is the number of tokens the cache may hold.
func (c *Cache) MaxLen() int { return c.maxLen }

// Model returns the model the cache runs.
func (c *Cache) Model() *forward.Model { return c.m }

// ProjectedRows counts the token rows that went through attention.Project since New, summed over
// the layers. A cached decode step projects only the new token, so each Step adds exactly
// num_hidden_layers, whatever the position; recomputing the prefix would add layers * (Len()+1).
func (c *Cache) ProjectedRows() int { return c.projected }

// Reset empties the cache for a new sequence, keeping its memory.
func (c *Cache) Reset() {
	if err := c.Truncate(0); err != nil {
		panic(err) // Truncate(0) cannot fail
	}
}

// Truncate forgets every token after the first n, as if only ids[0..n-1] had been fed: the next
// token goes to position n. Keys and values do not depend on later tokens, so the first n rows
// stay valid. n must be between 0 and Len().
func (c *Cache) Truncate(n int) error {
	if n < 0 || n > c.n {
		return fmt.Errorf("kvcache: truncate to %d tokens, the cache holds %d", n, c.n)
	}
	for l := range c.k {
		c.k[l] = c.k[l][:n*c.kvw]
		c.v[l] = c.v[l][:n*c.kvw]
	}
	c.n = n
	return nil
}

// Prefill runs the model on a chunk of tokens at positions Len() .. Len()+len(ids)-1 (a whole
// prompt on an empty cache, or more tokens after earlier ones), stores their keys and values, and
// returns the logits of the last one: the scores of the token that follows. The result is a new
// slice of vocab values. An empty chunk, an id outside the vocabulary or a chunk that does not fit
// in the cache is an error, and leaves the cache as it was.
func (c *Cache) Prefill(ids []int) ([]float64, error) {
	x, err := c.run(ids)
	if err != nil {
		return nil, err
	}
	seq, hidden := x.Dims()
	_, logits := c.m.Logits(x.Slice(seq-1, seq, 0, hidden).(*mat.Dense))
	return logits.RawRowView(0), nil
}

// Step feeds one token at position Len() and returns the logits of the next one: the decode step
// of generation. Its cost does not grow with the prefix beyond the attention over the cached keys
// (one query row against Len()+1 keys). Running past MaxLen is an error, not a panic.
func (c *Cache) Step(id int) ([]float64, error) { return c.Prefill([]int{id}) }

// run pushes ids through every layer, reading and extending the cache, and returns the last
// layer's output (len(ids) x hidden) before the final norm.
func (c *Cache) run(ids []int) (*mat.Dense, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("kvcache: no tokens to feed")
	}
	if c.n+len(ids) > c.maxLen {
		return nil, fmt.Errorf("kvcache: %d new tokens after %d cached exceed the context of %d positions", len(ids), c.n, c.maxLen)
	}
	x, err := c.m.Embed(ids)
	if err != nil {
		return nil, fmt.Errorf("kvcache: %w", err)
	}
	// exercise: kvcache.Cache.run — every layer with cached attention, then count the new tokens
	// tests: TestMatchesRecompute TestGolden TestChunks TestMemoryWithinBytes ExampleCache_Step
	// difficulty: medium, 25 min
	for l := range c.m.Layers {
		x = c.m.Layers[l].Forward(x, c.m.Config.RMSNormEps, func(normed *mat.Dense) *mat.Dense {
			return c.attend(l, normed)
		})
	}
	c.n += len(ids)
	// hint: Chapter 07's Layer.Forward takes the attention sub-block as a function: give each layer
	// one that attends through the cache (c.attend, for that layer). The new tokens count once, when
	// every layer has seen them.
	// hint: for each layer l: x = Layers[l].Forward(x, eps, func(normed) { return c.attend(l, normed) });
	// then Len() grows by len(ids): every layer of the chunk uses the same positions.
	// hint: The shape:
	//	for l := range c.m.Layers {
	//		x = c.m.Layers[l].Forward(x, c.m.Config.RMSNormEps, func(normed *mat.Dense) *mat.Dense { ... })
	//	}
	//	c.n += ...
	// mistake: Len() never advanced, so every token is placed at position 0
	// says: Len() counts each token once
	//	- c.n += len(ids)
	// mistake: Len() advanced after each layer, so the next layers see the chunk at later positions
	// says: after the last layer
	//	- return c.attend(l, normed)
	//	- })
	//	- }
	//	- c.n += len(ids)
	//	+ 	return c.attend(l, normed)
	//	+ })
	//	+ c.n += len(ids)
	//	+ }
	//	+ c.n -= len(ids) * (len(c.m.Layers) - 1)
	// mistake: every layer reads and fills layer 0's cache
	// says: each layer l reads and fills its own c.k[l]
	//	- return c.attend(l, normed)
	//	+ return c.attend(0, normed)
	// end exercise
	return x, nil
}

// attend is layer l's attention sub-block with the cache. The new rows (normed: seq x hidden)
// sit at positions Len() .. Len()+seq-1:
//
//	q, k, v = attention.Project(normed, startPos = Len())    only the new rows
//	K, V    = cached keys and values with k, v appended      (Len()+seq) x KVHeads*HeadDim
//	ctx     = attention.Attend(q, K, V, past = Len())        new queries against every key so far
//	out     = ctx * O^T                                      seq x hidden
//
// It does not advance Len(): every layer of the chunk uses the same positions; run advances it
// after the last layer.
func (c *Cache) attend(l int, normed *mat.Dense) *mat.Dense {
	ac := c.m.Attention()
	w := &c.m.Layers[l].Attn
	seq, _ := normed.Dims()
	c.projected += seq
	if held := len(c.k[l]) / c.kvw; held != c.n {
		panic(fmt.Sprintf("kvcache: layer %d holds %d cached tokens but Len() is %d: each layer l reads and fills its own c.k[l], c.v[l], "+
			"and Len() counts each token once, after the last layer", l, held, c.n))
	}
	var ctx *mat.Dense
	// exercise: kvcache.Cache.attend — project the new rows at their positions, append k and v, attend over the cache
	// tests: TestCachedKeysAtTheirPositions TestAttendMatchesChapter05
	// difficulty: hard, 35 min
	q, k, v := attention.Project(ac, w, c.m.RoPE(), normed, c.n)
	c.k[l] = c.appendRows(c.k[l], k)
	c.v[l] = c.appendRows(c.v[l], v)
	total := c.n + seq
	keys := mat.NewDense(total, c.kvw, c.k[l])
	values := mat.NewDense(total, c.kvw, c.v[l])
	ctx, _ = attention.Attend(ac, q, keys, values, c.n)
	// hint: Chapter 05 does all the work: project only the new rows, at the positions they have in
	// the sequence; add their keys and values to this layer's cache; let the new queries attend
	// over every key cached so far.
	// hint: q, k, v = attention.Project(..., normed, startPos = c.n); c.k[l], c.v[l] grow by k, v
	// (c.appendRows); keys and values are (c.n + seq) x c.kvw matrices over them;
	// ctx = attention.Attend(q, keys, values, past = c.n).
	// hint: The shape:
	//	q, k, v := attention.Project(ac, w, c.m.RoPE(), normed, ...)
	//	c.k[l] = c.appendRows(c.k[l], k)   // and c.v[l]
	//	keys := mat.NewDense(c.n+seq, c.kvw, c.k[l])   // and values
	//	ctx, _ = attention.Attend(ac, q, keys, values, ...)
	// mistake: the new rows rotated as if they were at position 0
	// says: rotated to position 0
	//	- q, k, v := attention.Project(ac, w, c.m.RoPE(), normed, c.n)
	//	+ q, k, v := attention.Project(ac, w, c.m.RoPE(), normed, 0)
	// mistake: attention over the new rows only, the cache stored but never read
	// says: stored but never read
	//	- total := c.n + seq
	//	- keys := mat.NewDense(total, c.kvw, c.k[l])
	//	- values := mat.NewDense(total, c.kvw, c.v[l])
	//	- ctx, _ = attention.Attend(ac, q, keys, values, c.n)
	//	+ ctx, _ = attention.Attend(ac, q, k, v, 0)
	// mistake: past = 0, so the mask treats the new rows as the sequence's first tokens
	// says: that is attention with past = 0
	//	- ctx, _ = attention.Attend(ac, q, keys, values, c.n)
	//	+ ctx, _ = attention.Attend(ac, q, keys, values, 0)
	// mistake: the new rows one position too far, at Len()+1 ..., a uniform shift the scores cannot see
	// says: rotated to position 1
	//	- q, k, v := attention.Project(ac, w, c.m.RoPE(), normed, c.n)
	//	+ q, k, v := attention.Project(ac, w, c.m.RoPE(), normed, c.n+1)
	// end exercise
	out := mat.NewDense(seq, ac.Hidden, nil)
	out.Mul(ctx, w.O.T())
	return out
}

// appendRows appends the rows of a (r x kvw) to buf, growing its capacity by doubling but never
// beyond maxLen rows, so a cache never holds more than it may need.
func (c *Cache) appendRows(buf []float64, a *mat.Dense) []float64 {
	r, _ := a.Dims()
	need := len(buf) + r*c.kvw
	if need > cap(buf) {
		newCap := max(2*cap(buf), need, 16*c.kvw)
		newCap = min(newCap, c.maxLen*c.kvw)
		grown := make([]float64, len(buf), newCap)
		copy(grown, buf)
		buf = grown
	}
	for i := 0; i < r; i++ {
		buf = append(buf, a.RawRowView(i)...)
	}
	return buf
}

// MemoryBytes is the memory the cache holds now (float64 values, allocated capacity included).
func (c *Cache) MemoryBytes() int64 {
	var n int64
	for l := range c.k {
		n += int64(cap(c.k[l])+cap(c.v[l])) * 8
	}
	return n
}
