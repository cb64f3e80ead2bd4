package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// The request decoder: a body of POST /v1/chat/completions or /v1/completions in, a request out
// or an *Error that names the parameter at fault. It is a pure function of the bytes and the
// server's limits (no model, no tokenizer), so that it can be fuzzed on its own (fuzz_test.go).
//
// It follows OpenAI's API reference for the fields it reads and the values they take; fields it
// does not know are ignored, as the OpenAI clients send many (user, metadata, store, ...), unless
// the name is a slip from one it reads ("temprature", misspelled.go); fields it knows but does
// not implement (n > 1, logprobs, penalties, tools) are refused with a 400 rather than silently
// ignored, so that a client never gets something other than what it asked.
// Two fields that OpenAI does not have come from the servers learners meet next (vLLM,
// llama.cpp's llama-server): top_k and min_p, and chat_template_kwargs.enable_thinking to turn
// Qwen3's thinking on or off per request.

// limits are the server's settings the decoder checks a request against.
type limits struct {
	model            string // the served model's id: "model" must be it, or empty
	maxTokens        int    // the largest max_tokens accepted
	defaultMaxTokens int    // max_tokens when the request gives none
	thinking         bool   // enable_thinking when the request does not say
}

// maxStops is the most stop strings a request may give (OpenAI's limit), and maxStopBytes the
// longest one: the reply's last maxStopBytes-1 bytes are held back while they could start one.
const (
	maxStops     = 4
	maxStopBytes = 256
)

// request is a decoded and checked request: everything the server needs to run it besides the
// prompt's token ids, which the server makes from messages or prompt with the tokenizer.
type request struct {
	chat      bool
	messages  []tokenizer.Message // chat: the conversation
	thinking  bool                // chat: Qwen3's thinking on
	prompt    string              // completions: the text to continue
	promptIDs []int               // completions: or the token ids to continue (checked against the vocabulary later)

	temperature, topP, minP *float64 // nil: the checkpoint's recommendation
	topK                    *int
	seed                    *int64 // nil: a random seed
	maxTokens               int
	stop                    []string
	stream, includeUsage    bool
}

