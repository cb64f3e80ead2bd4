package viz

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
)

//go:embed static
var static embed.FS

// Options configure the page. The zero Options is ready to use.
type Options struct {
	// Name is the model's name on the page.
	Name string
	// Note is a line the page shows under its title (what the model is, what to expect).
	Note string
	// Complete starts the page in completion mode (the text box's text is continued as it
	// is) rather than chat mode (a conversation in Qwen3's chat template): for a model that was
	// never trained on the template, as the course's tiny one.
	Complete bool
	// Thinking is the page's first setting of Qwen3's thinking mode, for chat mode.
	Thinking bool
	// Settings are the page's first sampling settings; nil means the checkpoint's
	// (Model.DefaultSettings(0)).
	Settings *sampling.Settings
	// MaxTokens is the page's first token budget per reply: 0 means 200.
	MaxTokens int
	// MaxContext is the context of each reply, prompt and reply together: 0 means
	// min(qwen3.DefaultMaxContext, the model's).
	MaxContext int
	// Top is how many candidates each step's chart shows: 0 means DefaultTop (20).
	Top int
	// WriteTimeout bounds each write to a page (a step, a piece of text): a page that reads
	// nothing for that long is dropped and its reply stopped. 0 means 30 s.
	WriteTimeout time.Duration
}

// Limits of a request to the page's API.
const (
	maxBody      = 1 << 20 // bytes of a request
	maxTokensCap = 4096    // the largest budget a request may ask for
)

// Handler returns the page and its API, to serve at the root of a server or under a prefix
// (http.StripPrefix: every URL the page uses is relative):
//
//	GET  /              the page (HTML, CSS and script embedded in the binary: no network needed)
//	GET  /static/...    its files
//	GET  /api/info      the model's name, vocabulary, context and the page's first settings (JSON)
//	POST /api/generate  one reply as server-sent events (see the package documentation)
//
// One reply runs at a time: a second request while one runs gets 429. A page that goes away
// stops its reply at the next step.
func Handler(m *qwen3.Model, o Options) http.Handler {
	if o.MaxTokens <= 0 {
		o.MaxTokens = 200
	}
	if o.Top <= 0 {
		o.Top = DefaultTop
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	ctxLen := o.MaxContext
	if ctxLen <= 0 {
		ctxLen = min(qwen3.DefaultMaxContext, m.Config().MaxPositionEmbeddings)
	}
	s := &server{m: m, o: o, ctxLen: ctxLen, mux: http.NewServeMux()}
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic(err)
	}
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(index)
	})
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	s.mux.HandleFunc("GET /api/info", s.info)
	s.mux.HandleFunc("POST /api/generate", s.generate)
	return s.mux
}

type server struct {
	m      *qwen3.Model
	o      Options
	ctxLen int
	mux    *http.ServeMux
	mu     sync.Mutex
	busy   bool
}

// Info is what GET /api/info answers.
type Info struct {
	Name       string   `json:"name"`
	Note       string   `json:"note"`
	Vocab      int      `json:"vocab"`
	Context    int      `json:"context"` // tokens of each reply's context
	Mode       string   `json:"mode"`    // the page's first mode: "chat" or "complete"
	Thinking   bool     `json:"thinking"`
	Settings   Settings `json:"settings"`    // the page's first settings
	Default    Settings `json:"default"`     // the checkpoint's recommendation
	MaxTokens  int      `json:"max_tokens"`  // the page's first budget
	MaxAllowed int      `json:"max_allowed"` // the largest budget a request may ask for
	Top        int      `json:"top"`
}

func (s *server) info(w http.ResponseWriter, r *http.Request) {
	def := s.m.DefaultSettings(0)
	first := def
	if s.o.Settings != nil {
		first = *s.o.Settings
	}
	mode := "chat"
	if s.o.Complete {
		mode = "complete"
	}
	name := s.o.Name
	if name == "" {
		name = "Qwen3 (" + s.m.Source() + ")"
	}
	writeJSON(w, http.StatusOK, Info{
		Name: name, Note: s.o.Note, Vocab: s.m.Config().VocabSize, Context: s.ctxLen, Mode: mode,
		Thinking: s.o.Thinking, Settings: SettingsOf(first), Default: SettingsOf(def),
		MaxTokens: s.o.MaxTokens, MaxAllowed: min(maxTokensCap, s.ctxLen), Top: s.o.Top,
	})
}

// Request is the body of POST /api/generate.
type Request struct {
	Mode      string    `json:"mode"`     // "chat" or "complete"
	Prompt    string    `json:"prompt"`   // complete: the text to continue
	Messages  []Message `json:"messages"` // chat: the conversation so far, ending with the user's message
	System    string    `json:"system"`   // chat: the system prompt, "" for none
	Think     bool      `json:"think"`    // chat: Qwen3's thinking mode
	Settings  Settings  `json:"settings"`
	MaxTokens int       `json:"max_tokens"`
}

// Message is one turn of a chat request.
type Message struct {
	Role    string `json:"role"` // "user" or "assistant"
	Content string `json:"content"`
}

