package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// TestRunSavedCheckpoint: `qwen3 run` on the checkpoint transformers 5 saved by itself prints
// transformers' greedy continuation of each golden prompt, text for text.
func TestRunSavedCheckpoint(t *testing.T) {
	prompts, err := reference.SavedPrompts()
	if err != nil {
		t.Fatal(err)
	}
	for n, p := range prompts {
		out, err := outErr(runArgs(t, "", "run", "-model", reference.TinySavedDir(), "-prompt", p.Text,
			"-temperature", "0", "-max-tokens", fmt.Sprint(len(p.NewIDs))))
		if err != nil {
			t.Fatalf("prompt %d: %v", n, err)
		}
		if want := p.Text + p.NewText + "\n"; out != want {
			t.Errorf("prompt %d: printed\n%q\ntransformers' greedy text\n%q", n, out, want)
		}
	}
}

// TestRunSafetensorsFile: given the weights file of a directory, run and chat say to pass the directory.
func TestRunSafetensorsFile(t *testing.T) {
	file := filepath.Join(reference.TinySavedDir(), "model.safetensors")
	for _, args := range [][]string{{"run", "-prompt", "x"}, {"chat"}} {
		cmd := args[0]
		_, err := outErr(runArgs(t, "", append(args, "-model", file)...))
		if !errors.Is(err, gguf.ErrSafetensorsFile) || !strings.Contains(err.Error(), reference.TinySavedDir()) {
			t.Errorf("%s -model model.safetensors: %v; want gguf.ErrSafetensorsFile naming the directory", cmd, err)
		}
	}
}

// yarnCopy copies the saved checkpoint with its config.json asking for yarn RoPE scaling, as Qwen's
// model card advises for contexts beyond 32,768 tokens.
func yarnCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"config.json", "generation_config.json", "model.safetensors", "tokenizer.json"} {
		b, err := os.ReadFile(filepath.Join(reference.TinySavedDir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "config.json" {
			yarn := `"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768`
			b = []byte(strings.Replace(string(b), `"rope_type": "default"`, yarn, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRunRefusesYarn: a yarn config is refused with the key and its value, not run as default RoPE.
func TestRunRefusesYarn(t *testing.T) {
	_, err := outErr(runArgs(t, "", "run", "-model", yarnCopy(t), "-prompt", "x"))
	var fe *gguf.FormatError
	if !errors.As(err, &fe) || fe.Field != "rope_parameters.rope_type" || !strings.Contains(fe.Msg, `"yarn" is not supported`) {
		t.Fatalf("run with a yarn config: %v", err)
	}
	t.Logf("the user reads: qwen3: %v", err)
}
