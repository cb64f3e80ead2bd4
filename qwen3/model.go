package qwen3

import (
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

	q, k, v, o     *Matrix // q_proj qDim x Hidden, k_proj/v_proj kvDim x Hidden, o_proj Hidden x qDim
	gate, up, down *Matrix // gate_proj/up_proj Intermediate x Hidden, down_proj Hidden x Intermediate
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
// and safe to share between goroutines, each generating through its own Session, Batch or Chat
// (each has its own KV cache and buffers); the worker pool serialises their matrix passes.
type Model struct {
	// Config describes the checkpoint, as chapter 01 read it (config.json or GGUF metadata).
	Config    gguf.Config
	Tokenizer *tokenizer.Tokenizer
	Defaults  Defaults
	// Source says what was loaded: "gguf" or "safetensors", and the dominant weight type.
	Source string
	Type   DType

	embed  *Matrix // token_embd: Vocab x Hidden
	head   *Matrix // the LM head, Vocab x Hidden; the same Matrix as embed when tied
	norm   []float32
	layers []layer
	tied   bool

	sizes   sizes // from Config
	pool    *pool
	release func() error
	huge    bool // the weights were read into memory advised for transparent huge pages

	kv    DType // the element type of every session's KV cache: F32 or F16 (WithKVCache)
	exact bool  // the inputs of block-quantized matrices stay float32 (WithExactActivations)
}

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
		for _, w := range []*Matrix{l.q, l.k, l.v, l.o, l.gate, l.up, l.down} {
			n += w.Bytes()
		}
	}
	return n + m.head.Bytes()
}

// KVCache is the element type of the sessions' KV caches: F32 or F16 (see WithKVCache).
func (m *Model) KVCache() DType { return m.kv }

// KVBytesPerToken is the size of one token's keys and values in a session's cache: every layer's
// key and value heads in the KVCache type (Qwen3-0.6B: 229,376 bytes in F32, 114,688 in F16).
// Decoding at depth D reads D times this from the cache per token, besides the weights.
func (m *Model) KVBytesPerToken() int64 {
	return int64(2*m.sizes.Layers*m.sizes.kvDim()) * int64(m.kv.elemBytes())
}

// ExactActivations reports whether the model was loaded WithExactActivations.
func (m *Model) ExactActivations() bool { return m.exact }

// roundsActs reports whether the inputs of the block-quantized matrices are rounded to int16
// blocks (kernels.Act) for their integer kernels: the model has such a matrix and was not loaded
// WithExactActivations. It is the one place that chooses between int16 and float32 inputs:
// sessions allocate Acts only when it is true, and the matrix passes take the float path for a
// quantized matrix whenever they are given no Act.
func (m *Model) roundsActs() bool { return m.quantized() && !m.exact }

// quantized reports whether any weight matrix is block-quantized.
func (m *Model) quantized() bool {
	for _, l := range m.layers {
		for _, w := range []*Matrix{l.q, l.k, l.v, l.o, l.gate, l.up, l.down} {
			if w.Type.quantized() {
				return true
			}
		}
	}
	return m.head.Type.quantized()
}

// Close stops the worker goroutines and unmaps the file. The model must not be used afterwards.
// Close on a nil Model (what Load returns with an error) does nothing.
func (m *Model) Close() error {
	if m == nil {
		return nil
	}
	if m.pool != nil {
		m.pool.close()
		m.pool = nil
	}
	if m.release != nil {
		err := m.release()
		m.release = nil
		return err
	}
	return nil
}
