package gguf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// hubConfig is Qwen/Qwen3-0.6B's config.json as the hub serves it (written by transformers 4.51):
// a top-level rope_theta, rope_scaling null, torch_dtype.
const hubConfig = `{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 1024,
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "max_position_embeddings": 40960,
  "max_window_layers": 28,
  "model_type": "qwen3",
  "num_attention_heads": 16,
  "num_hidden_layers": 28,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`

// v5Config is the same model as transformers 5.23's Qwen3Config.to_json_string writes it:
// rope_parameters instead of rope_theta, dtype instead of torch_dtype, and layer_types.
func v5Config() string {
	layers := strings.TrimSuffix(strings.Repeat(`"full_attention", `, 28), ", ")
	return `{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "bos_token_id": 151643,
  "dtype": "bfloat16",
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 1024,
  "intermediate_size": 3072,
  "layer_types": [` + layers + `],
  "max_position_embeddings": 40960,
  "max_window_layers": 28,
  "model_type": "qwen3",
  "num_attention_heads": 16,
  "num_hidden_layers": 28,
  "num_key_value_heads": 8,
  "pad_token_id": null,
  "rms_norm_eps": 1e-06,
  "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"},
  "sliding_window": null,
  "tie_word_embeddings": true,
  "transformers_version": "5.23.0",
  "use_sliding_window": false,
  "vocab_size": 151936
}`
}

// TestConfigBothForms: the hub's config.json and transformers 5's describe Qwen3-0.6B alike.
func TestConfigBothForms(t *testing.T) {
	for name, text := range map[string]string{"hub (transformers 4)": hubConfig, "transformers 5": v5Config()} {
		c, err := ParseConfig([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := Qwen3_0_6B(); !reflect.DeepEqual(c, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, c, want)
		}
	}
	// transformers 5 writes null for token ids it was not given; a list names several.
	c, err := ParseConfig([]byte(strings.Replace(strings.Replace(v5Config(), `"bos_token_id": 151643`, `"bos_token_id": null`, 1),
		`"eos_token_id": 151645`, `"eos_token_id": [151645, 151643]`, 1)))
	if err != nil || c.BOSTokenID != -1 || c.EOSTokenID != 151645 {
		t.Errorf("null bos, listed eos: bos %d eos %d, %v", c.BOSTokenID, c.EOSTokenID, err)
	}
}

// TestConfigRefusals: what the course does not implement is refused with the key and its value,
// in both forms, never run as the default.
func TestConfigRefusals(t *testing.T) {
	v5 := v5Config()
	swap := func(text, old, repl string) string {
		if !strings.Contains(text, old) {
			t.Fatalf("%q is not in the config", old)
		}
		return strings.Replace(text, old, repl, 1)
	}
	for _, c := range []struct {
		name, text, field, msg string
	}{
		{"yarn (transformers 5)", swap(v5, `"rope_type": "default"}`, `"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}`),
			"rope_parameters.rope_type", `"yarn" is not supported`},
		{"linear (transformers 5)", swap(v5, `"rope_type": "default"`, `"rope_type": "linear", "factor": 2.0`), "rope_parameters.rope_type", `"linear"`},
		{"dynamic (transformers 5)", swap(v5, `"rope_type": "default"`, `"rope_type": "dynamic", "factor": 2.0`), "rope_parameters.rope_type", `"dynamic"`},
		{"llama3 (transformers 5)", swap(v5, `"rope_type": "default"`, `"rope_type": "llama3", "factor": 8.0`), "rope_parameters.rope_type", `"llama3"`},
		{"yarn (hub form, rope_type)", swap(hubConfig, `"rope_scaling": null`, `"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}`),
			"rope_scaling.rope_type", `"yarn" is not supported`},
		{"linear (older form, type)", swap(hubConfig, `"rope_scaling": null`, `"rope_scaling": {"type": "linear", "factor": 2.0}`), "rope_scaling.type", `"linear"`},
		{"rope_scaling without a type", swap(hubConfig, `"rope_scaling": null`, `"rope_scaling": {"factor": 2.0}`), "rope_scaling", `not supported`},
		{"per-layer-type rope", swap(v5, `"rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}`,
			`"rope_parameters": {"full_attention": {"rope_theta": 1000000.0, "rope_type": "default"}}`), "rope_parameters", "per layer type"},
		{"sliding window", swap(v5, `"use_sliding_window": false`, `"use_sliding_window": true`), "use_sliding_window", "true is not supported"},
		{"sliding layer", swap(v5, `"full_attention", "full_attention"]`, `"full_attention", "sliding_attention"]`), "layer_types[27]", `"sliding_attention" is not supported`},
		{"attention bias", swap(hubConfig, `"attention_bias": false`, `"attention_bias": true`), "attention_bias", "true is not supported"},
		{"activation", swap(hubConfig, `"hidden_act": "silu"`, `"hidden_act": "gelu"`), "hidden_act", `"gelu" is not supported`},
		{"theta twice", swap(v5, `"bos_token_id"`, `"rope_theta": 5, "bos_token_id"`), "rope_parameters.rope_theta", "disagrees with rope_theta 5"},
		{"no theta", swap(hubConfig, `"rope_theta": 1000000,`, ``), "rope_theta", "0 must be positive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.text))
			fe := wantFormatErr(t, err, c.field, anyOffset, c.msg)
			key := c.field[strings.LastIndex(c.field, ".")+1:] // the offset is the innermost key's
			key, _, _ = strings.Cut(key, "[")
			if c.field != "rope_theta" && (fe.Offset < 0 || !strings.HasPrefix(c.text[fe.Offset:], `"`+key+`"`)) {
				t.Errorf("offset %d points at %.20q, not at the key %q", fe.Offset, c.text[fe.Offset:], key)
			}
		})
	}
}

