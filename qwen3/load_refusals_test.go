package qwen3

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// TestLoadRefusals: each way a GGUF checkpoint can be unfit for the engine (the metadata, the
// tokenizer, a tensor missing, of the wrong shape or of a type nothing can read) is an error that
// names the file and what is wrong, never a model that fails later. Each case edits smallQwen3.
func TestLoadRefusals(t *testing.T) {
	u32 := func(key string, v uint32) func(s *ggufSpec) {
		return func(s *ggufSpec) { s.set(key, func(w *ggufWriter) { w.u32(key, v) }) }
	}
	str := func(key, v string) func(s *ggufSpec) {
		return func(s *ggufSpec) { s.set(key, func(w *ggufWriter) { w.str(key, v) }) }
	}
	// retype stores a tensor as typ: bytes of the right length for its dims, all zero but valid.
	retype := func(name string, typ gguf.GGMLType) func(s *ggufSpec) {
		return func(s *ggufSpec) {
			tt := s.tensor(name)
			n := uint64(1)
			for _, d := range tt.dims {
				n *= d
			}
			tt.typ, tt.data = typ, make([]byte, n/uint64(typ.BlockSize())*uint64(typ.TypeSize()))
		}
	}
	cases := []struct {
		name string
		edit func(s *ggufSpec)
		want string
	}{
		{"no architecture", func(s *ggufSpec) { s.drop("general.architecture") }, `metadata "general.architecture": not found`},
		{"another architecture", str("general.architecture", "llama"), `general.architecture is "llama", this engine runs only qwen3`},
		{"heads not a multiple of KV heads", u32("qwen3.attention.head_count_kv", 3),
			`metadata "qwen3.attention.head_count" at byte`},
		{"a layer count the tensors do not back", u32("qwen3.block_count", 2), `"model.layers.1.input_layernorm.weight" (GGUF "blk.1.attn_norm.weight"): not found`},
		{"another pre-tokenizer", str("tokenizer.ggml.pre", "llama-bpe"), `tokenizer.ggml.pre is "llama-bpe", only "qwen2" is supported`},
		{"a missing matrix", func(s *ggufSpec) { s.drop("blk.0.attn_k.weight") }, `"model.layers.0.self_attn.k_proj.weight" (GGUF "blk.0.attn_k.weight"): not found`},
		{"a matrix of the wrong shape", func(s *ggufSpec) {
			s.tensor("blk.0.attn_q.weight").dims = []uint64{32, 16}
			s.tensor("blk.0.attn_q.weight").data = make([]byte, 32*16*2)
		}, `tensor "model.layers.0.self_attn.q_proj.weight" has shape [16 32], the config needs [32 32]`},
		{"a norm of the wrong length", func(s *ggufSpec) {
			s.tensor("blk.0.attn_q_norm.weight").dims = []uint64{8}
			s.tensor("blk.0.attn_q_norm.weight").data = make([]byte, 8*4)
		}, `tensor "model.layers.0.self_attn.q_norm.weight" has shape [8], the config needs [16]`},
		{"a matrix in a type nothing reads", retype("blk.0.ffn_up.weight", gguf.GGMLType(6)), // Q5_0
			`"model.layers.0.mlp.up_proj.weight": dequantizing`},
		{"a norm in a type nothing reads", retype("blk.0.attn_norm.weight", gguf.GGMLType(6)),
			`"model.layers.0.input_layernorm.weight": dequantizing`},
	}
	for _, c := range cases {
		s := smallQwen3()
		c.edit(s)
		m, err := LoadGGUFBytes(t.Context(), "edit.gguf", s.bytes())
		if err == nil {
			m.Close()
			t.Errorf("%s: loaded", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "edit.gguf") {
			t.Errorf("%s: error %q, want one naming edit.gguf and saying %q", c.name, err, c.want)
		}
	}
}

// TestLoadWidensF64: a matrix or a norm stored in a type the kernels do not read (F64 here) is
// widened to F32 when loading, and the model computes exactly what it computes with the same
// values stored as F32: the same logits, bit for bit.
func TestLoadWidensF64(t *testing.T) {
	logits := func(typ gguf.GGMLType) []float32 {
		t.Helper()
		s := smallQwen3()
		for _, name := range []string{"blk.0.attn_v.weight", "blk.0.ffn_norm.weight"} { // stored as F32
			tt := s.tensor(name)
			v := make([]float32, len(tt.data)/4)
			if err := gguf.Dequantize(v, tt.typ, tt.data); err != nil {
				t.Fatal(err)
			}
			tt.typ, tt.data = typ, encodeValues(typ, v)
		}
		m, err := LoadGGUFBytes(t.Context(), "f64.gguf", s.bytes(), WithThreads(1))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if m.layers[0].v.Type != F32 {
			t.Fatalf("v_proj stored as %v is kept as %v, want F32", typ, m.layers[0].v.Type)
		}
		sess, err := m.NewCache(8)
		if err != nil {
			t.Fatal(err)
		}
		l, err := sess.Prefill(t.Context(), []int{1, 200, 258})
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), l...)
	}
	want, got := logits(gguf.TypeF32), logits(gguf.TypeF64)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d: %g with the weights stored as F64, %g as F32", i, got[i], want[i])
		}
	}
}

