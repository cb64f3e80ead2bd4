package qwen3

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// ChatOptions start a conversation. The zero ChatOptions is a chat without a system prompt,
// with thinking off, whose replies use the zero ReplyOptions. (The qwen3 command thinks unless
// told -think=false, as Qwen3's chat template does when enable_thinking is not given; here a
// program opts in, since a bool's zero value is false and "off" is what a zero option means.)
type ChatOptions struct {
	// System is the system prompt; "" for none.
	System string
	// Thinking turns on Qwen3's thinking mode (the chat template's enable_thinking): the model
	// reasons inside <think>...</think> before it answers. Off, it answers directly.
	Thinking bool
	// Reply is how every reply is made, the context's length (Reply.MaxContext) included.
	Reply ReplyOptions
}

// Chat is a multi-turn conversation with a model. It keeps the messages, renders them with Qwen3's
// chat template (chapter 02) at every turn, and reuses the KV cache for the longest prefix of
// tokens the new prompt shares with what is already cached: a long system prompt and the earlier
// turns are not run through the model again. (Qwen3's template drops the thinking of earlier
// assistant turns, so the cache is reused up to the start of the last reply.)
//
// When the context fills, the chat goes on: the oldest turns leave the model's view (the system
// prompt stays), the rest is prefilled again, and Dropped counts the messages left out. Messages
// still returns the whole conversation. A Chat is for one goroutine at a time; Close returns its
// cache's memory.
type Chat struct {
	m        *Model
	cache    *Cache
	system   string
	messages []tokenizer.Message // the conversation after the system prompt: user, assistant, user, ...
	last     Stats
	reused   int
	dropped  int

	// Thinking turns Qwen3's thinking mode on or off for the next replies.
	Thinking bool
	// Reply is how the next replies are made. A change of Reply.MaxContext moves the chat to a
	// cache of the new length at the next Send.
	Reply ReplyOptions
}

// NewChat starts a conversation, with a cache of o.Reply.MaxContext tokens.
func (m *Model) NewChat(o ChatOptions) (*Chat, error) {
	c, err := m.NewCache(o.Reply.MaxContext)
	if err != nil {
		return nil, err
	}
	return &Chat{m: m, cache: c, system: o.System, Thinking: o.Thinking, Reply: o.Reply}, nil
}

// Close returns the memory of the chat's cache; a later Send fails with an error wrapping
// ErrClosed. The messages stay readable.
func (c *Chat) Close() error { return c.cache.Close() }

// Last is the timings of the last reply, and why it ended.
func (c *Chat) Last() Stats { return c.last }

// Reused is how many prompt tokens of the last turn were already in the cache.
func (c *Chat) Reused() int { return c.reused }

// Dropped is how many of the earliest messages (after the system prompt) the model no longer
// sees: they were left out to make room when the context filled. It is even: a user message
// leaves with its reply.
func (c *Chat) Dropped() int { return c.dropped }

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
	c.messages, c.dropped, c.last, c.reused = nil, 0, Stats{}, 0
	keep := 0
	if c.system != "" {
		if prompt, err := tokenizer.ApplyChatTemplate([]tokenizer.Message{{Role: "system", Content: c.system}}, tokenizer.ChatOptions{}); err == nil {
			ids := c.m.tok.Encode(prompt)
			keep = cachedPrefix(c.cache, append(ids, -1)) // -1: no token, so that all of ids may be kept
		}
	}
	c.cache.tokens = c.cache.tokens[:keep]
}

// Context returns how many tokens the model's context holds now and at most.
func (c *Chat) Context() (used, size int) { return c.cache.Len(), c.cache.MaxLen() }

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
		return nil, err
	}
	return c.m.tok.Encode(prompt), nil
}

// fit returns the tokens of the conversation with user's message, from the first message on that
// lets them fill at most limit tokens: the oldest turns (a user message and its reply) are left
// out one by one. It returns ErrContextFull when even the system prompt and user's message alone
// are over the limit.
func (c *Chat) fit(user string, tail []int, limit int) (ids []int, first int, err error) {
	for first = c.dropped; ; first += 2 {
		if ids, err = c.render(first, user); err != nil {
			return nil, 0, err
		}
		if len(ids)+len(tail) <= limit {
			return append(ids, tail...), first, nil
		}
		if first+2 > len(c.messages) {
			return nil, 0, fmt.Errorf("%w: the message with the system prompt and chat template is %d tokens, the context holds %d",
				ErrContextFull, len(ids)+len(tail), c.cache.MaxLen())
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
// A reply that fills the context on its own stops there (Last().Finish is FinishContext). A message
// that does not fit with the system prompt alone is an error wrapping ErrContextFull.
func (c *Chat) Send(ctx context.Context, user string, onText func(string) error) (string, error) {
	if strings.TrimSpace(user) == "" {
		return "", errors.New("qwen3: empty message")
	}
	if err := c.resize(); err != nil {
		return "", fmt.Errorf("qwen3: %w", err)
	}
	ids, first, err := c.fit(user, nil, c.cache.MaxLen()-1) // one token of room, at least, for the reply
	if err != nil {
		return "", fmt.Errorf("qwen3: %w", err)
	}
	dropped := c.dropped
	c.dropped = first
	keep := cachedPrefix(c.cache, ids)
	c.cache.tokens = c.cache.tokens[:keep]
	c.reused = keep
	room := func(out []int) ([]int, error) {
		// Leave half of the context free, so that room is not made again a few tokens later;
		// when the reply is already too long for that, settle for an eighth.
		all, first, err := c.fit(user, out, c.cache.MaxLen()/2)
		if errors.Is(err, ErrContextFull) {
			all, first, err = c.fit(user, out, c.cache.MaxLen()*7/8)
		}
		if err != nil {
			return nil, err // no older turn is left: the reply fills the context on its own
		}
		c.dropped = first
		return all, nil
	}
	var text strings.Builder
	_, st, err := c.m.continueCache(ctx, c.cache, ids[keep:], c.Reply, textSink(c.m.tok, &text, onText), room)
	c.last = st
	if text.Len() == 0 && err != nil {
		c.dropped = dropped
		return "", err
	}
	c.messages = append(c.messages,
		tokenizer.Message{Role: "user", Content: user},
		tokenizer.Message{Role: "assistant", Content: text.String()})
	return text.String(), err
}

// resize moves the chat to a cache of Reply.MaxContext tokens when that is not the length of
// its cache; the next turn prefills the conversation into it.
func (c *Chat) resize() error {
	want := c.Reply.MaxContext
	if want == 0 {
		want = min(DefaultMaxContext, c.m.sizes.MaxContext)
	}
	if want == c.cache.MaxLen() {
		return nil
	}
	next, err := c.m.newCache(want, false)
	if err != nil {
		return err
	}
	c.cache.Close()
	c.cache = next
	return nil
}
