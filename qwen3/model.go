package qwen3

import (
	"errors"
	"fmt"
	"slices"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// sizes are the numbers the engine's loops use (engine.go, matmul.go), taken once from the
// model's gguf.Config under short names: a view of it, not a second description.
type sizes struct {
	Hidden, Intermediate, Layers int
	Heads, KVHeads, HeadDim      int
	Vocab, MaxContext            int
	Theta, Eps                   float64
}

func sizesOf(c gguf.Config) sizes {
	return sizes{
		Hidden: c.HiddenSize, Intermediate: c.IntermediateSize, Layers: c.NumHiddenLayers,
		Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim,
		Vocab: c.VocabSize, MaxContext: c.MaxPositionEmbeddings, Theta: c.RopeTheta, Eps: c.RMSNormEps,
	}
}

// qDim and kvDim are the widths of all query heads and of all key (or value) heads.
func (c sizes) qDim() int  { return c.Heads * c.HeadDim }
func (c sizes) kvDim() int { return c.KVHeads * c.HeadDim }

// layer is one decoder block's weights.
type layer struct {
	attnNorm, ffnNorm []float32 // input_layernorm, post_attention_layernorm: Hidden
	qNorm, kNorm      []float32 // q_norm, k_norm: HeadDim

	q, k, v, o     *matrix // q_proj qDim x Hidden, k_proj/v_proj kvDim x Hidden, o_proj Hidden x qDim
	gate, up, down *matrix // gate_proj/up_proj Intermediate x Hidden, down_proj Hidden x Intermediate
}

// Defaults are the sampling settings a checkpoint recommends (generation_config.json, or a GGUF
// file's general.sampling.* keys); zero fields were not given.
type Defaults struct {
	Temperature float64
	TopK        int
	TopP        float64
	MinP        float64
	Stop        []int // ids that end a reply: <|im_end|> and <|endoftext|> for Qwen3
}

// Model is a loaded Qwen3: its configuration, tokenizer and weights. It is read-only once loaded
// and safe to share between goroutines, each generating through its own Cache, Batch or Chat;
// their forward passes take turns (one runs at a time, over all the cores).
type Model struct {
	config   gguf.Config // as chapter 01 read it (config.json or GGUF metadata)
	tok      *tokenizer.Tokenizer
	defaults Defaults
	source   string // "gguf" or "safetensors"
	wtype    DType  // the storage type of the first layer's q_proj: the checkpoint's type

	embed  *matrix // token_embd: Vocab x Hidden
	head   *matrix // the LM head, Vocab x Hidden; the same matrix as embed when tied
	norm   []float32
	layers []layer
	tied   bool

	sizes   sizes // from config
	pool    *pool
	eng     *engine // the forward pass's buffers, the lock and the closed flag
	release func() error
	huge    bool // the weights were read into memory advised for transparent huge pages

	kv    KVType // the element type of NewCache's caches (WithKVCache), or KVAuto
	exact bool   // the inputs of block-quantized matrices stay float32 (WithExactActivations)
}

// Config describes the checkpoint, as chapter 01 read it (config.json or GGUF metadata).
func (m *Model) Config() gguf.Config {
	c := m.config
	c.Architectures = slices.Clone(c.Architectures)
	return c
}

// Tokenizer is the checkpoint's tokenizer (chapter 02): Qwen3's byte-level BPE, its special
// tokens and its chat template. It is safe for concurrent use.
func (m *Model) Tokenizer() *tokenizer.Tokenizer { return m.tok }

// Defaults are the sampling settings and stop tokens the checkpoint recommends.
func (m *Model) Defaults() Defaults {
	d := m.defaults
	d.Stop = slices.Clone(d.Stop)
	return d
}

// Source says what kind of checkpoint was loaded: "gguf" or "safetensors".
func (m *Model) Source() string { return m.source }

// WeightType is how the checkpoint stores its weight matrices (the first layer's q_proj; a
// Q4_K_M file mixes Q4_K and Q6_K).
func (m *Model) WeightType() DType { return m.wtype }

// HugePages reports whether Load read the weights into memory advised for transparent huge
// pages (see WithoutHugePages); the kernel decides, page by page, whether it really backs them so
// (AnonHugePages in /proc/self/smaps_rollup counts what it did).
func (m *Model) HugePages() bool { return m.huge }

// Tied reports whether the LM head is the embedding matrix (Qwen3-0.6B: yes).
func (m *Model) Tied() bool { return m.tied }

// WeightBytes is the number of bytes one decoded token streams from memory: every layer matrix
// once and the LM head once (the embedding row is negligible).
func (m *Model) WeightBytes() int64 {
	var n int64
	for _, l := range m.layers {
		for _, w := range []*matrix{l.q, l.k, l.v, l.o, l.gate, l.up, l.down} {
			n += w.Bytes()
		}
	}
	return n + m.head.Bytes()
}

// KVCache is the element type of the model's KV caches (WithKVCache): KVAuto (the default: the
// engine chooses per cache, see KVAuto), KVFloat32 or KVFloat16.
func (m *Model) KVCache() KVType { return m.kv }

// KVBytesPerToken is the size of one token's keys and values in a cache: every layer's key and
// value heads in the KVCache type, float32 for KVAuto (NewCache's type at the course's contexts;
// Cache.BytesPerToken tells a cache's own). Qwen3-0.6B: 229,376 bytes in f32, 114,688 in f16.
// Decoding at depth D reads D times this from the cache per token, besides the weights.
func (m *Model) KVBytesPerToken() int64 { return m.kvBytes(m.kv) }

// kvBytes is one token's keys and values in a cache of type t.
func (m *Model) kvBytes(t KVType) int64 { return m.sizes.kvBytes(t) }

// kvBytes is one token's keys and values, every layer's, in a cache of type t (KVAuto: float32's).
func (c sizes) kvBytes(t KVType) int64 { return int64(2*c.Layers*c.kvDim()) * int64(t.elemBytes()) }

// ExactActivations reports whether the model was loaded WithExactActivations.
func (m *Model) ExactActivations() bool { return m.exact }

// roundsActs reports whether the inputs of the block-quantized matrices are rounded to int16
// blocks (kernels.Act) for their integer kernels: the model has such a matrix and was not loaded
// WithExactActivations. It is the one place that chooses between int16 and float32 inputs:
// the engine allocates Acts only when it is true, and the matrix passes take the float path for a
// quantized matrix whenever they are given no Act.
func (m *Model) roundsActs() bool { return m.quantized() && !m.exact }

// quantized reports whether any weight matrix is block-quantized.
func (m *Model) quantized() bool {
	for _, l := range m.layers {
		for _, w := range []*matrix{l.q, l.k, l.v, l.o, l.gate, l.up, l.down} {
			if w.Type.quantized() {
				return true
			}
		}
	}
	return m.head.Type.quantized()
}

// Close releases the model: it waits for a forward pass in progress to finish, stops the worker
// goroutines (returning when they have), and unmaps or frees the weights. A run that goes on
// afterwards, on any goroutine, gets an error wrapping ErrClosed at its next forward pass, never
// a read of released memory; so does every later call that needs the weights. Caches made by
// NewCache stay the caller's to close. Close on a nil Model (what Load returns with an error)
// does nothing, and a second Close returns nil.
func (m *Model) Close() error {
	if m == nil || m.eng == nil {
		return nil
	}
	e := m.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var errs []error
	if e.idle != nil {
		errs = append(errs, e.idle.close())
		e.idle = nil
	}
	m.pool.close()
	if m.release != nil {
		errs = append(errs, m.release())
		m.release = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("qwen3: close: %w", err)
	}
	return nil
}
