package qwen3

import (
	"context"
	"errors"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Chat is a multi-turn conversation with a model. It keeps the messages, renders them with Qwen3's
// chat template (chapter 02) at every turn, and reuses the KV cache for the longest prefix of
// tokens the new prompt shares with what is already cached: a long system prompt and the earlier
// turns are not run through the model again. (Qwen3's template drops the thinking of earlier
// assistant turns, so the cache is reused up to the start of the last reply.)
type Chat struct {
	m        *Model
	s        *Session
	messages []tokenizer.Message
	// Thinking turns Qwen3's thinking mode on or off for the next replies (enable_thinking).
	Thinking bool
	// Options for every reply; Options.MaxContext is read once, by NewChat.
	Options Options
	// Last holds the timings of the last reply.
	Last Stats
	// Reused is how many prompt tokens of the last turn were already in the cache.
	Reused int
}

// NewChat starts a conversation, with a system prompt when system is not empty.
func (m *Model) NewChat(system string, thinking bool, opts Options) (*Chat, error) {
	s, err := m.NewSession(opts.MaxContext)
	if err != nil {
		return nil, err
	}
	c := &Chat{m: m, s: s, Thinking: thinking, Options: opts}
	if system != "" {
		c.messages = append(c.messages, tokenizer.Message{Role: "system", Content: system})
	}
	return c, nil
}

// Messages returns the conversation so far.
func (c *Chat) Messages() []tokenizer.Message { return c.messages }

// reusable is the length of the longest common prefix of ids and the cached tokens, leaving at
// least one token of ids to run (its logits start the reply).
func (c *Chat) reusable(ids []int) int {
	cached := c.s.Tokens()
	n := 0
	for n < len(ids)-1 && n < len(cached) && ids[n] == cached[n] {
		n++
	}
	return n
}

// Send adds a user message, generates the assistant's reply streaming its text to onText (which
// may be nil), adds the reply to the conversation and returns it. When ctx is cancelled the
// partial reply is kept in the conversation and returned with ctx's error.
func (c *Chat) Send(ctx context.Context, user string, onText func(string) error) (string, error) {
	if user == "" {
		return "", errors.New("qwen3: empty message")
	}
	msgs := append(c.messages, tokenizer.Message{Role: "user", Content: user})
	prompt, err := tokenizer.ApplyChatTemplate(msgs, tokenizer.ChatOptions{
		AddGenerationPrompt: true,
		EnableThinking:      tokenizer.Bool(c.Thinking),
	})
	if err != nil {
		return "", err
	}
	ids := c.m.Tokenizer.Encode(prompt)
	keep := c.reusable(ids)
	c.s.Truncate(keep)
	c.Reused = keep
	var text strings.Builder
	_, st, err := c.m.continueSession(ctx, c.s, ids[keep:], c.Options, textSink(c.m.Tokenizer, &text, onText))
	c.Last = st
	if text.Len() == 0 && err != nil {
		return "", err
	}
	c.messages = append(msgs, tokenizer.Message{Role: "assistant", Content: text.String()})
	return text.String(), err
}