// wireCommon are the fields both endpoints share, as the JSON has them.
type wireCommon struct {
	Model               *string         `json:"model"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	TopK                *int            `json:"top_k"`
	MinP                *float64        `json:"min_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int64          `json:"seed"`
	N                   *int            `json:"n"`
	Stream              *bool           `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage *bool `json:"include_usage"`
	} `json:"stream_options"`
	Logprobs         json.RawMessage    `json:"logprobs"` // a bool for chat, an integer for completions
	TopLogprobs      *int               `json:"top_logprobs"`
	PresencePenalty  *float64           `json:"presence_penalty"`
	FrequencyPenalty *float64           `json:"frequency_penalty"`
	LogitBias        map[string]float64 `json:"logit_bias"`
}

type wireChat struct {
	wireCommon
	Messages           []wireMessage   `json:"messages"`
	Tools              json.RawMessage `json:"tools"`
	ResponseFormat     json.RawMessage `json:"response_format"`
	ChatTemplateKwargs *struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"` // a string, an array of parts, or null
	ReasoningContent *string         `json:"reasoning_content"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
}

type wireCompletion struct {
	wireCommon
	Prompt json.RawMessage `json:"prompt"` // a string, or one string, or token ids, in an array
	Echo   *bool           `json:"echo"`
	Suffix *string         `json:"suffix"`
	BestOf *int            `json:"best_of"`
}

// decodeChat decodes and checks the body of POST /v1/chat/completions.
func decodeChat(body []byte, l limits) (*request, *Error) {
	var w wireChat
	if e := decodeJSON(body, &w); e != nil {
		return nil, e
	}
	if e := misspelled(body, w); e != nil {
		return nil, e
	}
	r := &request{chat: true, thinking: l.thinking}
	if e := w.wireCommon.check(r, l, "bool"); e != nil {
		return nil, e
	}
	if len(w.Messages) == 0 {
		return nil, invalid("messages", "messages must hold at least one message")
	}
	if !isNull(w.Tools) && !bytes.Equal(bytes.TrimSpace(w.Tools), []byte("[]")) {
		return nil, unsupported("tools", "tool calling")
	}
	if !isNull(w.ResponseFormat) {
		var f struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(w.ResponseFormat, &f); err != nil || f.Type != "text" {
			return nil, unsupported("response_format", "a response format other than {\"type\": \"text\"}")
		}
	}
	if k := w.ChatTemplateKwargs; k != nil && k.EnableThinking != nil {
		r.thinking = *k.EnableThinking
	}
	for i, m := range w.Messages {
		param := fmt.Sprintf("messages[%d]", i)
		role := m.Role
		switch role {
		case "developer": // OpenAI's newer name for the system message
			role = "system"
		case "system", "user", "assistant", "tool":
		case "":
			return nil, invalid(param+".role", "%s has no role (system, developer, user, assistant or tool)", param)
		default:
			return nil, invalid(param+".role", "%s.role %q is not one of system, developer, user, assistant, tool", param, m.Role)
		}
		if !isNull(m.ToolCalls) && !bytes.Equal(bytes.TrimSpace(m.ToolCalls), []byte("[]")) {
			return nil, unsupported(param+".tool_calls", "tool calling")
		}
		text, e := messageText(m.Content, param+".content", role == "assistant")
		if e != nil {
			return nil, e
		}
		msg := tokenizer.Message{Role: role, Content: text}
		if m.ReasoningContent != nil && role == "assistant" {
			msg.ReasoningContent = m.ReasoningContent
		}
		r.messages = append(r.messages, msg)
	}
	return r, nil
}

// messageText reads a message's content: a string, or an array of text parts
// ([{"type": "text", "text": "..."}], joined with newlines as OpenAI does); null only for an
// assistant message (one that called tools, which this server refuses anyway).
func messageText(raw json.RawMessage, param string, assistant bool) (string, *Error) {
	if isNull(raw) {
		if assistant {
			return "", nil
		}
		return "", invalid(param, "%s is missing: a string or an array of text parts", param)
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", invalid(param, "%s: %v", param, err)
		}
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", invalid(param, "%s must be a string or an array of text parts", param)
	}
	texts := make([]string, 0, len(parts))
	for i, p := range parts {
		switch {
		case p.Type != "text":
			return "", unsupported(fmt.Sprintf("%s[%d].type", param, i), fmt.Sprintf("a content part of type %q (only \"text\")", p.Type))
		case p.Text == nil:
			return "", invalid(fmt.Sprintf("%s[%d].text", param, i), "%s[%d] has no text", param, i)
		}
		texts = append(texts, *p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// decodeCompletion decodes and checks the body of POST /v1/completions.
func decodeCompletion(body []byte, l limits) (*request, *Error) {
	var w wireCompletion
	if e := decodeJSON(body, &w); e != nil {
		return nil, e
	}
	if e := misspelled(body, w); e != nil {
		return nil, e
	}
	r := &request{}
	if e := w.wireCommon.check(r, l, "int"); e != nil {
		return nil, e
	}
	switch {
	case w.Echo != nil && *w.Echo:
		return nil, unsupported("echo", "echo")
	case w.Suffix != nil && *w.Suffix != "":
		return nil, unsupported("suffix", "a suffix (fill in the middle)")
	case w.BestOf != nil && *w.BestOf != 1:
		return nil, unsupported("best_of", "best_of other than 1")
	}
	if isNull(w.Prompt) {
		return nil, invalid("prompt", "prompt is missing: a string, or token ids")
	}
	// A string; an array of one string; an array of token ids; an array of one array of ids.
	var s string
	if err := json.Unmarshal(w.Prompt, &s); err == nil {
		r.prompt = s
	} else {
		var many []json.RawMessage
		if err := json.Unmarshal(w.Prompt, &many); err != nil {
			return nil, invalid("prompt", "prompt must be a string, an array of one string, or an array of token ids")
		}
		switch {
		case len(many) == 0:
			return nil, invalid("prompt", "prompt is an empty array")
		case len(many) == 1 && json.Unmarshal(many[0], &s) == nil:
			r.prompt = s
		case len(many) == 1 && bytes.HasPrefix(bytes.TrimSpace(many[0]), []byte("[")):
			if err := json.Unmarshal(many[0], &r.promptIDs); err != nil {
				return nil, invalid("prompt", "prompt[0] must be an array of token ids (integers)")
			}
		default:
			if err := json.Unmarshal(w.Prompt, &r.promptIDs); err != nil {
				return nil, unsupported("prompt", "more than one prompt per request (send one request each)")
			}
		}
	}
	if r.promptIDs == nil && r.prompt == "" {
		return nil, invalid("prompt", "prompt is empty")
	}
	if r.promptIDs != nil && len(r.promptIDs) == 0 {
		return nil, invalid("prompt", "prompt is an empty array of token ids")
	}
	return r, nil
}

// check reads the fields both endpoints share into r. logprobs is "bool" for chat (logprobs:
// true asks for them) and "int" for completions (logprobs: N asks for N).
func (w *wireCommon) check(r *request, l limits, logprobs string) *Error {
	if w.Model != nil && *w.Model != "" && *w.Model != l.model {
		return &Error{Status: http.StatusNotFound, Type: typeInvalid, Code: codeModelNotFound, Param: "model",
			Message: fmt.Sprintf("the model %q does not exist: this server serves %q (GET /v1/models)", *w.Model, l.model)}
	}
	if t := w.Temperature; t != nil {
		if !(*t >= 0 && *t <= 2) {
			return invalid("temperature", "temperature %v is outside [0, 2]", *t)
		}
		r.temperature = t
	}
	if p := w.TopP; p != nil {
		if !(*p > 0 && *p <= 1) {
			return invalid("top_p", "top_p %v is outside (0, 1]", *p)
		}
		r.topP = p
	}
	if k := w.TopK; k != nil {
		if *k < -1 {
			return invalid("top_k", "top_k %d is negative (0 or -1 switch it off)", *k)
		}
		off := max(*k, 0)
		r.topK = &off
	}
	if p := w.MinP; p != nil {
		if !(*p >= 0 && *p <= 1) {
			return invalid("min_p", "min_p %v is outside [0, 1]", *p)
		}
		r.minP = p
	}
	r.seed = w.Seed
	if w.N != nil && *w.N != 1 {
		if *w.N < 1 {
			return invalid("n", "n %d must be 1", *w.N)
		}
		return unsupported("n", "more than one choice per request (n > 1)")
	}
	r.maxTokens = l.defaultMaxTokens
	param, max := "max_tokens", w.MaxTokens
	if w.MaxCompletionTokens != nil {
		if max != nil && *max != *w.MaxCompletionTokens {
			return invalid("max_completion_tokens", "max_tokens %d and max_completion_tokens %d disagree: give one", *max, *w.MaxCompletionTokens)
		}
		param, max = "max_completion_tokens", w.MaxCompletionTokens
	}
	if max != nil {
		if *max < 1 || *max > l.maxTokens {
			return invalid(param, "%s %d is outside 1..%d (this server's limit)", param, *max, l.maxTokens)
		}
		r.maxTokens = *max
	}
	stops, e := decodeStop(w.Stop)
	if e != nil {
		return e
	}
	r.stop = stops
	r.stream = w.Stream != nil && *w.Stream
	if w.StreamOptions != nil {
		if !r.stream {
			return invalid("stream_options", "stream_options is only allowed when stream is true")
		}
		r.includeUsage = w.StreamOptions.IncludeUsage != nil && *w.StreamOptions.IncludeUsage
	}
	if !isNull(w.Logprobs) {
		var on bool
		var n int
		switch {
		case logprobs == "bool" && json.Unmarshal(w.Logprobs, &on) == nil && !on:
		case logprobs == "int" && json.Unmarshal(w.Logprobs, &n) == nil && n == 0:
		default:
			return unsupported("logprobs", "log probabilities")
		}
	}
	if w.TopLogprobs != nil && *w.TopLogprobs != 0 {
		return unsupported("top_logprobs", "log probabilities")
	}
	if p := w.PresencePenalty; p != nil && *p != 0 {
		return unsupported("presence_penalty", "a presence penalty other than 0")
	}
	if p := w.FrequencyPenalty; p != nil && *p != 0 {
		return unsupported("frequency_penalty", "a frequency penalty other than 0")
	}
	if len(w.LogitBias) > 0 {
		return unsupported("logit_bias", "logit_bias")
	}
	return nil
}

// decodeStop reads "stop": null, a string, or an array of up to maxStops strings, none empty.
func decodeStop(raw json.RawMessage) ([]string, *Error) {
	if isNull(raw) {
		return nil, nil
	}
	var stops []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		stops = []string{one}
	} else if err := json.Unmarshal(raw, &stops); err != nil {
		return nil, invalid("stop", "stop must be a string or an array of strings")
	}
	if len(stops) > maxStops {
		return nil, invalid("stop", "stop holds %d strings, at most %d", len(stops), maxStops)
	}
	for i, s := range stops {
		if s == "" {
			return nil, invalid("stop", "stop[%d] is empty", i)
		}
		if len(s) > maxStopBytes {
			return nil, invalid("stop", "stop[%d] is %d bytes long, at most %d", i, len(s), maxStopBytes)
		}
	}
	return stops, nil
}

// decodeJSON decodes one JSON object into v, turning the decoder's errors into a 400 that says
// where: the byte offset of a syntax error, the field of a value of the wrong type.
func decodeJSON(body []byte, v any) *Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON, Message: "the request body is empty: it must be a JSON object"}
	}
	d := json.NewDecoder(bytes.NewReader(body))
	err := d.Decode(v)
	if err == nil {
		if _, extra := d.Token(); extra != io.EOF {
			return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON,
				Message: fmt.Sprintf("the request body holds more than one JSON value (the second starts near byte %d)", d.InputOffset())}
		}
		return nil
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON,
			Message: fmt.Sprintf("the request body is not valid JSON: %v (at byte %d)", syntax, syntax.Offset)}
	case errors.As(err, &typ) && typ.Field != "":
		field := strings.TrimPrefix(typ.Field, "wireCommon.") // the embedded struct's name is no JSON
		return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidValue, Param: field,
			Message: fmt.Sprintf("%s: expected %s, got a JSON %s (at byte %d)", field, typeName(typ), typ.Value, typ.Offset)}
	case errors.As(err, &typ):
		return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON,
			Message: fmt.Sprintf("the request body must be a JSON object, not a JSON %s", typ.Value)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON,
			Message: fmt.Sprintf("the request body ends inside its JSON (after %d bytes)", len(body))}
	}
	return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON, Message: "the request body is not valid JSON: " + err.Error()}
}

// typeName says in words what a JSON field should have held.
func typeName(e *json.UnmarshalTypeError) string {
	switch e.Type.Kind().String() {
	case "int", "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return e.Type.String()
}

// isNull reports whether a raw field was absent or null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}
