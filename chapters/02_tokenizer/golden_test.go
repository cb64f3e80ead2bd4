package tokenizer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
	"golang.org/x/text/unicode/norm"
)

// Token ids are integers: the golden tests demand exact equality with Hugging Face tokenizers.

func TestCorpusMatchesHuggingFace(t *testing.T) {
	tok := qwen(t)
	for i, c := range loadCorpus(t) {
		if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("corpus[%d] %q:\n got %v\nwant %v", i, c.Text, got, c.IDs)
		}
	}
}

func TestGGUFMatchesTokenizerJSON(t *testing.T) {
	fromJSON, fromGGUF := qwen(t), qwenGGUF(t)
	for i, c := range loadCorpus(t) {
		if got := fromGGUF.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("GGUF tokenizer, corpus[%d] %q:\n got %v\nwant %v", i, c.Text, got, c.IDs)
		}
	}
	// Beyond the corpus: every vocabulary entry spelled out as text.
	for id := range fromJSON.VocabSize() {
		tokJ, okJ := fromJSON.Token(id)
		tokG, okG := fromGGUF.Token(id)
		if okJ != okG || tokJ != tokG {
			t.Fatalf("token %d: tokenizer.json has %q (%v), GGUF has %q (%v)", id, tokJ, okJ, tokG, okG)
		}
		text, err := fromJSON.Decode([]int{id}, false)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := fromJSON.Encode(text), fromGGUF.Encode(text); !slices.Equal(a, b) {
			t.Fatalf("token %d %q: tokenizer.json gives %v, GGUF gives %v", id, text, a, b)
		}
	}
	if fromGGUF.VocabSize() != 151936 {
		t.Errorf("GGUF vocabulary size %d, want 151936 (with the [PAD] ids)", fromGGUF.VocabSize())
	}
}

func TestCorpusRoundTrip(t *testing.T) {
	tok := qwen(t)
	for i, c := range loadCorpus(t) {
		got, err := tok.Decode(c.IDs, false)
		if err != nil {
			t.Fatalf("corpus[%d]: %v", i, err)
		}
		if want := norm.NFC.String(c.Text); got != want {
			t.Errorf("corpus[%d]: Decode(ids) = %q, want NFC(text) = %q", i, got, want)
		}
	}
}

func TestDecodeMatchesHuggingFace(t *testing.T) {
	var cases []struct {
		IDs         []int  `json:"ids"`
		SkipSpecial bool   `json:"skip_special_tokens"`
		Text        string `json:"text"`
	}
	if err := reference.LoadJSON("02_tokenizer", "decode", &cases); err != nil {
		t.Fatal(err)
	}
	tok := qwen(t)
	for i, c := range cases {
		got, err := tok.Decode(c.IDs, c.SkipSpecial)
		if err != nil {
			t.Fatalf("decode[%d]: %v", i, err)
		}
		if got != c.Text {
			t.Errorf("decode[%d] %v skip=%v:\n got %q\nwant %q", i, c.IDs, c.SkipSpecial, got, c.Text)
		}
	}
}

func TestChatTemplateMatchesHuggingFace(t *testing.T) {
	var cases []struct {
		Messages []struct {
			Role             string  `json:"role"`
			Content          string  `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"messages"`
		AddGenerationPrompt bool   `json:"add_generation_prompt"`
		EnableThinking      *bool  `json:"enable_thinking"`
		Text                string `json:"text"`
	}
	if err := reference.LoadJSON("02_tokenizer", "chat", &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("chat.json is empty")
	}
	for i, c := range cases {
		var msgs []Message
		for _, m := range c.Messages {
			msgs = append(msgs, Message{Role: m.Role, Content: m.Content, ReasoningContent: m.ReasoningContent})
		}
		got, err := ApplyChatTemplate(msgs, ChatOptions{AddGenerationPrompt: c.AddGenerationPrompt, EnableThinking: c.EnableThinking})
		if err != nil {
			t.Fatalf("chat[%d]: %v", i, err)
		}
		if got != c.Text {
			t.Errorf("chat[%d] (%s):\n got %q\nwant %q", i, describe(c.EnableThinking), got, c.Text)
		}
	}
}

func describe(b *bool) string {
	if b == nil {
		return "enable_thinking unset"
	}
	return fmt.Sprintf("enable_thinking=%v", *b)
}
