package qwen3

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// copyTinyHF copies the tiny HF directory into a temporary one, with config.json edited by edit.
func copyTinyHF(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"config.json", "generation_config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(reference.TinyHFDir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "config.json" {
			b = []byte(edit(string(b)))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadErrors(t *testing.T) {
	tiny, err := os.ReadFile(reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string]struct {
		path string
		want string
	}{
		"missing file":       {filepath.Join(dir, "none.gguf"), "no such file"},
		"wrong architecture": {reference.Golden("01_gguf", "sample.gguf"), `"sample"`},
		"not qwen3 config": {copyTinyHF(t, func(s string) string {
			return strings.Replace(strings.Replace(s, `"qwen3"`, `"llama"`, 1), `"Qwen3ForCausalLM"`, `"LlamaForCausalLM"`, 1)
		}), "runs only qwen3"},
		"shape mismatch": {copyTinyHF(t, func(s string) string {
			return strings.Replace(s, `"intermediate_size": 192`, `"intermediate_size": 64`, 1)
		}), `"model.layers.0.mlp.gate_proj.weight" has shape [192 64], the config needs [64 64]`},
	}
	// Truncations: inside the header, the metadata, the tensor table and the data.
	for _, n := range []int{10, 1000, 5_000_000, 5_935_000, len(tiny) - 1} {
		p := filepath.Join(dir, fmt.Sprintf("truncated-%d.gguf", n))
		if err := os.WriteFile(p, tiny[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		cases[fmt.Sprintf("truncated at byte %d", n)] = struct {
			path string
			want string
		}{p, "gguf"}
	}
	for name, c := range cases {
		m, err := Load(t.Context(), c.path)
		if err == nil {
			m.Close()
			t.Errorf("%s: loaded", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", name, err, c.want)
		}
	}
}

// TestTiedHeadIgnoresStoredCopy: Qwen3-0.6B's safetensors stores lm_head.weight although the head
// is tied. With tie_word_embeddings the engine must use the embedding (golden logits); with an
// untied config it must use the stored matrix, here a decoy (the embedding negated).
func TestTiedHeadIgnoresStoredCopy(t *testing.T) {
	full, err := reference.LoadArray("07_forward", "prompt0_logits_last.npy")
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := reference.LoadInts("07_forward", "prompt0_ids.npy")
	for _, tied := range []bool{true, false} {
		dir := t.TempDir()
		if err := reference.WriteTinyHFWithHead(dir, tied); err != nil {
			t.Fatal(err)
		}
		m, err := Load(t.Context(), dir, WithThreads(2))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := m.NewCache(16)
		logits, err := s.Prefill(t.Context(), ids)
		if err != nil {
			t.Fatal(err)
		}
		var worst, negated float64
		for c, w := range full.Data {
			worst = max(worst, math.Abs(float64(logits[c])-w))
			negated = max(negated, math.Abs(float64(logits[c])+w))
		}
		switch {
		case m.Tied() != tied:
			t.Errorf("tie_word_embeddings %v: Tied() = %v", tied, m.Tied())
		case tied && worst > 1e-4:
			t.Errorf("tied: logits differ from transformers by %.3g: the stored lm_head.weight was used", worst)
		case !tied && negated > 1e-4:
			t.Errorf("untied: logits are not the stored head's (off by %.3g)", negated)
		}
		m.Close()
	}
}

// TestLoadCacheAndExactOptions: WithKVCache and WithExactActivations reach the model and its
// caches; a KVType made from a number that names no type is an error that names it, before
// anything is read, and so is a negative thread count.
func TestLoadCacheAndExactOptions(t *testing.T) {
	m, err := Load(t.Context(), reference.TinyGGUF(), WithKVCache(KVFloat16), WithExactActivations(), WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := m.Config()
	if m.KVCache() != KVFloat16 || !m.ExactActivations() {
		t.Errorf("loaded with an f16 cache and exact activations: KVCache %v, ExactActivations %v", m.KVCache(), m.ExactActivations())
	}
	if got, want := m.KVBytesPerToken(), int64(2*c.NumHiddenLayers*c.NumKeyValueHeads*c.HeadDim*2); got != want {
		t.Errorf("KVBytesPerToken %d with an f16 cache, want %d", got, want)
	}
	s, err := m.NewCache(16)
	if err != nil {
		t.Fatal(err)
	}
	if s.keysH == nil || s.keys != nil || s.Type() != KVFloat16 {
		t.Errorf("a cache of an f16-cache model has float16 keys %v, float32 keys %v, type %v", s.keysH != nil, s.keys != nil, s.Type())
	}
	for _, tc := range []struct {
		opt  LoadOption
		want string
	}{
		{WithKVCache(KVType(42)), "KV cache type 42: the engine keeps its cache in f32 or f16"},
		{WithThreads(-1), "WithThreads(-1)"},
	} {
		if m, err := Load(t.Context(), reference.TinyGGUF(), tc.opt); err == nil {
			m.Close()
			t.Errorf("loaded, want an error saying %q", tc.want)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %q should say %q", err, tc.want)
		}
	}
}

// TestKVTypeText: KVType reads and writes "auto", "f32" and "f16" as text, so that a flag can
// take it (flag.TextVar), and rejects anything else with an error that names the choices.
func TestKVTypeText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want KVType
	}{{"f32", KVFloat32}, {"F16", KVFloat16}, {" f16 ", KVFloat16}, {"auto", KVAuto}, {" Auto", KVAuto}} {
		var got KVType = 7
		if err := got.UnmarshalText([]byte(tc.in)); err != nil || got != tc.want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if b, err := tc.want.MarshalText(); err != nil || string(b) != strings.ToLower(strings.TrimSpace(tc.in)) {
			t.Errorf("MarshalText(%v) = %q, %v", tc.want, b, err)
		}
	}
	for _, bad := range []string{"bf16", "q8_0", ""} {
		var kv KVType
		if err := kv.UnmarshalText([]byte(bad)); err == nil || !strings.Contains(err.Error(), "f32 or f16, or chooses (auto)") {
			t.Errorf("UnmarshalText(%q): %v, want an error naming f32, f16 and auto", bad, err)
		}
	}
	if _, err := KVType(3).MarshalText(); err == nil {
		t.Error("KVType(3).MarshalText: no error")
	}
	for _, kv := range []KVType{KVAuto, KVFloat32, KVFloat16} {
		if err := kv.check(); err != nil {
			t.Errorf("%v.check(): %v", kv, err)
		}
	}
	for _, kv := range []KVType{3, 255} {
		if err := kv.check(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("KV cache type %d", kv)) {
			t.Errorf("KVType(%d).check() = %v, want an error naming it", kv, err)
		}
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var kv KVType
	fs.TextVar(&kv, "kv-cache", KVFloat32, "")
	if err := fs.Parse([]string{"-kv-cache", "f16"}); err != nil || kv != KVFloat16 {
		t.Errorf("-kv-cache f16: %v, %v", kv, err)
	}
	if err := fs.Parse([]string{"-kv-cache", "q4"}); err == nil {
		t.Error("-kv-cache q4 was accepted")
	}
}
