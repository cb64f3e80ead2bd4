package main

import (
	"context"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestAsk runs qwen3/README.md's first program on the course's tiny checkpoint: it loads, chats and
// streams, and what it streams is what it returns. (The tiny model's words are not checked: they
// mean nothing and change with the checkpoint.)
func TestAsk(t *testing.T) {
	var out strings.Builder
	reply, err := ask(context.Background(), &out, reference.TinyGGUF(), "What is 2+2?")
	if err != nil {
		t.Fatal(err)
	}
	if reply == "" || out.String() != reply {
		t.Errorf("ask streamed %q and returned %q: want the same, non-empty", out.String(), reply)
	}
	if _, err := ask(context.Background(), &out, "no-such-model.gguf", "Hi"); err == nil {
		t.Error("a missing checkpoint: no error")
	}
}
