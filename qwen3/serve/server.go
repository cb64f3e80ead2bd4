package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/qwen3"
)

// Config sets up a Server. The zero Config serves the model as "qwen3" with 4 slots of
// min(4096, the model's context) tokens each, continuous batching and chunked prefill, no API
// key; every zero field means its default, written beside it.
type Config struct {
	// Model is the id clients give as "model" and GET /v1/models lists; "" means "qwen3". A
	// request naming another model gets a 404 (model_not_found); one naming none is served.
	Model string
	// Slots is how many requests run at once, each with its own KV cache of Context tokens
	// (prompt and reply), decoded together one token per step: 0 means 4; at most 128.
	Slots int
	// Context is the tokens of one slot's cache: 0 means min(qwen3.DefaultMaxContext, the
	// model's context). A longer prompt is refused (400, context_length_exceeded); a reply that
	// fills the rest ends with finish_reason "length".
	Context int
	// Queue is how many requests may wait for a free slot beyond the Slots running: 0 means
	// 4 x Slots, a negative number none. A request beyond it gets a 429 with Retry-After.
	Queue int
	// PrefillChunk is the most prompt tokens run in one pass, so that a long prompt does not
	// stall the running replies; in a decoding step's pass StepTokens bounds the chunk further.
	// 0 means 64; a negative number runs each prompt whole, in a pass of its own (no chunking:
	// the comparison notebook 13 draws).
	PrefillChunk int
	// StepTokens bounds a step's pass, the decoding tokens and a prompt's chunk together (vLLM's
	// max_num_batched_tokens): the chunk takes what the decoding tokens leave, at least 8. A
	// pass's time grows with its tokens, so this bounds the inter-token latency of the running
	// replies while prompts arrive, at the cost of a prompt's time to its first token. 0 means
	// 32; a negative number, only the engine's limit (128).
	StepTokens int
	// Static makes batching static, as chapter 10's: requests are admitted only when every
	// slot is free, and the batch decodes until its last reply ends. For comparison only.
	Static bool
	// MaxTokens is the largest max_tokens a request may ask for: 0 means Context.
	// DefaultMaxTokens is what a request that gives none gets: 0 means
	// min(qwen3.DefaultMaxNewTokens, MaxTokens).
	MaxTokens, DefaultMaxTokens int
	// MaxBodyBytes bounds a request's body: 0 means 4 MiB. A larger one gets a 413.
	MaxBodyBytes int64
	// Thinking is Qwen3's thinking mode for chat requests that do not set
	// chat_template_kwargs.enable_thinking.
	Thinking bool
	// APIKey, when set, is required of every request but GET /health, as OpenAI's
	// "Authorization: Bearer KEY" (a 401 otherwise).
	APIKey string
	// ReadHeaderTimeout bounds reading a request's headers, BodyTimeout its body, WriteTimeout
	// each write of a reply (a client that reads nothing for that long is dropped and its slot
	// freed), IdleTimeout a kept-alive connection between requests: 0 means 10 s, 30 s, 30 s and
	// 60 s.
	ReadHeaderTimeout, BodyTimeout, WriteTimeout, IdleTimeout time.Duration
	// OnStep, when not nil, is called on the scheduler's goroutine for every token chosen (see
	// StepEvent); it must return quickly, as every running reply waits for it.
	OnStep func(StepEvent)
	// Log receives a line per request and the server's own events; nil logs nothing.
	Log *slog.Logger
}

// defaultStepTokens is Config.StepTokens' default: see its doc and notebook 13.
const defaultStepTokens = 32

