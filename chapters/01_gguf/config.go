package gguf

import (
	"errors"
	"fmt"
)

// Config describes a Qwen3 checkpoint: its sizes, its RoPE and norm constants, and how its LM head
// is stored. It is the one description of a model in the course: chapter 07 and the qwen3 engine
// both take it as it is (chapter 05 keeps a small view of it, attention.Config).
//
// Both file kinds fill it: ReadConfig reads a Hugging Face config.json (the hub's form with a
// top-level rope_theta, and transformers 5's with rope_parameters), ConfigFromGGUF reads a GGUF
// file's qwen3.* metadata. The json tags are config.json's keys. For Qwen3-0.6B: hidden 1024,
// intermediate 3072, 28 layers, 16 query heads, 8 KV heads, head_dim 128 (NOT hidden/heads = 64),
// vocab 151936, rope_theta 1e6, eps 1e-6, tied embeddings.
type Config struct {
	Architectures         []string `json:"architectures"` // ["Qwen3ForCausalLM"]
	ModelType             string   `json:"model_type"`    // "qwen3"
	HiddenSize            int      `json:"hidden_size"`
	IntermediateSize      int      `json:"intermediate_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	HeadDim               int      `json:"head_dim"`
	VocabSize             int      `json:"vocab_size"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	RopeTheta             float64  `json:"rope_theta"`   // transformers 5 writes it as rope_parameters.rope_theta
	RMSNormEps            float64  `json:"rms_norm_eps"` // RMSNorm and QK-norm epsilon
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	BOSTokenID            int      `json:"bos_token_id"` // -1 when the file gives none (transformers 5 writes null)
	EOSTokenID            int      `json:"eos_token_id"` // -1 when none; the first one when the file lists several
	DType                 string   `json:"dtype"`        // "bfloat16"; older files call it torch_dtype; "" from GGUF
	AttentionBias         bool     `json:"attention_bias"`
	UseSlidingWindow      bool     `json:"use_sliding_window"`
	// RopeType is the RoPE variant: "default" (Validate fills it in when empty) is the only one
	// the course implements; "yarn", "linear", "dynamic", "llama3", ... are refused, not run as default.
	RopeType string `json:"-"`
}

// Qwen3_0_6B is the configuration of Qwen/Qwen3-0.6B, as in its config.json.
func Qwen3_0_6B() Config {
	return Config{
		Architectures: []string{"Qwen3ForCausalLM"}, ModelType: "qwen3",
		HiddenSize: 1024, IntermediateSize: 3072, NumHiddenLayers: 28,
		NumAttentionHeads: 16, NumKeyValueHeads: 8, HeadDim: 128, VocabSize: 151936,
		MaxPositionEmbeddings: 40960, RopeTheta: 1e6, RMSNormEps: 1e-6, TieWordEmbeddings: true,
		BOSTokenID: 151643, EOSTokenID: 151645, DType: "bfloat16", RopeType: "default",
	}
}

// MaxContextLength is the largest max_position_embeddings (GGUF: context_length) a Config accepts.
const MaxContextLength = 1 << 20

// Validate checks that the sizes are positive and consistent (query heads a multiple of KV heads,
// an even head_dim since RoPE rotates pairs, a positive eps and theta) and that the model is one
// the course can run exactly: default RoPE, no sliding window, no attention biases. A config
// without head_dim gets hidden/heads, as transformers does, and one without a RoPE type "default".
//
// Every problem is a *FormatError whose Field is the config.json key; ReadConfig and ConfigFromGGUF
// add the file, the byte offset, and (for GGUF) the metadata key. All problems are returned, joined.
func (c *Config) Validate() error {
	if c.HeadDim == 0 && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	if c.RopeType == "" {
		c.RopeType = "default"
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FormatError{Format: "config", Field: field, Offset: -1, Msg: fmt.Sprintf(format, args...)})
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize}, {"num_hidden_layers", c.NumHiddenLayers},
		{"num_attention_heads", c.NumAttentionHeads}, {"num_key_value_heads", c.NumKeyValueHeads}, {"head_dim", c.HeadDim},
		{"vocab_size", c.VocabSize}, {"max_position_embeddings", c.MaxPositionEmbeddings}} {
		if f.v <= 0 {
			bad(f.name, "%d must be positive", f.v)
		}
	}
	// A file's sizes decide allocations downstream (RoPE tables, caches), so implausible ones are
	// refused here rather than attempted: Qwen3 models use at most 131,072 positions.
	if c.MaxPositionEmbeddings > MaxContextLength {
		bad("max_position_embeddings", "%d exceeds %d", c.MaxPositionEmbeddings, MaxContextLength)
	}
	if c.NumKeyValueHeads > 0 && c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		bad("num_attention_heads", "%d is not a multiple of num_key_value_heads %d", c.NumAttentionHeads, c.NumKeyValueHeads)
	}
	if c.HeadDim%2 != 0 {
		bad("head_dim", "%d is odd; RoPE needs pairs", c.HeadDim)
	}
	if !(c.RMSNormEps > 0) {
		bad("rms_norm_eps", "%v must be positive", c.RMSNormEps)
	}
	if !(c.RopeTheta > 0) {
		bad("rope_theta", "%v must be positive", c.RopeTheta)
	}
	// What the course does not implement is refused: running it as the default would give
	// plausible but wrong numbers.
	if c.RopeType != "default" {
		bad("rope_type", "%q is not supported: the course implements only the default RoPE "+
			"(remove the rope scaling to run the model at its original context)", c.RopeType)
	}
	if c.UseSlidingWindow {
		bad("use_sliding_window", "true is not supported: the course implements only full causal attention in every layer")
	}
	if c.AttentionBias {
		bad("attention_bias", "true is not supported: Qwen3's projections have no biases, and the course reads none")
	}
	return errors.Join(errs...)
}
