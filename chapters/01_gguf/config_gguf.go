package gguf

import (
	"errors"
	"fmt"
	"strconv"
)

// ConfigFromGGUF reads a Config from a GGUF file's metadata (llama.cpp's keys, prefixed by
// general.architecture, "qwen3"): embedding_length, feed_forward_length, block_count,
// attention.head_count(_kv), attention.key_length, context_length, rope.freq_base,
// attention.layer_norm_rms_epsilon. The vocabulary size is the number of tokens in
// tokenizer.ggml.tokens, or token_embd's row count. A GGUF file has no output.weight when the LM
// head is tied, so TieWordEmbeddings is true exactly then. A rope.scaling.type other than "none"
// and an attention.sliding_window are refused, as in config.json.
//
// Problems are *FormatErrors naming the metadata key and its byte offset.
func ConfigFromGGUF(f *File) (Config, error) {
	c, err := configFromGGUF(f)
	return c, inFile(err, f.Path)
}

func configFromGGUF(f *File) (Config, error) {
	arch, err := f.String("general.architecture")
	if err != nil {
		return Config{}, err
	}
	c := Config{ModelType: arch, BOSTokenID: -1, EOSTokenID: -1}
	if arch == "qwen3" {
		c.Architectures = []string{"Qwen3ForCausalLM"}
	}
	// keys maps each config.json key to the metadata key that holds it here.
	keys := map[string]string{
		"hidden_size": ".embedding_length", "intermediate_size": ".feed_forward_length",
		"num_hidden_layers": ".block_count", "num_attention_heads": ".attention.head_count",
		"num_key_value_heads": ".attention.head_count_kv", "max_position_embeddings": ".context_length",
		"head_dim": ".attention.key_length", "rope_theta": ".rope.freq_base",
		"rms_norm_eps": ".attention.layer_norm_rms_epsilon", "rope_type": ".rope.scaling.type",
		"use_sliding_window": ".attention.sliding_window", "vocab_size": "tokenizer.ggml.tokens",
	}
	for k, v := range keys {
		if v[0] == '.' {
			keys[k] = arch + v
		}
	}
	for _, k := range []struct {
		json string
		dst  *int
	}{
		{"hidden_size", &c.HiddenSize}, {"intermediate_size", &c.IntermediateSize},
		{"num_hidden_layers", &c.NumHiddenLayers}, {"num_attention_heads", &c.NumAttentionHeads},
		{"num_key_value_heads", &c.NumKeyValueHeads}, {"max_position_embeddings", &c.MaxPositionEmbeddings},
	} {
		if *k.dst, err = f.Int(keys[k.json]); err != nil {
			return Config{}, err
		}
	}
	if c.HeadDim, err = f.Int(keys["head_dim"]); errors.Is(err, ErrNotFound) && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	} else if err != nil {
		return Config{}, err
	}
	if c.RopeTheta, err = f.Decimal(keys["rope_theta"]); err != nil {
		return Config{}, err
	}
	if c.RMSNormEps, err = f.Decimal(keys["rms_norm_eps"]); err != nil {
		return Config{}, err
	}
	if t, err := f.String(keys["rope_type"]); err == nil && t != "none" {
		c.RopeType = t // llama.cpp writes "none", "linear", "yarn", "longrope"
	}
	if w, err := f.Int(keys["use_sliding_window"]); err == nil && w > 0 {
		c.UseSlidingWindow = true
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
		eachFormatError(err, func(fe *FormatError) {
			fe.Format = "gguf"
			if key, ok := keys[fe.Field]; ok {
				fe.Field = fmt.Sprintf("metadata %q", key)
				if i, ok := f.kvIndex[key]; ok {
					fe.Offset = f.Metadata[i].Offset
				}
			}
		})
		return Config{}, err
	}
	return c, nil
}

// Decimal reads a FLOAT32 or FLOAT64 key as a float64. A FLOAT32 is widened through its shortest
// decimal form, so that the 1e-6 llama.cpp stored as float32 (0.00000099999999747...) reads back
// as config.json's 1e-6, and a sampling temperature of 0.6 as 0.6, not 0.6000000238418579.
func (f *File) Decimal(key string) (float64, error) {
	if v, ok := f.Value(key); ok && v.Type == TypeFloat32 {
		return strconv.ParseFloat(strconv.FormatFloat(float64(v.V.(float32)), 'g', -1, 32), 64)
	}
	return f.Float(key)
}
