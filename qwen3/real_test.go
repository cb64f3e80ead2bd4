package qwen3

import (
	"context"
	"os"
	"strings"
	"testing"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// These tests need the real Qwen3-0.6B (a GGUF file or a Hugging Face directory, see
// scripts/download_qwen3.sh) and run only when QWEN3_MODEL points at it.
func loadReal(t *testing.T) *Model {
	path := os.Getenv("QWEN3_MODEL")
	if path == "" {
		t.Skip("QWEN3_MODEL is not set: the real Qwen3-0.6B weights are needed (scripts/download_qwen3.sh)")
	}
	m, err := Load(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if m.Config().NumHiddenLayers != 28 || m.Config().HiddenSize != 1024 {
		t.Fatalf("QWEN3_MODEL is not Qwen3-0.6B: %+v", m.Config())
	}
	return m
}

func TestRealCapitalOfFrance(t *testing.T) {
	m := loadReal(t)
	s, err := m.NewCache(64)
	if err != nil {
		t.Fatal(err)
	}
	ids := m.Tokenizer().Encode("The capital of France is")
	logits, err := s.Prefill(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	if best != 12095 { // " Paris"
		tok, _ := m.Tokenizer().Token(best)
		t.Errorf("greedy next token %d (%q), want 12095 (\" Paris\")", best, tok)
	}
}

func TestRealChatArithmetic(t *testing.T) {
	m := loadReal(t)
	chat, err := m.NewChat(ChatOptions{Reply: ReplyOptions{Sampling: SamplingFrom(sampling.QwenNonThinking(1)), MaxNewTokens: 64}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := chat.Send(context.Background(), "What is 2+2?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reply, "4") {
		t.Errorf("reply to 'What is 2+2?' has no 4: %q", reply)
	}
}