// prompt checks the request and returns the text to continue.
func (q *Request) prompt(maxAllowed int) (string, error) {
	if err := q.Settings.Sampling().Validate(); err != nil {
		return "", err
	}
	if q.MaxTokens < 1 || q.MaxTokens > maxAllowed {
		return "", fmt.Errorf("max_tokens %d: must be in 1..%d", q.MaxTokens, maxAllowed)
	}
	switch q.Mode {
	case "complete":
		if strings.TrimSpace(q.Prompt) == "" {
			return "", errors.New("the prompt is empty")
		}
		return q.Prompt, nil
	case "chat":
		if len(q.Messages) == 0 || q.Messages[len(q.Messages)-1].Role != "user" {
			return "", errors.New("a chat request ends with the user's message")
		}
		var msgs []tokenizer.Message
		if q.System != "" {
			msgs = append(msgs, tokenizer.Message{Role: "system", Content: q.System})
		}
		for i, m := range q.Messages {
			if m.Role != "user" && m.Role != "assistant" {
				return "", fmt.Errorf("message %d: role %q (user or assistant)", i, m.Role)
			}
			if m.Role == "user" && strings.TrimSpace(m.Content) == "" {
				return "", fmt.Errorf("message %d: the user's message is empty", i)
			}
			msgs = append(msgs, tokenizer.Message{Role: m.Role, Content: m.Content})
		}
		return tokenizer.ApplyChatTemplate(msgs, tokenizer.ChatOptions{AddGenerationPrompt: true, EnableThinking: tokenizer.Bool(q.Think)})
	}
	return "", fmt.Errorf("mode %q: chat or complete", q.Mode)
}

// The data of the stream's events besides "step" (an Event).
type (
	// PromptEvent lists the prompt's tokens, given, not drawn: the "prompt" event, first.
	PromptEvent struct {
		Tokens []PromptToken `json:"tokens"`
	}
	// PromptToken is one token of the prompt.
	PromptToken struct {
		ID    int    `json:"id"`
		Token string `json:"token"`
	}
	// TextEvent is a piece of the reply's text, whole UTF-8 characters: the "text" event.
	TextEvent struct {
		Text string `json:"text"`
	}
	// DoneEvent ends a reply that ran: the "done" event, last.
	DoneEvent struct {
		Finish       string  `json:"finish"` // qwen3.Finish: stop, length, context, cancelled
		PromptTokens int     `json:"prompt_tokens"`
		NewTokens    int     `json:"new_tokens"`
		FirstTokenMS float64 `json:"first_token_ms"`
		DecodeRate   float64 `json:"decode_tok_s"` // with the page's events made at every step
	}
	// ErrorEvent ends a reply that failed: the "error" event, last.
	ErrorEvent struct {
		Error string `json:"error"`
	}
)

func (s *server) generate(w http.ResponseWriter, r *http.Request) {
	var q Request
	d := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	d.DisallowUnknownFields()
	if err := d.Decode(&q); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, ErrorEvent{fmt.Sprintf("the request is over %d bytes", maxBody)})
			return
		}
		writeJSON(w, http.StatusBadRequest, ErrorEvent{"the request is not the JSON the page sends: " + err.Error()})
		return
	}
	maxAllowed := min(maxTokensCap, s.ctxLen)
	prompt, err := q.prompt(maxAllowed)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, ErrorEvent{err.Error()})
		return
	}
	s.mu.Lock()
	if s.busy {
		s.mu.Unlock()
		writeJSON(w, http.StatusTooManyRequests, ErrorEvent{"another reply is being generated: stop it or wait for it"})
		return
	}
	s.busy = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var sendErr error
	send := func(event string, data any) {
		if sendErr != nil {
			return
		}
		b, err := json.Marshal(data)
		if err == nil {
			rc.SetWriteDeadline(time.Now().Add(s.o.WriteTimeout))
			if _, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err == nil {
				err = rc.Flush()
			}
		}
		if err != nil {
			sendErr = err
			cancel() // the page is gone or stuck: stop the reply at the next step
		}
	}

	tok := s.m.Tokenizer()
	ids := tok.Encode(prompt)
	pe := PromptEvent{Tokens: make([]PromptToken, len(ids))}
	for i, id := range ids {
		pe.Tokens[i] = PromptToken{ID: id, Token: TokenText(tok, id)}
	}
	send("prompt", pe)
	var eventErr error
	opts := qwen3.ReplyOptions{
		Sampling:     qwen3.SamplingFrom(q.Settings.Sampling()),
		MaxNewTokens: q.MaxTokens,
		MaxContext:   s.ctxLen,
		OnStep: func(st qwen3.Step) {
			e, err := NewEvent(st, tok, s.o.Top)
			if err != nil {
				if eventErr == nil {
					eventErr = err
					cancel()
				}
				return
			}
			send("step", e)
		},
	}
	_, stats, err := s.m.Generate(ctx, prompt, opts, func(piece string) error {
		send("text", TextEvent{piece})
		return nil
	})
	switch {
	case eventErr != nil:
		send("error", ErrorEvent{eventErr.Error()})
	case err != nil && !errors.Is(err, context.Canceled):
		send("error", ErrorEvent{strings.TrimPrefix(err.Error(), "qwen3: ")})
	default:
		send("done", DoneEvent{
			Finish: string(stats.Finish), PromptTokens: stats.PromptTokens, NewTokens: stats.NewTokens,
			FirstTokenMS: float64(stats.FirstToken.Microseconds()) / 1e3, DecodeRate: stats.DecodeRate(),
		})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