// withDefaults fills the zero fields and checks the rest against the model.
func (c Config) withDefaults(modelContext int) (Config, error) {
	if c.Model == "" {
		c.Model = "qwen3"
	}
	if c.Slots == 0 {
		c.Slots = 4
	}
	if c.Slots < 1 || c.Slots > 128 {
		return c, fmt.Errorf("serve: %d slots: must be in 1..128", c.Slots)
	}
	if c.Context == 0 {
		c.Context = min(qwen3.DefaultMaxContext, modelContext)
	}
	if c.Context < 2 || c.Context > modelContext {
		return c, fmt.Errorf("serve: a context of %d tokens: must be in 2..%d (the model's)", c.Context, modelContext)
	}
	switch {
	case c.Queue == 0:
		c.Queue = 4 * c.Slots
	case c.Queue < 0:
		c.Queue = 0
	}
	switch {
	case c.PrefillChunk == 0:
		c.PrefillChunk = 64
	case c.PrefillChunk < 0:
		c.PrefillChunk = 0 // the scheduler's "whole prompt"
	}
	switch {
	case c.StepTokens == 0:
		c.StepTokens = defaultStepTokens
	case c.StepTokens < 0:
		c.StepTokens = 0 // the scheduler's "the engine's limit"
	case c.StepTokens > 128:
		return c, fmt.Errorf("serve: StepTokens %d: at most 128, the most tokens of one pass (a negative number for that limit)", c.StepTokens)
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = c.Context
	}
	if c.MaxTokens < 1 {
		return c, fmt.Errorf("serve: MaxTokens %d: must be at least 1", c.MaxTokens)
	}
	if c.DefaultMaxTokens == 0 {
		c.DefaultMaxTokens = min(qwen3.DefaultMaxNewTokens, c.MaxTokens)
	}
	if c.DefaultMaxTokens < 1 || c.DefaultMaxTokens > c.MaxTokens {
		return c, fmt.Errorf("serve: DefaultMaxTokens %d: must be in 1..%d (MaxTokens)", c.DefaultMaxTokens, c.MaxTokens)
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 4 << 20
	}
	if c.MaxBodyBytes < 1 {
		return c, fmt.Errorf("serve: MaxBodyBytes %d: must be positive", c.MaxBodyBytes)
	}
	for _, d := range []struct {
		t   *time.Duration
		def time.Duration
	}{{&c.ReadHeaderTimeout, 10 * time.Second}, {&c.BodyTimeout, 30 * time.Second}, {&c.WriteTimeout, 30 * time.Second}, {&c.IdleTimeout, 60 * time.Second}} {
		if *d.t <= 0 {
			*d.t = d.def
		}
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Server serves one model over OpenAI's HTTP API. Make one with New; Serve serves it on a
// listener, or Handler gives its http.Handler to a server of your own.
type Server struct {
	cfg     Config
	m       *qwen3.Model
	tok     *tokenizer.Tokenizer
	stops   []int
	vocab   int
	sched   *scheduler
	mux     *http.ServeMux
	limits  limits
	created int64
	idBase  string
	ids     atomic.Uint64

	mu      sync.Mutex
	servers []*http.Server // started by Serve
	closing atomic.Bool
	active  atomic.Int64 // requests in a handler
}

// New makes a server for m, which it uses from then on (the scheduler's goroutine runs the
// model; the caller must not close m before the server's Shutdown or Close has returned).
func New(m *qwen3.Model, cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults(modelContext(m))
	if err != nil {
		return nil, err
	}
	eng, err := newModelEngine(m, cfg.Slots, cfg.Context)
	if err != nil {
		return nil, err
	}
	var b [6]byte
	rand.Read(b[:])
	s := &Server{
		cfg: cfg, m: m, tok: modelTokenizer(m), stops: modelStops(m), vocab: eng.vocab(),
		created: time.Now().Unix(), idBase: hex.EncodeToString(b[:]),
		limits: limits{model: cfg.Model, maxTokens: cfg.MaxTokens, defaultMaxTokens: cfg.DefaultMaxTokens, thinking: cfg.Thinking},
	}
	s.sched = newScheduler(eng, s.tok, cfg.PrefillChunk, cfg.Queue, cfg.Static, cfg.OnStep)
	s.sched.budget = cfg.StepTokens
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, true) })
	s.mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, false) })
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("GET /v1/models/{id...}", s.model)
	s.mux.HandleFunc("GET /health", s.health)
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// Config returns the server's settings, its defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// Stats returns the scheduler's totals and state.
func (s *Server) Stats() Stats { return s.sched.snapshot() }

// Handle adds a route of your own to the server (a page, say) beside the API, behind the same
// API key; pattern is http.ServeMux's. Call it before serving.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Handler returns the server's http.Handler: the API, the routes added by Handle, the API key's
// check. Serve uses it; a program with a server of its own can mount it.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.active.Add(1)
		defer s.active.Add(-1)
		lw := &logWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.cfg.WriteTimeout}
		defer s.log(r, lw, time.Now())
		if s.cfg.APIKey != "" && r.URL.Path != "/health" {
			if e := s.unauthorized(r); e != nil {
				writeError(lw, e)
				return
			}
		}
		s.mux.ServeHTTP(lw, r)
	})
}

