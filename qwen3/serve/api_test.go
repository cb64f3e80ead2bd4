package serve

import (
	"strings"
	"testing"
)

var testLimits = limits{model: "tiny", maxTokens: 100, defaultMaxTokens: 16, thinking: true}

func TestDecodeChat(t *testing.T) {
	r, e := decodeChat([]byte(`{"model": "tiny", "messages": [
		{"role": "developer", "content": "Be terse."},
		{"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}]},
		{"role": "assistant", "content": "Hello", "reasoning_content": "greet back"},
		{"role": "user", "content": "2+2?"}],
		"temperature": 0.5, "top_p": 0.9, "top_k": 40, "min_p": 0.05, "seed": -3, "max_completion_tokens": 7,
		"stop": "\n\n", "stream": true, "stream_options": {"include_usage": true},
		"chat_template_kwargs": {"enable_thinking": false}, "user": "ignored", "logprobs": false, "n": 1}`), testLimits)
	if e != nil {
		t.Fatal(e)
	}
	if len(r.messages) != 4 || r.messages[0].Role != "system" || r.messages[1].Content != "Hi\nthere" ||
		r.messages[2].ReasoningContent == nil || *r.messages[2].ReasoningContent != "greet back" {
		t.Errorf("messages %+v", r.messages)
	}
	if *r.temperature != 0.5 || *r.topP != 0.9 || *r.topK != 40 || *r.minP != 0.05 || *r.seed != -3 || r.maxTokens != 7 {
		t.Errorf("settings %v %v %v %v %v %d", *r.temperature, *r.topP, *r.topK, *r.minP, *r.seed, r.maxTokens)
	}
	if len(r.stop) != 1 || r.stop[0] != "\n\n" || !r.stream || !r.includeUsage || r.thinking {
		t.Errorf("stop %q stream %v usage %v thinking %v", r.stop, r.stream, r.includeUsage, r.thinking)
	}
	// Fields of OpenAI's API (and llama-server's) that change nothing here are ignored, even when
	// they look like one read ("store" like "stop"), and so is a field like no other.
	if _, e := decodeChat([]byte(`{"messages": [{"role": "user", "content": "x"}], "store": true, "metadata": {},
		"service_tier": "auto", "cache_prompt": true, "x_my_client": 1, "Temperature": 0.5}`), testLimits); e != nil {
		t.Errorf("fields to ignore: %v", e)
	}
	// The zero request: the defaults.
	r, e = decodeChat([]byte(`{"messages": [{"role": "user", "content": "x"}]}`), testLimits)
	if e != nil || r.maxTokens != 16 || !r.thinking || r.temperature != nil || r.seed != nil || r.stream {
		t.Errorf("defaults: %+v %v", r, e)
	}
}

func TestDecodeCompletion(t *testing.T) {
	for body, want := range map[string]string{
		`{"prompt": "func main"}`:   "func main",
		`{"prompt": ["func main"]}`: "func main",
	} {
		r, e := decodeCompletion([]byte(body), testLimits)
		if e != nil || r.prompt != want {
			t.Errorf("%s: %+v %v", body, r, e)
		}
	}
	for body, want := range map[string][]int{`{"prompt": [1, 2, 3]}`: {1, 2, 3}, `{"prompt": [[4, 5]]}`: {4, 5}} {
		r, e := decodeCompletion([]byte(body), testLimits)
		if e != nil || len(r.promptIDs) != len(want) || r.promptIDs[0] != want[0] {
			t.Errorf("%s: %+v %v", body, r, e)
		}
	}
}

