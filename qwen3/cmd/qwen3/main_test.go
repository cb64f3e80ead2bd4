package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

func runArgs(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestRunTiny(t *testing.T) {
	out, errOut, err := runArgs(t, "", "run", "-prompt", "The capital of France is", "-max-tokens", "8", "-temperature", "0", "-stats")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "The capital of France is") || len(out) <= len("The capital of France is\n") {
		t.Errorf("output %q", out)
	}
	for _, want := range []string{"tiny reference checkpoint", "meaningless", "tok/s", "peak memory"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %q", want, errOut)
		}
	}
}

func TestChatTiny(t *testing.T) {
	out, errOut, err := runArgs(t, "Hi\n/nothink\nAnd again?\n/quit\n", "chat", "-max-tokens", "5", "-seed", "3",
		"-model", reference.TinyHFDir())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "> ") != 4 || !strings.Contains(errOut, "thinking false") {
		t.Errorf("stdout %q\nstderr %q", out, errOut)
	}
}

func TestInspect(t *testing.T) {
	out, _, err := runArgs(t, "", "inspect", reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GGUF v3", "qwen3.attention.head_count_kv", "blk.2.ffn_down.weight", "BF16", "35 tensors"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q", want)
		}
	}
	if out, _, err = runArgs(t, "", "inspect", reference.TinyHFDir()); err != nil || !strings.Contains(out, "model.layers.0.self_attn.q_norm.weight") {
		t.Errorf("inspect HF dir: %v\n%s", err, out)
	}
}

func TestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"fly"},
		{"run"},
		{"run", "-prompt", "x", "-top-p", "1.5"},
		{"run", "-prompt", "x", "-temperature", "-3"},
		{"run", "-prompt", "x", "-top-k", "-1"},
		{"run", "-prompt", "x", "-min-p", "2"},
		{"run", "-prompt", "x", "-max-tokens", "0"},
		{"run", "-prompt", "x", "-model", "/nonexistent/model.gguf"},
		{"run", "-prompt", "x", "-model", reference.Golden("01_gguf", "sample.gguf")}, // not qwen3
		{"inspect"},
	} {
		if _, _, err := runArgs(t, "", args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
