package qwen3

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// ErrContextFull is returned, wrapped, when a cache has no room left for more tokens.
var ErrContextFull = errors.New("context is full")

// ErrClosed is returned, wrapped, by every call that needs the weights or a cache after
// Model.Close, or a cache after Cache.Close; a run that Model.Close interrupts returns it too.
var ErrClosed = errors.New("closed")

// KVType is the element type of a KV cache: KVFloat32 or KVFloat16, or for a model (WithKVCache)
// KVAuto, the zero value, which lets the engine choose per cache. As text (a command line's flag,
// through flag.TextVar) they are "f32", "f16" and "auto".
type KVType uint8

const (
	// KVAuto (a model's default) lets the engine choose per cache: a cache that Model.NewCache
	// makes holds float32 when it has room for at most DefaultMaxContext tokens, the course's
	// contexts, and float16 when it has room for more; Batch.NewCache's caches, and
	// GenerateBatch's, are float16. The line is drawn by memory. One token's keys and values
	// take 229,376 bytes in float32 and 114,688 in float16 (Qwen3-0.6B: 28 layers, 8 KV heads of
	// 128, a key and a value), so a cache of 4,096 tokens takes 896 MiB in float32, one of
	// 32,768 tokens 7 GiB (3.5 in float16), and decoding D tokens deep reads D times a token's
	// bytes per new token; sixteen sequences of 4,096 tokens in a batch would hold 14 GiB in
	// float32, 7 in float16, the type llama.cpp's caches have by default (common/common.h:
	// cache_type_k, cache_type_v). Up to DefaultMaxContext one sequence keeps float32, and with
	// it the contract that its logits stay within float32 rounding of chapter 07's (the golden
	// tests hold the engine to it); a longer cache, or a batch's, trades that for half the
	// memory and half the bytes read (KVFloat16's rounding). WithKVCache(KVFloat32) or
	// WithKVCache(KVFloat16) fixes the type of every cache. A cache's own type (Cache.Type) is
	// never KVAuto. (TestKVAutoMemory checks these numbers against Qwen3-0.6B's config.)
	KVAuto KVType = iota
	// KVFloat32 keeps every key and value as computed: the engine's logits stay within float32
	// rounding of chapter 07's.
	KVFloat32
	// KVFloat16 rounds each key and value to IEEE half precision (11 significant bits), as
	// llama.cpp's default cache does: half the memory, and half the bytes attention reads per
	// token deep in a context; the attention kernels widen each value as they load it.
	KVFloat16
)

// String is "auto", "f32" or "f16" (or "KVType(n)" for a value that is none of them).
func (t KVType) String() string {
	switch t {
	case KVAuto:
		return "auto"
	case KVFloat32:
		return "f32"
	case KVFloat16:
		return "f16"
	}
	return fmt.Sprintf("KVType(%d)", uint8(t))
}