// Every refusal is a 400 (404 for another model) naming the parameter, and its message says why.
func TestDecodeRefuses(t *testing.T) {
	chat := func(extra string) string {
		return `{"messages": [{"role": "user", "content": "x"}]` + extra + `}`
	}
	for _, c := range []struct {
		body, param, msg string
		status           int
	}{
		{``, "", "empty", 400},
		{`{"messages": [`, "", "ends inside", 400},
		{`{"messages": []}`, "messages", "at least one", 400},
		{`[1, 2]`, "", "JSON object", 400},
		{`{} {}`, "", "more than one JSON value", 400},
		{`{"messages": "hi"}`, "messages", "expected an array", 400},
		{`{"messages": [{"role": "user", "content": "x"}], "model": "gpt-4o"}`, "model", "does not exist", 404},
		{chat(`, "temperature": 2.5`), "temperature", "outside [0, 2]", 400},
		{chat(`, "temperature": "hot"`), "temperature", "expected a number", 400},
		{chat(`, "top_p": 0`), "top_p", "outside (0, 1]", 400},
		{chat(`, "top_k": -2`), "top_k", "negative", 400},
		{chat(`, "top_k": 2.5`), "top_k", "expected an integer", 400},
		{chat(`, "min_p": 1.5`), "min_p", "outside [0, 1]", 400},
		{chat(`, "max_tokens": 0`), "max_tokens", "outside 1..100", 400},
		{chat(`, "max_tokens": 101`), "max_tokens", "outside 1..100", 400},
		{chat(`, "max_tokens": 1e30`), "max_tokens", "expected an integer", 400},
		{chat(`, "max_tokens": 5, "max_completion_tokens": 6`), "max_completion_tokens", "disagree", 400},
		{chat(`, "n": 2`), "n", "n > 1", 400},
		{chat(`, "stop": ["a", "b", "c", "d", "e"]`), "stop", "at most 4", 400},
		{chat(`, "stop": [""]`), "stop", "empty", 400},
		{chat(`, "stop": 7`), "stop", "string or an array", 400},
		{chat(`, "stream_options": {"include_usage": true}`), "stream_options", "only allowed when stream", 400},
		{chat(`, "logprobs": true`), "logprobs", "not supported", 400},
		{chat(`, "presence_penalty": 0.5`), "presence_penalty", "not supported", 400},
		{chat(`, "logit_bias": {"5": 1}`), "logit_bias", "not supported", 400},
		{chat(`, "tools": [{"type": "function"}]`), "tools", "tool calling", 400},
		{chat(`, "response_format": {"type": "json_object"}`), "response_format", "not supported", 400},
		{`{"messages": [{"role": "robot", "content": "x"}]}`, "messages[0].role", "not one of", 400},
		{`{"messages": [{"content": "x"}]}`, "messages[0].role", "no role", 400},
		{`{"messages": [{"role": "user"}]}`, "messages[0].content", "missing", 400},
		{`{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}`, "messages[0].content[0].type", "image_url", 400},
		{`{"messages": [{"role": "user", "content": 5}]}`, "messages[0].content", "string or an array", 400},
		{chat(`, "temprature": 0.2`), "temprature", `did you mean "temperature"`, 400},
		{chat(`, "max-tokens": 5`), "max-tokens", `did you mean "max_tokens"`, 400},
		{chat(`, "topP": 0.5`), "topP", `did you mean "top_p"`, 400},
		{chat(`, "mesages": []`), "mesages", `did you mean "messages"`, 400},
		{chat(`, "chat_template_kwarg": {}`), "chat_template_kwarg", `did you mean "chat_template_kwargs"`, 400},
	} {
		_, e := decodeChat([]byte(c.body), testLimits)
		if e == nil {
			t.Errorf("%s: accepted, want a %d naming %q", c.body, c.status, c.param)
			continue
		}
		if e.Status != c.status || e.Param != c.param || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s:\n\tgot %d param %q: %s\n\twant %d param %q, a message with %q", c.body, e.Status, e.Param, e.Message, c.status, c.param, c.msg)
		}
	}
	for _, c := range []struct{ body, param, msg string }{
		{`{}`, "prompt", "missing"},
		{`{"prompt": ""}`, "prompt", "empty"},
		{`{"prompt": []}`, "prompt", "empty array"},
		{`{"prompt": ["a", "b"]}`, "prompt", "more than one prompt"},
		{`{"prompt": [[]]}`, "prompt", "empty array of token ids"},
		{`{"prompt": {"text": "a"}}`, "prompt", "must be a string"},
		{`{"prompt": "a", "echo": true}`, "echo", "not supported"},
		{`{"prompt": "a", "logprobs": 2}`, "logprobs", "not supported"},
		{`{"prompt": "a", "best_of": 3}`, "best_of", "not supported"},
		{`{"prompt": "a", "max_token": 3}`, "max_token", `did you mean "max_tokens"`},
		{`{"prompt": "a", "prompts": "b"}`, "prompts", `did you mean "prompt"`},
	} {
		_, e := decodeCompletion([]byte(c.body), testLimits)
		if e == nil || e.Status != 400 || e.Param != c.param || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: %v, want a 400 naming %q with %q", c.body, e, c.param, c.msg)
		}
	}
}
