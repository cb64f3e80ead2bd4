package gguf

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Config is the part of a Hugging Face config.json that a Qwen3 model needs. The json tags are
// the file's keys. For Qwen3-0.6B: hidden 1024, intermediate 3072, 28 layers, 16 query heads,
// 8 KV heads, head_dim 128 (NOT hidden/heads = 64), vocab 151936, rope_theta 1e6, eps 1e-6, tied
// embeddings.
type Config struct {
	Architectures         []string `json:"architectures"`
	ModelType             string   `json:"model_type"`
	HiddenSize            int      `json:"hidden_size"`
	IntermediateSize      int      `json:"intermediate_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	HeadDim               int      `json:"head_dim"`
	VocabSize             int      `json:"vocab_size"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	RopeTheta             float64  `json:"rope_theta"`
	RMSNormEps            float64  `json:"rms_norm_eps"`
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	BOSTokenID            int      `json:"bos_token_id"`
	EOSTokenID            int      `json:"eos_token_id"`
	TorchDType            string   `json:"torch_dtype"`
	AttentionBias         bool     `json:"attention_bias"`
	UseSlidingWindow      bool     `json:"use_sliding_window"`
}

// Qwen3_0_6B is the configuration of Qwen/Qwen3-0.6B, as in its config.json.
func Qwen3_0_6B() Config {
	return Config{
		Architectures: []string{"Qwen3ForCausalLM"}, ModelType: "qwen3",
		HiddenSize: 1024, IntermediateSize: 3072, NumHiddenLayers: 28,
		NumAttentionHeads: 16, NumKeyValueHeads: 8, HeadDim: 128, VocabSize: 151936,
		MaxPositionEmbeddings: 40960, RopeTheta: 1e6, RMSNormEps: 1e-6, TieWordEmbeddings: true,
		BOSTokenID: 151643, EOSTokenID: 151645, TorchDType: "bfloat16",
	}
}

// ReadConfig reads and validates a config.json file.
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("config: %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config: %s: %w", path, err)
	}
	return c, nil
}

// MaxContextLength is the largest max_position_embeddings (GGUF: context_length) a Config accepts.
const MaxContextLength = 1 << 20

// Validate checks that the sizes are positive and consistent: query heads a multiple of KV heads,
// an even head_dim (RoPE rotates pairs), a positive eps and theta. A config.json without head_dim
// gets hidden/heads, as transformers does.
func (c *Config) Validate() error {
	if c.HeadDim == 0 && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize}, {"num_hidden_layers", c.NumHiddenLayers},
		{"num_attention_heads", c.NumAttentionHeads}, {"num_key_value_heads", c.NumKeyValueHeads}, {"head_dim", c.HeadDim},
		{"vocab_size", c.VocabSize}, {"max_position_embeddings", c.MaxPositionEmbeddings}} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("%s is %d, must be positive", f.name, f.v))
		}
	}
	// A file's sizes decide allocations downstream (RoPE tables, caches), so implausible ones are
	// refused here rather than attempted: Qwen3 models use at most 131,072 positions.
	if c.MaxPositionEmbeddings > MaxContextLength {
		errs = append(errs, fmt.Errorf("max_position_embeddings %d exceeds %d", c.MaxPositionEmbeddings, MaxContextLength))
	}
	if c.NumKeyValueHeads > 0 && c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		errs = append(errs, fmt.Errorf("num_attention_heads %d is not a multiple of num_key_value_heads %d", c.NumAttentionHeads, c.NumKeyValueHeads))
	}
	if c.HeadDim%2 != 0 {
		errs = append(errs, fmt.Errorf("head_dim %d is odd; RoPE needs pairs", c.HeadDim))
	}
	if !(c.RMSNormEps > 0) {
		errs = append(errs, fmt.Errorf("rms_norm_eps %v must be positive", c.RMSNormEps))
	}
	if !(c.RopeTheta > 0) {
		errs = append(errs, fmt.Errorf("rope_theta %v must be positive", c.RopeTheta))
	}
	return errors.Join(errs...)
}

// ConfigFromGGUF reads the same configuration from a GGUF file's qwen3.* metadata (llama.cpp keys):
// embedding_length, feed_forward_length, block_count, attention.head_count(_kv), attention.key_length,
// context_length, rope.freq_base, attention.layer_norm_rms_epsilon. The vocabulary size is the
// number of tokens in tokenizer.ggml.tokens, or token_embd's row count. A GGUF file has no
// output.weight when the LM head is tied, so TieWordEmbeddings is true exactly then.
func ConfigFromGGUF(f *File) (Config, error) {
	arch, err := f.String("general.architecture")
	if err != nil {
		return Config{}, err
	}
	c := Config{ModelType: arch}
	if arch == "qwen3" {
		c.Architectures = []string{"Qwen3ForCausalLM"}
	}
	ints := []struct {
		key string
		dst *int
	}{
		{".embedding_length", &c.HiddenSize}, {".feed_forward_length", &c.IntermediateSize},
		{".block_count", &c.NumHiddenLayers}, {".attention.head_count", &c.NumAttentionHeads},
		{".attention.head_count_kv", &c.NumKeyValueHeads}, {".context_length", &c.MaxPositionEmbeddings},
	}
	for _, k := range ints {
		if *k.dst, err = f.Int(arch + k.key); err != nil {
			return Config{}, err
		}
	}
	if c.HeadDim, err = f.Int(arch + ".attention.key_length"); errors.Is(err, ErrNotFound) && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	} else if err != nil {
		return Config{}, err
	}
	if c.RopeTheta, err = decimalFloat(f, arch+".rope.freq_base"); err != nil {
		return Config{}, err
	}
	if c.RMSNormEps, err = decimalFloat(f, arch+".attention.layer_norm_rms_epsilon"); err != nil {
		return Config{}, err
	}
	if toks, err := f.Strings("tokenizer.ggml.tokens"); err == nil {
		c.VocabSize = len(toks)
	} else if t, ok := f.Tensor("token_embd.weight"); ok && len(t.Dims) == 2 {
		c.VocabSize = int(t.Dims[1])
	}
	if id, err := f.Int("tokenizer.ggml.bos_token_id"); err == nil {
		c.BOSTokenID = id
	}
	if id, err := f.Int("tokenizer.ggml.eos_token_id"); err == nil {
		c.EOSTokenID = id
	}
	_, hasOutput := f.Tensor("output.weight")
	c.TieWordEmbeddings = !hasOutput
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("gguf: %s metadata: %w", arch, err)
	}
	return c, nil
}

// decimalFloat reads a FLOAT32 or FLOAT64 key. A FLOAT32 is widened through its shortest decimal
// form, so the 1e-6 that llama.cpp stored as float32 (0.00000099999999747...) comes back as the
// 1e-6 of config.json.
func decimalFloat(f *File, key string) (float64, error) {
	if v, ok := f.Value(key); ok && v.Type == TypeFloat32 {
		return strconv.ParseFloat(strconv.FormatFloat(float64(v.V.(float32)), 'g', -1, 32), 64)
	}
	return f.Float(key)
}