// unauthorized returns the 401 for a request without the API key, saying what is missing or
// wrong: no Authorization header, no scheme or another than Bearer (whose name is read regardless
// of case, as RFC 9110 says), or another key. The key is never shown.
func (s *Server) unauthorized(r *http.Request) *Error {
	e := &Error{Status: http.StatusUnauthorized, Type: typeAuth, Code: codeInvalidKey}
	header := r.Header.Get("Authorization")
	scheme, key, spaced := strings.Cut(strings.TrimSpace(header), " ")
	switch {
	case header == "":
		e.Message = "this server requires an API key: send the header \"Authorization: Bearer KEY\""
	case !spaced: // perhaps the bare key: not echoed
		e.Message = "the Authorization header holds no scheme: send \"Authorization: Bearer KEY\""
	case !strings.EqualFold(scheme, "Bearer"):
		e.Message = fmt.Sprintf("the Authorization header's scheme is %q: send \"Authorization: Bearer KEY\"", scheme)
	case subtle.ConstantTimeCompare([]byte(strings.TrimSpace(key)), []byte(s.cfg.APIKey)) != 1:
		e.Message = "the API key in the Authorization header is not this server's"
	default:
		return nil
	}
	return e
}

// Serve accepts connections on ln and serves them until Shutdown or Close; it then returns
// http.ErrServerClosed.
func (s *Server) Serve(ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		// The deadline of the writes the server makes itself (an error before the handler runs,
		// the end of a reply after it returns), set as each request's headers are read; the
		// handlers' writes move it on (logWriter), so it bounds a stalled client, not a reply.
		WriteTimeout:   s.cfg.WriteTimeout,
		IdleTimeout:    s.cfg.IdleTimeout,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelDebug),
	}
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.servers = append(s.servers, hs)
	s.mu.Unlock()
	return hs.Serve(ln)
}

// Shutdown stops the server gracefully: it stops listening, answers new requests with 503, lets
// the running and waiting replies finish, and returns when they have. If ctx ends first, the
// replies still running are ended (a streamed one gets an error event), the connections closed,
// and Shutdown returns ctx's error. The model is no longer used when Shutdown returns.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	s.sched.close()
	s.mu.Lock()
	servers := s.servers
	s.mu.Unlock()
	errs := make(chan error, len(servers))
	for _, hs := range servers {
		go func() { errs <- hs.Shutdown(ctx) }()
	}
	var err error
	for range servers {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	select {
	case <-s.sched.done:
	case <-ctx.Done():
		s.sched.abort()
		<-s.sched.done
		if err == nil {
			err = ctx.Err()
		}
	}
	if err != nil {
		s.handlersDone(time.Second)
		for _, hs := range servers {
			hs.Close()
		}
	}
	return err
}

