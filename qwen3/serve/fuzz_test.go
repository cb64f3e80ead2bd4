package serve

import (
	"net/http"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// The request decoder on any bytes: it accepts a request whose every setting is in range, or
// refuses it with a 400 (404 for another model) that says why; it never panics, and it
// allocates in proportion to the body, never what the body claims. Run it longer with
//
//	nice -n 10 go test -run '^$' -fuzz FuzzDecodeChat -fuzztime 10m ./qwen3/serve/
//
// (and FuzzDecodeCompletion); the inputs it found that once failed stay in testdata/fuzz as seeds.

var fuzzSeeds = []string{
	`{"model": "tiny", "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
	  {"role": "assistant", "content": null, "reasoning_content": "r"}, {"role": "user", "content": "x"}],
	  "temperature": 0.5, "top_p": 0.9, "top_k": 40, "min_p": 0.05, "seed": -3, "max_completion_tokens": 7, "stop": ["\n\n", "}"],
	  "stream": true, "stream_options": {"include_usage": true}, "chat_template_kwargs": {"enable_thinking": false}, "n": 1}`,
	`{"prompt": "func main() {", "max_tokens": 16, "temperature": 0, "stop": "\n"}`,
	`{"prompt": [[1, 2, 3]], "logprobs": 0, "echo": false, "best_of": 1}`,
	`{"prompt": ["a"], "max_tokens": 1e30}`,
	`{"messages": [{"role": "tool", "content": "42"}], "tools": [], "response_format": {"type": "text"}}`,
	`{"messages": [], "temperature": "hot"}`,
	`[1, 2]`,
	`{"a": 1} {"b": 2}`,
	``,
}

func checkDecoded(t *testing.T, body []byte, r *request, e *Error) {
	t.Helper()
	switch {
	case r == nil && e == nil:
		t.Fatalf("%q: neither a request nor an error", body)
	case r != nil && e != nil:
		t.Fatalf("%q: both a request and an error (%v)", body, e)
	case e != nil:
		if (e.Status != http.StatusBadRequest && e.Status != http.StatusNotFound) || e.Message == "" || e.Type == "" {
			t.Fatalf("%q: refused with %+v: want a 400 or 404 with a type and a message", body, e)
		}
		return
	}
	if r.maxTokens < 1 || r.maxTokens > testLimits.maxTokens || len(r.stop) > maxStops {
		t.Fatalf("%q: accepted max_tokens %d, %d stops", body, r.maxTokens, len(r.stop))
	}
	for _, s := range r.stop {
		if s == "" || len(s) > maxStopBytes {
			t.Fatalf("%q: accepted the stop string %q", body, s)
		}
	}
	if (r.temperature != nil && !(*r.temperature >= 0 && *r.temperature <= 2)) || (r.topP != nil && !(*r.topP > 0 && *r.topP <= 1)) ||
		(r.minP != nil && !(*r.minP >= 0 && *r.minP <= 1)) || (r.topK != nil && *r.topK < 0) {
		t.Fatalf("%q: accepted settings out of range", body)
	}
	if r.chat {
		if len(r.messages) == 0 {
			t.Fatalf("%q: accepted a chat with no messages", body)
		}
		for _, m := range r.messages {
			if m.Role != "system" && m.Role != "user" && m.Role != "assistant" && m.Role != "tool" {
				t.Fatalf("%q: accepted the role %q", body, m.Role)
			}
		}
	} else if r.prompt == "" && len(r.promptIDs) == 0 {
		t.Fatalf("%q: accepted a completion with no prompt", body)
	}
}

func FuzzDecodeChat(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var r *request
		var e *Error
		if err := reference.CheckAllocBound(len(body), 64, func() { r, e = decodeChat(body, testLimits) }); err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, body, r, e)
	})
}

func FuzzDecodeCompletion(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var r *request
		var e *Error
		if err := reference.CheckAllocBound(len(body), 64, func() { r, e = decodeCompletion(body, testLimits) }); err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, body, r, e)
	})
}
