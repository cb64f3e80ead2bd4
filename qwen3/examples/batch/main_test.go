package main

import (
	"context"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestComplete runs qwen3/README.md's second program on the course's tiny checkpoint: one line per
// prompt, each starting with its prompt and saying why it ended. (The tiny model's words are not
// checked: they mean nothing and change with the checkpoint.)
func TestComplete(t *testing.T) {
	var out strings.Builder
	prompts := []string{"The capital of France is", "Hi"}
	if err := complete(context.Background(), &out, reference.TinyGGUF(), prompts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(prompts) {
		t.Fatalf("%d lines for %d prompts:\n%s", len(lines), len(prompts), out.String())
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, `"`+prompts[i]+`" -> `) || !strings.Contains(l, "finish: ") {
			t.Errorf("line %d = %q, want the prompt %q, its continuation and why it ended", i, l, prompts[i])
		}
	}
}