// handlersDone waits up to limit for the handlers to return: the replies the scheduler ended
// are writing their last event, which closing the connections now would cut (an OpenAI client
// would read "unexpected EOF" rather than the server's error). A client that reads nothing
// holds its handler until its write times out; the limit bounds the wait for it.
func (s *Server) handlersDone(limit time.Duration) {
	for deadline := time.Now().Add(limit); s.active.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// Close ends every reply and connection now (a streamed reply gets an error event). The model is no longer used when it returns.
func (s *Server) Close() error {
	s.closing.Store(true)
	s.sched.abort()
	<-s.sched.done
	s.handlersDone(time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, hs := range s.servers {
		if e := hs.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// newID returns a response id: prefix, this server's random base, a counter.
func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%s-%s%x", prefix, s.idBase, s.ids.Add(1))
}

// complete serves POST /v1/chat/completions (chat) and /v1/completions.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, chat bool) {
	if s.closing.Load() {
		writeError(w, shuttingDown())
		return
	}
	body, e := s.readBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	var req *request
	if chat {
		req, e = decodeChat(body, s.limits)
	} else {
		req, e = decodeCompletion(body, s.limits)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	prompt, e := s.promptIDs(req)
	if e != nil {
		writeError(w, e)
		return
	}
	seed := mrand.Uint64()
	if req.seed != nil {
		seed = uint64(*req.seed)
	}
	settings, err := modelSettings(s.m, req, seed)
	if err != nil {
		e := invalid("", "%s", strings.TrimPrefix(err.Error(), "qwen3: "))
		writeError(w, e)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	prefix := "cmpl"
	if chat {
		prefix = "chatcmpl"
	}
	j := newJob(ctx, s.newID(prefix), prompt)
	j.settings, j.maxTokens, j.stops, j.stopIDs = settings, req.maxTokens, req.stop, s.stops
	if err := s.sched.submit(j); err != nil {
		e := shuttingDown()
		if errors.Is(err, errQueueFull) {
			e = &Error{Status: http.StatusTooManyRequests, Type: typeRateLimit, Code: codeQueueFull, RetryAfter: 1,
				Message: fmt.Sprintf("every slot (%d) is busy and the queue (%d) is full: retry later", s.cfg.Slots, s.cfg.Queue)}
		}
		writeError(w, e)
		return
	}
	rw := &replyWriter{w: w, rc: http.NewResponseController(w),
		id: j.id, model: s.cfg.Model, created: time.Now().Unix(), chat: chat, includeUsage: req.includeUsage}
	var status int
	if req.stream {
		status = s.stream(ctx, rw, j)
	} else {
		status = s.wait(ctx, rw, j)
	}
	if lw, ok := w.(*logWriter); ok {
		u, _ := j.result()
		lw.outcome, lw.usage = status, &u
	}
}

func shuttingDown() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Type: typeOverloaded, Code: codeShuttingDown, RetryAfter: 5,
		Message: "the server is shutting down"}
}

// readBody reads the request's body within MaxBodyBytes and BodyTimeout.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *Error) {
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return nil, tooLarge(s.cfg.MaxBodyBytes)
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err == nil {
		rc.SetReadDeadline(time.Time{})
	}
	// Otherwise the deadline stays: before it answers, net/http reads what is left of a body
	// the handler did not finish, and a client stalled in its body would hold it there for
	// good; with the deadline passed, that read fails at once and the connection is closed.
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, tooLarge(s.cfg.MaxBodyBytes)
	case errors.Is(err, os.ErrDeadlineExceeded):
		of := ""
		if r.ContentLength > 0 {
			of = fmt.Sprintf(" of the %d its Content-Length says", r.ContentLength)
		}
		return nil, &Error{Status: http.StatusRequestTimeout, Type: typeInvalid, Code: codeBodyTimeout,
			Message: fmt.Sprintf("the request body did not arrive within %v: %d bytes came%s", s.cfg.BodyTimeout, len(body), of)}
	case err != nil:
		return nil, &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeInvalidJSON,
			Message: fmt.Sprintf("reading the request body: %v (after %d bytes)", err, len(body))}
	}
	return body, nil
}

func tooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Type: typeInvalid, Code: codeTooLarge,
		Message: fmt.Sprintf("the request body is over this server's limit of %d bytes", limit)}
}

// promptIDs makes the prompt's token ids: the chat template over the messages, or the
// completion's text, or its ids checked against the vocabulary; and checks that they fit a slot.
func (s *Server) promptIDs(req *request) ([]int, *Error) {
	var ids []int
	switch {
	case req.chat:
		text, err := tokenizer.ApplyChatTemplate(req.messages, tokenizer.ChatOptions{
			AddGenerationPrompt: true, EnableThinking: tokenizer.Bool(req.thinking)})
		if err != nil {
			return nil, invalid("messages", "%v", err)
		}
		ids = s.tok.Encode(text)
	case req.promptIDs != nil:
		for i, id := range req.promptIDs {
			if id < 0 || id >= s.vocab {
				return nil, invalid("prompt", "prompt[%d] = %d is not a token id (0..%d)", i, id, s.vocab-1)
			}
		}
		ids = req.promptIDs
	default:
		ids = s.tok.Encode(req.prompt)
	}
	if len(ids) == 0 {
		return nil, invalid("prompt", "the prompt has no tokens")
	}
	if len(ids) > s.cfg.Context {
		param := "prompt"
		if req.chat {
			param = "messages"
		}
		return nil, &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeContextLength, Param: param,
			Message: fmt.Sprintf("the prompt is %d tokens, over the %d a slot's context holds (prompt and reply together)", len(ids), s.cfg.Context)}
	}
	return ids, nil
}

// wait answers a request that did not ask to stream: the whole reply, once it is over.
func (s *Server) wait(ctx context.Context, rw *replyWriter, j *job) int {
	var text strings.Builder
	for {
		select {
		case <-j.ready:
		case <-ctx.Done():
			return 499 // the client went away: nothing to answer (nginx's code, for the log)
		}
		piece, done, finish, err := j.take()
		text.WriteString(piece)
		if !done {
			continue
		}
		if err != nil {
			e := failure(err)
			writeError(rw.w, e)
			return e.Status
		}
		u, _ := j.result()
		if err := rw.whole(text.String(), finish, &u); err != nil {
			return 499
		}
		return http.StatusOK
	}
}