// MarshalText is the name UnmarshalText reads.
func (t KVType) MarshalText() ([]byte, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads "auto", "f32" or "f16", in any case.
func (t *KVType) UnmarshalText(text []byte) error {
	switch strings.ToLower(strings.TrimSpace(string(text))) {
	case "auto":
		*t = KVAuto
	case "f32":
		*t = KVFloat32
	case "f16":
		*t = KVFloat16
	default:
		return fmt.Errorf("qwen3: KV cache type %q: the engine keeps its cache in f32 or f16, or chooses (auto)", text)
	}
	return nil
}

// check rejects a KVType made by conversion from a number that names no type.
func (t KVType) check() error {
	if t > KVFloat16 {
		return fmt.Errorf("qwen3: KV cache type %d: the engine keeps its cache in f32 or f16, or chooses (auto)", uint8(t))
	}
	return nil
}

// of is the element type of a cache of maxLen tokens for a model whose type is t: t itself, or
// KVAuto's choice (batch: a cache made for a Batch).
func (t KVType) of(maxLen int, batch bool) KVType {
	switch {
	case t != KVAuto:
		return t
	case batch || maxLen > DefaultMaxContext:
		return KVFloat16
	}
	return KVFloat32
}

// elemBytes is the size of one cached value (KVAuto: float32's).
func (t KVType) elemBytes() int {
	if t == KVFloat16 {
		return 2
	}
	return 4
}

// Cache is the KV cache of one sequence: the keys and values of every token run so far, every
// layer's, and the ids of those tokens; Prefill and Step run new tokens through the model after
// them, as chapter 08's Cache does. It is one conversation's state, or one slot of a server: a
// cache can be reset, truncated to a prefix it shares with the next prompt (the keys and values
// of a prefix do not depend on what follows it), and stepped in a Batch with other caches, each
// at its own position.
//
// Its memory is mapped from the operating system outside the Go heap, on Linux, macOS and
// FreeBSD: the pages are committed only as tokens fill them, and Close returns them at once (a
// cache that is never closed returns them when the garbage collector finds it unreachable). The
// exception, on Linux where transparent huge pages are on: a cache of 2 MB to 64 MiB
// (hugeCacheMax; a batch's, sized to prompt and reply) is advised 2 MB pages, each committed whole
// at its first write (for Qwen3-0.6B all of them at the first token), so that a decoding step
// walks a few pages of it, not thousands. A
// Cache is not safe for concurrent use: one goroutine at a time steps it, alone or in a Batch.
type Cache struct {
	m      *Model
	kv     KVType
	maxLen int
	tokens []int // the ids whose keys and values are cached, in order

	// The keys and values per layer, each layer's key/value heads one after another in the
	// layouts of attention.go, in the cache's type: keys and values for float32, keysH and
	// valuesH (half-precision bits) for float16; the other pair is nil. They are views of mem.
	keys, values   [][]float32
	keysH, valuesH [][]uint16
	mem            *mapping

	logits []float32 // the logits of the last Prefill or Step, Vocab values (made at first use)
}

// NewCache returns an empty cache that holds maxLen tokens, in the model's KV type (KVCache; under
// KVAuto float32 up to DefaultMaxContext tokens, float16 past it); 0 means min(DefaultMaxContext,
// the model's context). The memory is mapped now and committed as tokens fill it, so a long
// maxLen costs memory only when used (on Linux a cache of 2 MB to 64 MiB may be committed whole
// at its first token: see Cache).
func (m *Model) NewCache(maxLen int) (*Cache, error) {
	c, err := m.newCache(maxLen, false)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return c, nil
}

// newCache makes a cache of maxLen tokens (0: the default), for a Batch if batch (KVAuto's
// choice).
func (m *Model) newCache(maxLen int, batch bool) (*Cache, error) {
	s := m.sizes
	if maxLen == 0 {
		maxLen = min(DefaultMaxContext, s.MaxContext)
	}
	if maxLen < 1 || maxLen > s.MaxContext {
		return nil, fmt.Errorf("a cache of %d tokens: outside 1..%d (the model's context)", maxLen, s.MaxContext)
	}
	if m.eng.isClosed() {
		return nil, fmt.Errorf("a new cache: the model is %w", ErrClosed)
	}
	kv := m.kv.of(maxLen, batch)
	keyLen, valueLen := s.cacheLens(maxLen)
	size := s.cacheBytes(kv, maxLen)
	mem, err := mapMemory(size, size <= hugeCacheMax)
	if err != nil {
		return nil, fmt.Errorf("a cache of %d tokens (%d bytes): %w", maxLen, size, err)
	}
	c := &Cache{m: m, kv: kv, maxLen: maxLen, tokens: make([]int, 0, maxLen), mem: mem}
	b := mem.data
	take := func(n int) unsafe.Pointer { // the next n values of the mapping
		p := unsafe.Pointer(unsafe.SliceData(b))
		b = b[n*kv.elemBytes():]
		return p
	}
	for range s.Layers {
		if kv == KVFloat16 {
			c.keysH = append(c.keysH, unsafe.Slice((*uint16)(take(keyLen)), keyLen))
			c.valuesH = append(c.valuesH, unsafe.Slice((*uint16)(take(valueLen)), valueLen))
		} else {
			c.keys = append(c.keys, unsafe.Slice((*float32)(take(keyLen)), keyLen))
			c.values = append(c.values, unsafe.Slice((*float32)(take(valueLen)), valueLen))
		}
	}
	// A cache that its owner forgets to close gives its memory back when it is collected. The
	// cleanup holds the mapping, not the cache, so it does not keep the cache alive.
	runtime.AddCleanup(c, func(mem *mapping) { mem.release() }, mem)
	return c, nil
}

// hugeCacheMax is the largest KV cache, in bytes, whose memory is asked to come in transparent huge
// pages (Linux; 2 MB on x86-64; a cache under one huge page is not): 64 MiB, for Qwen3-0.6B a
// cache of up to 288 tokens in float32 or 578 in float16, such as a batch's caches sized to
// prompt and reply. A larger cache is advised against them (MADV_NOHUGEPAGE), so it stays in 4 KB
// pages even where the system's setting is "always".
//
// Why: a cache is laid out layer by layer and head by head (newCache), and each decoding step
// reads a little of every layer's and head's region. Sixteen float16 caches of 193 tokens (a
// 128-token prompt and 64 decoded, scripts/bench's batch) are 89,824 pages of 4 KB, each a TLB
// entry to walk and a boundary where the hardware prefetchers stop, and 176 pages of 2 MB. Why
// only small caches: a huge page is committed whole at its first write, so the first token
// commits all of a cache whose regions are under 2 MB each (at most hugeCacheMax at once), and
// 2 MB of each of the 448 regions of a longer one (896 MiB for the first token of a
// DefaultMaxContext float32 cache), where 4 KB pages commit memory as tokens fill it.
const hugeCacheMax = 64 << 20

// cacheLens is the number of cached values per layer of a cache of maxLen tokens: its keys
// (padded to whole blocks of kernels.AttnLanes tokens) and its values, all key/value heads'.
func (s sizes) cacheLens(maxLen int) (keyLen, valueLen int) {
	return s.KVHeads * keyBlocks(maxLen) * kernels.AttnLanes * s.HeadDim, s.KVHeads * maxLen * s.HeadDim
}

// cacheBytes is the memory of a cache of maxLen tokens of type kv (KVFloat32 or KVFloat16).
func (s sizes) cacheBytes(kv KVType, maxLen int) int {
	keyLen, valueLen := s.cacheLens(maxLen)
	return kv.elemBytes() * (keyLen + valueLen) * s.Layers
}

// Len is the number of tokens in the cache; the next token goes at this position.
func (c *Cache) Len() int { return len(c.tokens) }

// MaxLen is the cache's capacity in tokens.
func (c *Cache) MaxLen() int { return c.maxLen }

// Type is the element type of the cached keys and values: KVFloat32 or KVFloat16.
func (c *Cache) Type() KVType { return c.kv }

// BytesPerToken is the size of one token's keys and values in the cache, every layer's (Qwen3-0.6B:
// 229,376 bytes in float32, 114,688 in float16): decoding at depth D reads D times this from
// the cache per token, besides the weights.
func (c *Cache) BytesPerToken() int64 { return c.m.kvBytes(c.kv) }

// Tokens returns the ids in the cache (the slice is the cache's: do not modify it).
func (c *Cache) Tokens() []int { return c.tokens }

// Reset empties the cache. Its memory stays committed, ready for the next tokens.
func (c *Cache) Reset() { c.tokens = c.tokens[:0] }

// Truncate keeps the first n cached tokens and forgets the rest, as if only they had been run:
// the next token goes to position n. The keys and values of a prefix do not depend on what
// follows it, so a chat, or a server's slot, reuses the prefix its next prompt shares with what
// is cached. n must be in 0..Len().
func (c *Cache) Truncate(n int) error {
	if n < 0 || n > len(c.tokens) {
		return fmt.Errorf("qwen3: truncate a cache of %d tokens to %d: outside 0..%d", len(c.tokens), n, len(c.tokens))
	}
	c.tokens = c.tokens[:n]
	return nil
}

// Close returns the cache's memory to the operating system and empties it; later calls that
// need the cache return an error wrapping ErrClosed. It waits for a forward pass of the model
// in progress, and closing twice does nothing.
func (c *Cache) Close() error {
	e := c.m.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	return c.close()
}

// close releases the memory; the caller holds the engine's lock.
func (c *Cache) close() error {
	if c.mem == nil {
		return nil
	}
	err := c.mem.release()
	c.mem, c.keys, c.values, c.keysH, c.valuesH, c.tokens = nil, nil, nil, nil, nil, nil
	return err
}

// Prefill runs ids through the model after the cached tokens, stores their keys and values, and
// returns the logits that predict the token after the last one (a slice owned by the cache,
// valid until its next Prefill or Step). The prompt goes through in chunks of up to 128 tokens;
// a cancelled ctx stops it between chunks, with the chunks done kept in the cache, and returns
// ctx's error. An error leaves the cache as it was after the last whole chunk.
func (c *Cache) Prefill(ctx context.Context, ids []int) ([]float32, error) {
	logits, err := c.prefill(ctx, ids, nil)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return logits, err
}

// prefill is Prefill with progress (called after each chunk with the tokens done and the
// total, when not nil) and the package's errors without its name in front.
func (c *Cache) prefill(ctx context.Context, ids []int, progress func(done, total int)) ([]float32, error) {
	if len(ids) == 0 {
		return nil, errors.New("prefill of no tokens")
	}
	if err := c.check(ids); err != nil {
		return nil, err
	}
	for start := 0; start < len(ids); start += maxChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+maxChunk, len(ids))
		if err := c.m.eng.runCache(c, ids[start:end], end == len(ids)); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(end, len(ids))
		}
	}
	return c.logits, nil
}

