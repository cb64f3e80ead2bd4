package qwen3

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// ChatOptions start a conversation. The zero ChatOptions is a chat without a system prompt,
// with thinking off, whose replies use the zero Options. (The qwen3 command thinks unless told
// -think=false, as Qwen3's chat template does when enable_thinking is not given; here a program
// opts in, since a bool's zero value is false and "off" is what a zero option means.)
type ChatOptions struct {
	// System is the system prompt; "" for none.
	System string
	// Thinking turns on Qwen3's thinking mode (the chat template's enable_thinking): the model
	// reasons inside <think>...</think> before it answers. Off, it answers directly.
	Thinking bool
	// Options for every reply; MaxContext is read once, by NewChat.
	Options
}

// Chat is a multi-turn conversation with a model. It keeps the messages, renders them with Qwen3's
// chat template (chapter 02) at every turn, and reuses the KV cache for the longest prefix of
// tokens the new prompt shares with what is already cached: a long system prompt and the earlier
// turns are not run through the model again. (Qwen3's template drops the thinking of earlier
// assistant turns, so the cache is reused up to the start of the last reply.)
//
// When the context fills, the chat goes on: the oldest turns leave the model's view (the system
// prompt stays), the rest is prefilled again, and Dropped counts the messages left out. Messages
// still returns the whole conversation.
type Chat struct {
	m        *Model
	s        *Session
	system   string
	messages []tokenizer.Message // the conversation after the system prompt: user, assistant, user, ...

	// Thinking turns Qwen3's thinking mode on or off for the next replies.
	Thinking bool
	// Options for every reply; Options.MaxContext is read once, by NewChat.
	Options Options
	// Last holds the timings of the last reply.
	Last Stats
	// Reused is how many prompt tokens of the last turn were already in the cache.
	Reused int
	// Dropped is how many of the earliest messages (after the system prompt) the model no longer
	// sees: they were left out to make room when the context filled.
	Dropped int
}

// NewChat starts a conversation.
func (m *Model) NewChat(o ChatOptions) (*Chat, error) {
	s, err := m.NewSession(o.MaxContext)
	if err != nil {
		return nil, err
	}
	return &Chat{m: m, s: s, system: o.System, Thinking: o.Thinking, Options: o.Options}, nil
}

// Messages returns the whole conversation, the system prompt first if there is one, including
// the messages the model no longer sees (Dropped).
func (c *Chat) Messages() []tokenizer.Message {
	var all []tokenizer.Message
	if c.system != "" {
		all = append(all, tokenizer.Message{Role: "system", Content: c.system})
	}
	return append(all, c.messages...)
}

// System returns the system prompt ("" for none).
func (c *Chat) System() string { return c.system }

// SetSystem replaces the system prompt ("" removes it) for the next turns; the conversation
// goes on.
func (c *Chat) SetSystem(system string) { c.system = system }

// Reset starts a new conversation with the same system prompt and options. The system prompt's
// tokens stay in the cache, so it is not run through the model again.
func (c *Chat) Reset() {
	c.messages, c.Dropped, c.Last, c.Reused = nil, 0, Stats{}, 0
	keep := 0
	if c.system != "" {
		if prompt, err := tokenizer.ApplyChatTemplate([]tokenizer.Message{{Role: "system", Content: c.system}}, tokenizer.ChatOptions{}); err == nil {
			ids := c.m.Tokenizer.Encode(prompt)
			keep = cachedPrefix(c.s, append(ids, -1)) // -1: no token, so that all of ids may be kept
		}
	}
	c.s.Truncate(keep)
}

// Context returns how many tokens the model's context holds now and at most.
func (c *Chat) Context() (used, size int) { return c.s.Len(), c.s.MaxLen() }

// render returns the tokens of the conversation from message first on, with the system prompt,
// then user and the start of the assistant's reply.
func (c *Chat) render(first int, user string) ([]int, error) {
	var msgs []tokenizer.Message
	if c.system != "" {
		msgs = append(msgs, tokenizer.Message{Role: "system", Content: c.system})
	}
	msgs = append(msgs, c.messages[first:]...)
	msgs = append(msgs, tokenizer.Message{Role: "user", Content: user})
	prompt, err := tokenizer.ApplyChatTemplate(msgs, tokenizer.ChatOptions{
		AddGenerationPrompt: true,
		EnableThinking:      tokenizer.Bool(c.Thinking),
	})
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return c.m.Tokenizer.Encode(prompt), nil
}

// fit returns the tokens of the conversation with user's message, from the first message on that
// lets them fill at most limit tokens: the oldest turns (a user message and its reply) are left
// out one by one. It returns ErrContextFull when even the system prompt and user's message alone
// are over the limit.
func (c *Chat) fit(user string, tail []int, limit int) (ids []int, first int, err error) {
	for first = c.Dropped; ; first += 2 {
		if ids, err = c.render(first, user); err != nil {
			return nil, 0, err
		}
		if len(ids)+len(tail) <= limit {
			return append(ids, tail...), first, nil
		}
		if first+2 > len(c.messages) {
			return nil, 0, fmt.Errorf("%w: the message with the system prompt and chat template is %d tokens, the context holds %d",
				ErrContextFull, len(ids)+len(tail), c.s.MaxLen())
		}
	}
}

// Send adds a user message, generates the assistant's reply streaming its text to onText (which
// may be nil), adds the reply to the conversation and returns it. When ctx is cancelled the
// partial reply is kept in the conversation and returned with ctx's error; when it is cancelled
// before the reply began, the message is not added.
//
// When the conversation does not fit the context, its oldest turns are left out of the model's
// view (Dropped); when the reply fills the context, older turns are left out until the
// conversation fills at most half of it, and the reply goes on after a prefill of what remains.
// A reply that fills the context on its own stops there (Last.Finish is FinishContext). A message
// that does not fit with the system prompt alone is an error wrapping ErrContextFull.
func (c *Chat) Send(ctx context.Context, user string, onText func(string) error) (string, error) {
	if strings.TrimSpace(user) == "" {
		return "", errors.New("qwen3: empty message")
	}
	ids, first, err := c.fit(user, nil, c.s.MaxLen()-1) // one token of room, at least, for the reply
	if err != nil {
		return "", err
	}
	dropped := c.Dropped
	c.Dropped = first
	keep := cachedPrefix(c.s, ids)
	c.s.Truncate(keep)
	c.Reused = keep
	room := func(out []int) ([]int, error) {
		// Leave half of the context free, so that room is not made again a few tokens later;
		// when the reply is already too long for that, settle for an eighth.
		all, first, err := c.fit(user, out, c.s.MaxLen()/2)
		if errors.Is(err, ErrContextFull) {
			all, first, err = c.fit(user, out, c.s.MaxLen()*7/8)
		}
		if err != nil {
			return nil, err // no older turn is left: the reply fills the context on its own
		}
		c.Dropped = first
		return all, nil
	}
	var text strings.Builder
	_, st, err := c.m.continueSession(ctx, c.s, ids[keep:], c.Options, textSink(c.m.Tokenizer, &text, onText), room)
	c.Last = st
	if text.Len() == 0 && err != nil {
		c.Dropped = dropped
		return "", err
	}
	c.messages = append(c.messages,
		tokenizer.Message{Role: "user", Content: user},
		tokenizer.Message{Role: "assistant", Content: text.String()})
	return text.String(), err
}