// stream answers a request that asked to stream: server-sent events as the reply is made.
func (s *Server) stream(ctx context.Context, rw *replyWriter, j *job) int {
	h := rw.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // a proxy in front should not buffer the stream
	rw.w.WriteHeader(http.StatusOK)
	if rw.chat {
		if rw.event(rw.chunk("", nil, true)) != nil {
			return 499
		}
	} else if rw.flush() != nil {
		return 499
	}
	for {
		select {
		case <-j.ready:
		case <-ctx.Done():
			return 499
		}
		piece, done, finish, err := j.take()
		if piece != "" {
			if rw.event(rw.chunk(piece, nil, false)) != nil {
				return 499
			}
		}
		if !done {
			continue
		}
		if err != nil {
			e := failure(err)
			rw.event(map[string]any{"error": e.body()})
			return e.Status
		}
		if rw.event(rw.chunk("", &finish, false)) != nil {
			return 499
		}
		if rw.includeUsage {
			u, _ := j.result()
			if rw.event(rw.usageChunk(&u)) != nil {
				return 499
			}
		}
		if rw.done() != nil {
			return 499
		}
		return http.StatusOK
	}
}

// failure is the error answer for a reply that failed inside the server.
func failure(err error) *Error {
	if errors.Is(err, errShuttingDown) {
		return shuttingDown()
	}
	return &Error{Status: http.StatusInternalServerError, Type: typeServer, Message: strings.TrimPrefix(err.Error(), "qwen3: ")}
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{s.modelObject()}})
}

func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != s.cfg.Model {
		writeError(w, &Error{Status: http.StatusNotFound, Type: typeInvalid, Code: codeModelNotFound, Param: "model",
			Message: fmt.Sprintf("the model %q does not exist: this server serves %q", id, s.cfg.Model)})
		return
	}
	writeJSON(w, http.StatusOK, s.modelObject())
}

func (s *Server) modelObject() map[string]any {
	return map[string]any{"id": s.cfg.Model, "object": "model", "created": s.created, "owned_by": "qwen3go"}
}

// health answers GET /health (llama-server's route, which load balancers and scripts poll):
// 200 while serving, 503 while shutting down, with the slots' state.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	st := s.Stats()
	status, code := "ok", http.StatusOK
	if s.closing.Load() {
		status, code = "shutting down", http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{"status": status, "slots": s.cfg.Slots, "busy": st.Busy, "waiting": st.Waiting})
}

// notFound answers what no route matches, in OpenAI's error shape: 405 for a known path asked
// with another method, 404 otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	allow := map[string]string{"/v1/chat/completions": "POST", "/v1/completions": "POST", "/v1/models": "GET", "/health": "GET"}
	if m, ok := allow[r.URL.Path]; ok {
		w.Header().Set("Allow", m)
		writeError(w, &Error{Status: http.StatusMethodNotAllowed, Type: typeInvalid,
			Message: fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, m)})
		return
	}
	writeError(w, &Error{Status: http.StatusNotFound, Type: typeNotFound,
		Message: fmt.Sprintf("no route %s %s (POST /v1/chat/completions, POST /v1/completions, GET /v1/models)", r.Method, r.URL.Path)})
}

// logWriter is every handler's ResponseWriter: it gives each write WriteTimeout from now (a reply
// may wait long in the queue before its first write, and a stream runs for minutes; a client that
// reads nothing for WriteTimeout is dropped), and it records how the request was answered, for
// its line in the log.
type logWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	status  int    // the status written
	outcome int    // what the handler says happened, when it differs (499: the client went away)
	usage   *Usage // a completion's tokens
}

func (l *logWriter) WriteHeader(code int) {
	if l.status == 0 {
		l.status = code
	}
	l.rc.SetWriteDeadline(time.Now().Add(l.timeout))
	l.ResponseWriter.WriteHeader(code)
}

func (l *logWriter) Write(b []byte) (int, error) {
	if l.status == 0 {
		l.status = http.StatusOK
	}
	l.rc.SetWriteDeadline(time.Now().Add(l.timeout))
	return l.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines).
func (l *logWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

func (s *Server) log(r *http.Request, lw *logWriter, start time.Time) {
	status := lw.status
	if lw.outcome != 0 {
		status = lw.outcome
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", status, "ms", time.Since(start).Milliseconds()}
	if u := lw.usage; u != nil {
		attrs = append(attrs, "prompt", u.PromptTokens, "cached", u.Details.CachedTokens, "completion", u.CompletionTokens)
	}
	s.cfg.Log.Info("request", attrs...)
}
