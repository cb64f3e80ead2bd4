package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Error is an error the server answers with: an HTTP status and OpenAI's error object,
//
//	{"error": {"message": "...", "type": "invalid_request_error", "param": "temperature", "code": null}}
//
// which the OpenAI clients turn into their own error type (openai-go's *openai.Error, with
// StatusCode, Type, Param and Code). RetryAfter, when not zero, is sent as the Retry-After header
// (seconds) with a 429 or 503.
type Error struct {
	Status     int    `json:"-"`
	Message    string `json:"message"`
	Type       string `json:"type"`
	Param      string `json:"param,omitempty"`
	Code       string `json:"code,omitempty"`
	RetryAfter int    `json:"-"`
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%d %s: %s (param %s)", e.Status, e.Type, e.Message, e.Param)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message)
}

// The error types and codes, as OpenAI's API names them.
const (
	typeInvalid    = "invalid_request_error"
	typeAuth       = "authentication_error"
	typeNotFound   = "not_found_error"
	typeRateLimit  = "rate_limit_error"
	typeServer     = "server_error"
	typeOverloaded = "service_unavailable_error"

	codeContextLength = "context_length_exceeded"
	codeUnsupported   = "unsupported_parameter"
	codeUnknownParam  = "unknown_parameter"
	codeInvalidValue  = "invalid_value"
	codeInvalidJSON   = "invalid_json"
	codeTooLarge      = "request_too_large"
	codeBodyTimeout   = "request_timeout"
	codeQueueFull     = "queue_full"
	codeShuttingDown  = "shutting_down"
	codeModelNotFound = "model_not_found"
	codeInvalidKey    = "invalid_api_key"
)

// invalid is a 400 for one parameter.
func invalid(param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidValue, Param: param, Message: fmt.Sprintf(format, args...)}
}

// unsupported is a 400 for a parameter this server does not implement.
func unsupported(param, what string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeUnsupported, Param: param,
		Message: fmt.Sprintf("%s: %s is not supported by this server", param, what)}
}

// writeError answers with e as OpenAI's error JSON.
func writeError(w http.ResponseWriter, e *Error) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	w.WriteHeader(e.Status)
	b, _ := json.Marshal(struct {
		Error *errorBody `json:"error"`
	}{e.body()})
	w.Write(append(b, '\n'))
}

// errorBody is the JSON of an Error; param and code are null when empty, as OpenAI sends them.
type errorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (e *Error) body() *errorBody {
	b := &errorBody{Message: e.Message, Type: e.Type}
	if e.Param != "" {
		b.Param = &e.Param
	}
	if e.Code != "" {
		b.Code = &e.Code
	}
	return b
}
