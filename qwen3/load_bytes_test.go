package qwen3

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/qwen3go/qwen3go/reference"
)

// TestLoadGGUFBytes: the checkpoint embedded in the program (the qwen3 command's built-in model)
// loads from memory, its weights used where the bytes are (no copy of the file), and gives the
// same logits, bit for bit, as the file loaded by Load.
func TestLoadGGUFBytes(t *testing.T) {
	data := reference.TinyGGUFBytes()
	ids, err := reference.LoadInts("07_forward", "prompt0_ids.npy")
	if err != nil {
		t.Fatal(err)
	}
	logits := func(m *Model) []float32 {
		t.Helper()
		s, err := m.NewCache(len(ids))
		if err != nil {
			t.Fatal(err)
		}
		l, err := s.Prefill(t.Context(), ids)
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), l...)
	}
	fromFile, err := Load(t.Context(), reference.TinyGGUF(), WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	defer fromFile.Close()
	m, err := LoadGGUFBytes(t.Context(), "tiny-qwen3.gguf", data, WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	for name, mat := range map[string]*matrix{"token_embd": m.embed, "blk.5.ffn_down": m.layers[5].down} {
		if p := uintptr(unsafe.Pointer(&mat.raw[0])); p < lo || p > hi {
			t.Errorf("%s: the weights were copied out of the embedded bytes", name)
		}
	}
	want, got := logits(fromFile), logits(m)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d: %g from the embedded bytes, %g from the file", i, got[i], want[i])
		}
	}

	// Bad bytes: an error that names the checkpoint, never a panic.
	for _, n := range []int{0, 10, 1000, len(data) - 1} {
		if _, err := LoadGGUFBytes(t.Context(), "cut.gguf", data[:n]); err == nil || !strings.Contains(err.Error(), "cut.gguf") {
			t.Errorf("the first %d bytes: error %v, want one naming cut.gguf", n, err)
		}
	}
}