// TestConfigJSONErrors: broken JSON is a FormatError at the offending byte.
func TestConfigJSONErrors(t *testing.T) {
	_, err := ParseConfig([]byte(`{"hidden_size": 1024,, }`))
	wantFormatErr(t, err, "JSON", 21, "does not parse")
	_, err = ParseConfig([]byte(`{"hidden_size": "big"}`))
	wantFormatErr(t, err, "hidden_size", anyOffset, "wrong type")
	_, err = ParseConfig([]byte(`[{"hidden_size": 1024}]`)) // found by FuzzConfig: the field was ""
	wantFormatErr(t, err, "JSON", 0, "holds a JSON array, not an object of keys")
	_, err = ParseConfig([]byte(`{"eos_token_id": "x"}`))
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%v", err)
	}
	var found bool
	eachFormatError(err, func(fe *FormatError) { found = found || fe.Field == "eos_token_id" })
	if !found {
		t.Errorf("no FormatError for eos_token_id in %v", err)
	}
}

// TestConfigFromGGUFRefusals: the same refusals through GGUF metadata, naming the key and its offset.
func TestConfigFromGGUFRefusals(t *testing.T) {
	base := func(extra ...KV) []byte {
		kv := func(k string, v uint32) KV { return KV{Key: k, Value: Value{Type: TypeUint32, V: v}} }
		f32 := func(k string, v float32) KV { return KV{Key: k, Value: Value{Type: TypeFloat32, V: v}} }
		kvs := []KV{{Key: "general.architecture", Value: Value{Type: TypeString, V: "qwen3"}},
			kv("qwen3.embedding_length", 64), kv("qwen3.feed_forward_length", 96), kv("qwen3.block_count", 2),
			kv("qwen3.attention.head_count", 4), kv("qwen3.attention.head_count_kv", 2), kv("qwen3.context_length", 256),
			kv("qwen3.attention.key_length", 16), f32("qwen3.rope.freq_base", 1e6), f32("qwen3.attention.layer_norm_rms_epsilon", 1e-6),
			{Key: "tokenizer.ggml.tokens", Value: Value{Type: TypeArray, Elem: TypeString, V: []string{"a", "b", "c"}}}}
		w := &testFile{kvs: append(kvs, extra...)}
		return w.build()
	}
	f, err := Parse(base())
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ConfigFromGGUF(f); err != nil || c.RMSNormEps != 1e-6 || c.HeadDim != 16 {
		t.Fatalf("%+v, %v", c, err)
	}
	for _, c := range []struct {
		kv    KV
		field string
		msg   string
	}{
		{KV{Key: "qwen3.rope.scaling.type", Value: Value{Type: TypeString, V: "yarn"}}, `metadata "qwen3.rope.scaling.type"`, `"yarn" is not supported`},
		{KV{Key: "qwen3.attention.sliding_window", Value: Value{Type: TypeUint32, V: uint32(4096)}}, `metadata "qwen3.attention.sliding_window"`, "not supported"},
	} {
		f, err := Parse(base(c.kv))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ConfigFromGGUF(f)
		fe := wantFormatErr(t, err, c.field, anyOffset, c.msg)
		if kv := f.Metadata[len(f.Metadata)-1]; fe.Offset != kv.Offset {
			t.Errorf("%s: offset %d, the key is at byte %d", c.field, fe.Offset, kv.Offset)
		}
	}
	// "none" is llama.cpp's word for the default.
	f, _ = Parse(base(KV{Key: "qwen3.rope.scaling.type", Value: Value{Type: TypeString, V: "none"}}))
	if _, err := ConfigFromGGUF(f); err != nil {
		t.Errorf("rope.scaling.type none: %v", err)
	}
}

// TestDecimal: FLOAT32 metadata reads back as the decimal it was written from.
func TestDecimal(t *testing.T) {
	w := &testFile{kvs: []KV{{Key: "t", Value: Value{Type: TypeFloat32, V: float32(0.6)}}, {Key: "d", Value: Value{Type: TypeFloat64, V: 0.1}}}}
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f.Decimal("t"); v != 0.6 || err != nil {
		t.Errorf("Decimal(float32 0.6) = %v (%v), want 0.6 exactly", v, err)
	}
	if v, err := f.Decimal("d"); v != 0.1 || err != nil {
		t.Errorf("Decimal(float64 0.1) = %v (%v)", v, err)
	}
}