// Step runs one token after the cached ones and returns the logits for the next (owned by the
// cache, valid until its next Prefill or Step).
func (c *Cache) Step(id int) ([]float32, error) {
	logits, err := c.step(id)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return logits, nil
}

func (c *Cache) step(id int) ([]float32, error) {
	one := [1]int{id}
	if err := c.check(one[:]); err != nil {
		return nil, err
	}
	if err := c.m.eng.runCache(c, one[:], true); err != nil {
		return nil, err
	}
	return c.logits, nil
}

// check says whether ids can run after the cached tokens: the cache is open, has room, and
// every id is in the vocabulary.
func (c *Cache) check(ids []int) error {
	if c.mem == nil {
		return fmt.Errorf("the cache is %w", ErrClosed)
	}
	if len(c.tokens)+len(ids) > c.maxLen {
		return fmt.Errorf("%w: %d cached + %d new tokens > %d", ErrContextFull, len(c.tokens), len(ids), c.maxLen)
	}
	for i, id := range ids {
		if id < 0 || id >= c.m.sizes.Vocab {
			return fmt.Errorf("token %d at index %d is outside the vocabulary (0..%d)", id, i, c.m.sizes.Vocab-1)
		}
	}
	return nil
}

// cachedPrefix is the length of the longest common prefix of ids and the cache's tokens,
// leaving at least one token of ids to run (its logits start the reply).
func cachedPrefix(c *Cache, ids []int) int {
	cached := c.Tokens()
	n := 0
	for n < len(ids)-1 && n < len(cached) && ids[n] == cached[n] {
		n++
	}
	return n
}