// TestLoadPathErrors: the errors of Load's own steps, before any tensor is read: options it
// refuses, a lone safetensors file (ErrSafetensorsFile, naming the directory to pass instead), a
// Hugging Face directory without its tokenizer or with a broken generation_config.json.
func TestLoadPathErrors(t *testing.T) {
	if _, err := Load(t.Context(), reference.TinyGGUF(), WithKVCache(KVType(3))); err == nil || !strings.Contains(err.Error(), "KV cache type 3") {
		t.Errorf("a KV cache of KVType(3): %v", err)
	}
	if _, err := LoadGGUFBytes(t.Context(), "x.gguf", smallQwen3GGUF(), WithKVCache(KVType(255))); err == nil || !strings.Contains(err.Error(), "KV cache type 255") {
		t.Errorf("a KV cache of KVType(255) from bytes: %v", err)
	}
	st := filepath.Join(reference.TinyHFDir(), "model.safetensors")
	if _, err := Load(t.Context(), st); !errors.Is(err, gguf.ErrSafetensorsFile) || !strings.Contains(err.Error(), reference.TinyHFDir()) {
		t.Errorf("a lone safetensors file: %v", err)
	}
	noTok := copyTinyHF(t, func(s string) string { return s })
	if err := os.Remove(filepath.Join(noTok, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(t.Context(), noTok); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("no tokenizer.json: %v", err)
	}
	badGen := copyTinyHF(t, func(s string) string { return s })
	path := filepath.Join(badGen, "generation_config.json")
	if err := os.WriteFile(path, []byte(`{"eos_token_id": "none"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(t.Context(), badGen); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "eos_token_id") {
		t.Errorf("a broken generation_config.json: %v", err)
	}
}

// TestPrefault: WithPrefault (and not huge pages, which are in memory already) reports progress
// in steps up to the bytes of every matrix that a token reads, the embedding included.
func TestPrefault(t *testing.T) {
	var last, total int64
	calls := 0
	m, err := Load(t.Context(), reference.TinyGGUF(), WithoutHugePages(), WithThreads(1), WithPrefault(func(done, all int64) {
		if done <= last || done > all || total != 0 && all != total {
			t.Errorf("progress %d of %d after %d of %d", done, all, last, total)
		}
		last, total = done, all
		calls++
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want := m.WeightBytes() + m.embed.Bytes()
	if m.tied {
		want -= m.head.Bytes() // the head is the embedding: read once
	}
	if last != total || total != want || calls != 7*m.sizes.Layers+1 {
		t.Errorf("progress ended at %d of %d after %d calls; want %d bytes in %d calls", last, total, calls, want, 7*m.sizes.Layers+1)
	}
}

// TestLoadWithoutMmap: a file read into the Go heap (WithoutMmap, so not into huge pages either)
// gives the logits of the default load, bit for bit.
func TestLoadWithoutMmap(t *testing.T) {
	logits := func(opts ...LoadOption) []float32 {
		t.Helper()
		m, err := Load(t.Context(), reference.TinyGGUF(), append(opts, WithThreads(1))...)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if len(opts) > 0 && m.HugePages() {
			t.Error("WithoutMmap: the weights are in huge pages")
		}
		s, err := m.NewCache(8)
		if err != nil {
			t.Fatal(err)
		}
		l, err := s.Prefill(t.Context(), []int{785, 3974, 13})
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), l...)
	}
	want, got := logits(), logits(WithoutMmap())
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d: %g read into the heap, %g mapped", i, got[i], want[i])
		}
	}
}
