package main

import (
	"errors"
	"fmt"
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
		out, _, err := runArgs(t, "", "run", "-model", reference.TinySavedDir(), "-prompt", p.Text,
			"-temperature", "0", "-max-tokens", fmt.Sprint(len(p.NewIDs)))
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
		_, _, err := runArgs(t, "", append(args, "-model", file)...)
		if !errors.Is(err, gguf.ErrSafetensorsFile) || !strings.Contains(err.Error(), reference.TinySavedDir()) {
			t.Errorf("%s -model model.safetensors: %v; want gguf.ErrSafetensorsFile naming the directory", cmd, err)
		}
	}
}
