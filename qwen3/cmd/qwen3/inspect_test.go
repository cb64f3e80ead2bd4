package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// TestInspectAllKinds: inspect describes a GGUF file, a safetensors file and a Hugging Face
// directory (both config.json forms), each with what a user needs to know about it.
func TestInspectAllKinds(t *testing.T) {
	withHead := t.TempDir() // the tiny checkpoint storing a (tied) lm_head.weight, as Qwen3-0.6B's does
	if err := reference.WriteTinyHFWithHead(withHead, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{reference.TinyGGUF(), []string{"GGUF v3", "CONFIG (from the qwen3.* metadata", "rope_theta               1e+06",
			"tie_word_embeddings      true", "qwen3.attention.head_count_kv", "blk.2.ffn_down.weight", "68 tensors", "BF16 20185088 bytes, F32 4864 bytes"}},
		{filepath.Join(reference.TinySavedDir(), "model.safetensors"), []string{"safetensors file", "__metadata__ format = \"pt\"",
			"lm_head.weight", "[2112 32]", "2576..137744", "25 tensors, 315840 bytes of data (BF16 315840 bytes)",
			"-model " + reference.TinySavedDir()}},
		{reference.TinySavedDir(), []string{"transformers 5's form: rope_parameters", "rope_theta               10000",
			"rms_norm_eps             1e-05", "tie_word_embeddings      false", "untied head 67584", "lm_head.weight", "2074 (ids 0..2073)",
			"ids 2074..2111 are padding", "<|im_end|> 2050", "chat_template.jinja", "temperature           0.7", "eos_token_id          [2050,2048]"}},
		{reference.TinyHFDir(), []string{"the hub's form: top-level rope_theta", "dtype                    bfloat16",
			"[9707 11 1879 0]", "top_p         0.95"}},
		{withHead, []string{"lm_head.weight is stored but tied to the embedding, so it is not used"}},
	} {
		out, err := outErr(runArgs(t, "", "inspect", c.path))
		if err != nil {
			t.Fatalf("inspect %s: %v", c.path, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("inspect %s: output lacks %q\n%s", filepath.Base(c.path), w, out)
			}
		}
	}
}

// TestInspectBad: a file of no known kind, and a directory whose config asks for yarn, are errors
// naming what is wrong.
func TestInspectBad(t *testing.T) {
	_, err := outErr(runArgs(t, "", "inspect", filepath.Join("..", "..", "..", "go.mod")))
	var fe *gguf.FormatError
	if !errors.As(err, &fe) || fe.Field != "header.magic" {
		t.Errorf("inspect go.mod: %v", err)
	}
	dir := yarnCopy(t)
	_, err = outErr(runArgs(t, "", "inspect", dir))
	if !errors.As(err, &fe) || fe.Field != "rope_parameters.rope_type" || !strings.Contains(fe.Msg, `"yarn"`) {
		t.Errorf("inspect of a yarn config: %v", err)
	}
}

// outErr is what the inspect and saved-checkpoint tests read of a run: its standard output and error.
func outErr(r result) (string, error) { return r.out, r.e }
