package serve

import (
	"encoding/json"
	"net/http"
)

// The replies' JSON, as OpenAI's API reference gives it: a chat completion
// ("object": "chat.completion") or its stream of chunks ("chat.completion.chunk", each choice
// with a delta), and a text completion ("text_completion", the same object streamed).

type chatMessage struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

type choice struct {
	Index        int          `json:"index"`
	Message      *chatMessage `json:"message,omitempty"` // a chat completion
	Delta        *chatMessage `json:"delta,omitempty"`   // a chat completion's chunk
	Text         *string      `json:"text,omitempty"`    // a text completion
	Logprobs     *struct{}    `json:"logprobs"`          // always null
	FinishReason *string      `json:"finish_reason"`
}

type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	SystemFingerprint string   `json:"system_fingerprint"`
	Choices           []choice `json:"choices"`
	Usage             *Usage   `json:"usage,omitempty"`
}

// fingerprint is the system_fingerprint of every reply: the server's code, not a build.
const fingerprint = "qwen3go"

// replyWriter writes one reply: whole, or as server-sent events. Each write has a deadline (the
// server's logWriter sets it), so that a client that stops reading is dropped instead of holding
// its handler forever.
type replyWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	id, model    string
	created      int64
	chat         bool
	includeUsage bool
}

func (rw *replyWriter) object(stream bool) string {
	switch {
	case rw.chat && stream:
		return "chat.completion.chunk"
	case rw.chat:
		return "chat.completion"
	}
	return "text_completion"
}

// chunk is one streamed event: a piece of text, or the end (finish set), or for a chat the first
// event, which says the role.
func (rw *replyWriter) chunk(text string, finish *string, first bool) completion {
	c := choice{FinishReason: finish}
	switch {
	case rw.chat && first:
		c.Delta = &chatMessage{Role: "assistant", Content: new("")}
	case rw.chat && finish != nil:
		c.Delta = &chatMessage{}
	case rw.chat:
		c.Delta = &chatMessage{Content: &text}
	default:
		c.Text = &text
	}
	return completion{ID: rw.id, Object: rw.object(true), Created: rw.created, Model: rw.model, SystemFingerprint: fingerprint, Choices: []choice{c}}
}

// usageChunk is the last event when stream_options.include_usage: no choices, the usage.
func (rw *replyWriter) usageChunk(u *Usage) completion {
	return completion{ID: rw.id, Object: rw.object(true), Created: rw.created, Model: rw.model, SystemFingerprint: fingerprint, Choices: []choice{}, Usage: u}
}

// whole writes a reply that was not streamed.
func (rw *replyWriter) whole(text, finish string, u *Usage) error {
	c := choice{FinishReason: &finish}
	if rw.chat {
		c.Message = &chatMessage{Role: "assistant", Content: &text}
	} else {
		c.Text = &text
	}
	b, err := json.Marshal(completion{ID: rw.id, Object: rw.object(false), Created: rw.created, Model: rw.model,
		SystemFingerprint: fingerprint, Choices: []choice{c}, Usage: u})
	if err != nil {
		return err
	}
	rw.w.Header().Set("Content-Type", "application/json")
	rw.w.WriteHeader(http.StatusOK)
	_, err = rw.w.Write(append(b, '\n'))
	return err
}

// event writes v as one server-sent event, "data: JSON" and a blank line, and flushes it.
func (rw *replyWriter) event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(b)+8)
	buf = append(append(append(buf, "data: "...), b...), "\n\n"...)
	if _, err := rw.w.Write(buf); err != nil {
		return err
	}
	return rw.rc.Flush()
}

// done writes the stream's last event, "data: [DONE]".
func (rw *replyWriter) done() error {
	if _, err := rw.w.Write([]byte("data: [DONE]\n\n")); err != nil {
		return err
	}
	return rw.rc.Flush()
}

func (rw *replyWriter) flush() error {
	return rw.rc.Flush()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
