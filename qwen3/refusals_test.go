package qwen3

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRequestRefusals: what a caller asks for that cannot be done is an error saying what, before
// any work: an empty prompt, more prompts than a batch takes, a chat whose context is longer than
// the model's, a KV cache type that does not exist (and its name in messages).
func TestRequestRefusals(t *testing.T) {
	m := smallModel(t)
	ctx := context.Background()
	if _, _, err := m.Generate(ctx, "", ReplyOptions{}, nil); err == nil || !strings.Contains(err.Error(), "empty prompt") {
		t.Errorf("Generate of an empty prompt: %v", err)
	}
	many := slices.Repeat([]string{"the"}, maxChunk+1)
	if _, _, err := m.GenerateBatch(ctx, many, ReplyOptions{}, nil); err == nil || !strings.Contains(err.Error(), "GenerateBatch of 129 prompts (at most 128)") {
		t.Errorf("GenerateBatch of %d prompts: %v", len(many), err)
	}
	if _, err := m.NewChat(ChatOptions{Reply: ReplyOptions{MaxContext: 1 << 20}}); err == nil || !strings.Contains(err.Error(), "1048576") {
		t.Errorf("a chat of 2^20 tokens on a model of 1024: %v", err)
	}
	if s := KVType(7).String(); s != "KVType(7)" {
		t.Errorf("KVType(7) reads %q", s)
	}
	var kv KVType
	if err := kv.UnmarshalText([]byte("bf16")); err == nil || !strings.Contains(err.Error(), "bf16") {
		t.Errorf("a KV cache type of bf16: %v", err)
	}
}

// TestNoGenerationConfig: a Hugging Face directory without generation_config.json gets no
// sampling settings of its own, and both of Qwen3's end tokens stop a reply.
func TestNoGenerationConfig(t *testing.T) {
	m := smallModel(t)
	d, err := hfDefaults(filepath.Join(t.TempDir(), "generation_config.json"), m.tok)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := m.tok.TokenID("<|im_end|>")
	text, _ := m.tok.TokenID("<|endoftext|>")
	if d.Temperature != 0 || d.TopK != 0 || d.TopP != 0 || !slices.Equal(d.Stop, []int{end, text}) {
		t.Errorf("defaults %+v, want only the stop tokens [%d %d]", d, end, text)
	}
}
