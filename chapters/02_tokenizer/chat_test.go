package tokenizer

import (
	"strings"
	"testing"
)

// The expected strings were checked with transformers' apply_chat_template on the reference tokenizer.
func TestChatTemplateCases(t *testing.T) {
	think := "<think>\nplan\n</think>\n\n"
	cases := []struct {
		name string
		msgs []Message
		opts ChatOptions
		want string
	}{
		{"one user turn", []Message{{Role: "user", Content: "Hi"}}, ChatOptions{AddGenerationPrompt: true},
			"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
		{"thinking off", []Message{{Role: "user", Content: "Hi"}}, ChatOptions{AddGenerationPrompt: true, EnableThinking: Bool(false)},
			"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
		{"thinking on is the default", []Message{{Role: "user", Content: "Hi"}}, ChatOptions{AddGenerationPrompt: true, EnableThinking: Bool(true)},
			"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
		{"old reasoning is dropped", []Message{{Role: "user", Content: "Q1"}, {Role: "assistant", Content: think + "A1"}, {Role: "user", Content: "Q2"}}, ChatOptions{},
			"<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n"},
		{"last turn keeps reasoning", []Message{{Role: "user", Content: "Q1"}, {Role: "assistant", Content: think + "A1"}}, ChatOptions{},
			"<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\n" + think + "A1<|im_end|>\n"},
		{"last turn gets empty think", []Message{{Role: "user", Content: "Q1"}, {Role: "assistant", Content: "A1"}}, ChatOptions{},
			"<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nA1<|im_end|>\n"},
		{"tool responses are grouped and are not queries",
			[]Message{{Role: "user", Content: "Q"}, {Role: "assistant", Content: think + "call"}, {Role: "tool", Content: "r1"}, {Role: "tool", Content: "r2"}, {Role: "assistant", Content: "done"}}, ChatOptions{},
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n" + think + "call<|im_end|>\n<|im_start|>user\n<tool_response>\nr1\n</tool_response>\n<tool_response>\nr2\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\ndone<|im_end|>\n"},
		{"later system message", []Message{{Role: "user", Content: "a"}, {Role: "system", Content: "s"}}, ChatOptions{},
			"<|im_start|>user\na<|im_end|>\n<|im_start|>system\ns<|im_end|>\n"},
	}
	for _, c := range cases {
		got, err := ApplyChatTemplate(c.msgs, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestSplitReasoning(t *testing.T) {
	cases := []struct{ content, answer, reasoning string }{
		{"plain", "plain", ""},
		{"<think>\n\nr\n\n</think>\n\nA", "A", "r"},
		{"x<think>a</think>b</think>\nc", "c", "a"},
		{"no open tag</think>ans", "ans", "no open tag"},
	}
	for _, c := range cases {
		answer, reasoning := splitReasoning(Message{Role: "assistant", Content: c.content})
		if answer != c.answer || reasoning != c.reasoning {
			t.Errorf("splitReasoning(%q) = %q, %q; want %q, %q", c.content, answer, reasoning, c.answer, c.reasoning)
		}
	}
}

func TestChatTemplateErrors(t *testing.T) {
	if _, err := ApplyChatTemplate(nil, ChatOptions{}); err == nil {
		t.Error("empty chat: no error")
	}
	_, err := ApplyChatTemplate([]Message{{Role: "user", Content: "a"}, {Role: "robot", Content: "b"}}, ChatOptions{})
	if err == nil || !strings.Contains(err.Error(), `message 1 has unknown role "robot"`) {
		t.Errorf("unknown role: %v", err)
	}
}
