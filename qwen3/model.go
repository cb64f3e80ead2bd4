package qwen3

import (
	"fmt"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Config is the shape of a Qwen3 model. For Qwen3-0.6B: Hidden 1024, Intermediate 3072, Layers 28,
// Heads 16, KVHeads 8, HeadDim 128 (queries are 2048 wide, not 1024), Vocab 151936, MaxContext 40960,
// Theta 1e6, Eps 1e-6.
type Config struct {
	Hidden, Intermediate, Layers int
	Heads, KVHeads, HeadDim      int
	Vocab, MaxContext            int
	Theta, Eps                   float64
}

// qDim and kvDim are the widths of all query heads and of all key (or value) heads.
func (c Config) qDim() int  { return c.Heads * c.HeadDim }
func (c Config) kvDim() int { return c.KVHeads * c.HeadDim }

func (c Config) validate() error {
	switch {
	case c.Hidden <= 0 || c.Intermediate <= 0 || c.Layers <= 0 || c.Vocab <= 0 || c.MaxContext <= 0:
		return fmt.Errorf("qwen3: config has a non-positive size: %+v", c)
	case c.Heads <= 0 || c.KVHeads <= 0 || c.Heads%c.KVHeads != 0:
		return fmt.Errorf("qwen3: %d query heads are not a multiple of %d key/value heads", c.Heads, c.KVHeads)
	case c.HeadDim <= 0 || c.HeadDim%2 != 0:
		return fmt.Errorf("qwen3: head_dim %d must be positive and even", c.HeadDim)
	case !(c.Theta > 0) || !(c.Eps > 0):
		return fmt.Errorf("qwen3: rope theta %v and eps %v must be positive", c.Theta, c.Eps)
	}
	return nil
}

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

// Model is a loaded Qwen3: its configuration, tokenizer and weights. It is safe to use from several
// goroutines only through separate Sessions (each has its own KV cache and buffers).
type Model struct {
	Config    Config
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

	pool    *pool
	release func() error
}

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
