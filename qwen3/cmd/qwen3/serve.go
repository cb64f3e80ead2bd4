package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/qwen3go/qwen3go/qwen3/serve"
	"github.com/qwen3go/qwen3go/qwen3/viz"
)

const serveSynopsis = `qwen3 serve [flags]

Serves the model over OpenAI's HTTP API (POST /v1/chat/completions, POST /v1/completions,
GET /v1/models) with continuous batching: up to -slots requests decoded together, each with a
KV cache of -ctx tokens. Point any OpenAI client at http://HOST:PORT/v1. It listens on
127.0.0.1 (this machine only) unless -host says otherwise; -api-key guards it. SIGTERM or Ctrl-C
stops it gracefully: the running replies finish (for up to -grace), new requests get 503.
At /viz/ a page shows every decode step of the replies it runs itself (as qwen3 viz does).

  qwen3 serve -model Qwen3-0.6B-Q8_0.gguf -slots 8
  curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' \
    -d '{"messages": [{"role": "user", "content": "Hello"}]}'`

func serveCmd(args []string, e *env) error {
	srv := newServer("serve", []string{"model", "ctx", "threads", "kv-cache", "exact", "huge-pages", "think", "max-tokens"}, 8080,
		"address to listen on; 0.0.0.0 (or ::) exposes the server to the network: set -api-key then")
	fs, c := srv.fs, &srv.c
	apiKey := fs.String("api-key", os.Getenv("QWEN3_API_KEY"), "require \"Authorization: Bearer KEY\" on every request but /health (default: $QWEN3_API_KEY; none when empty)")
	name := fs.String("name", "", "the model's id in the API (default: the file's name without .gguf; tiny-qwen3 for the built-in one)")
	slots := fs.Int("slots", 4, "requests decoded together, each with its own KV cache of -ctx tokens (1..128)")
	queue := fs.Int("queue", 0, "requests that may wait for a slot before the server answers 429 (default 4 x -slots; -1 none)")
	chunk := fs.Int("chunk", 0, "most prompt tokens run in one pass, so a long prompt does not stall the others; beside decoding tokens -step-tokens bounds it further (default 64; -1 whole prompts)")
	stepTokens := fs.Int("step-tokens", 0, "most tokens of a step's pass, decoding tokens and a prompt's chunk together, though a chunk gets at least 8: bounds the inter-token latency (default 32; -1 only the engine's 128; -static and -chunk -1 run prompts in passes of their own, which it does not bound)")
	static := fs.Bool("static", false, "static batching, for comparison: admit requests only when every slot is free")
	grace := fs.Duration("grace", 30*time.Second, "on SIGTERM or Ctrl-C, how long running replies may take to finish")
	quiet := fs.Bool("quiet", false, "no line per request on standard error")
	ln, m, err := srv.start(args, serveSynopsis, e, func() error {
		if *slots < 1 || *slots > 128 {
			return usagef("-slots %d: must be in 1..128", *slots)
		}
		if *stepTokens > 128 {
			return usagef("-step-tokens %d: at most 128, the most tokens of one pass (-1 for that limit)", *stepTokens)
		}
		return nil
	})
	if ln == nil {
		return err // nil when the help was asked for
	}
	defer ln.Close()
	defer m.Close()
	id := *name
	if id == "" {
		id = "tiny-qwen3"
		if c.model != "" {
			id = strings.TrimSuffix(filepath.Base(filepath.Clean(c.model)), ".gguf")
		}
	}
	log := slog.New(slog.DiscardHandler)
	if !*quiet {
		log = slog.New(slog.NewTextHandler(e.stderr, nil))
	}
	s, err := serve.New(m, serve.Config{
		Model: id, Slots: *slots, Context: c.ctxTokens, Queue: *queue, PrefillChunk: *chunk, StepTokens: *stepTokens, Static: *static,
		DefaultMaxTokens: min(c.maxTokens, c.ctxTokens), Thinking: c.think, APIKey: *apiKey, Log: log,
	})
	if err != nil {
		return err
	}
	// The page of qwen3 viz (package qwen3/viz) at /viz/: it runs its own replies beside the API's.
	vo, err := c.vizOptions(m)
	if err != nil {
		return err
	}
	s.Handle("/viz/", http.StripPrefix("/viz", viz.Handler(m, vo)))
	// The first SIGTERM or Ctrl-C shuts down gracefully; a second one ends the replies at once.
	// (Caught before the address is printed: whoever reads it may send SIGTERM at once.)
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGTERM)
	defer signal.Stop(stop)
	cfg := s.Config()
	mode := "continuous batching"
	if cfg.Static {
		mode = "static batching"
	}
	fmt.Fprintf(e.stderr, "serving %s on http://%s/v1 (%s; %d slots of %d tokens; %s)\n", id, ln.Addr(), c.path, cfg.Slots, cfg.Context, mode)
	fmt.Fprintf(e.stderr, "every decode step, in a browser: http://%s/viz/\n", ln.Addr())
	if cfg.APIKey == "" && !isLoopback(*srv.host) {
		fmt.Fprintln(e.stderr, "warning: listening beyond this machine without -api-key: anyone who can reach it can use it")
	}

	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	var interrupted bool
	select {
	case err := <-served:
		s.Close()
		return fmt.Errorf("serving: %w", err)
	case <-stop:
	case <-e.interrupts:
		interrupted = true
	}
	fmt.Fprintf(e.stderr, "shutting down: finishing %d running replies (up to %v; again to stop now)\n", s.Stats().Busy, *grace)
	ctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	go func() {
		select {
		case <-stop:
		case <-e.interrupts:
		case <-ctx.Done():
			return
		}
		cancel()
	}()
	err = s.Shutdown(ctx)
	if e := <-served; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	st := s.Stats()
	fmt.Fprintf(e.stderr, "stopped: %d requests, %d completed, %d cancelled, %d failed, %d refused; %d tokens generated\n",
		st.Requests, st.Completed, st.Cancelled, st.Failed, st.Rejected, st.GeneratedTokens)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if interrupted {
		return errInterrupted
	}
	return nil
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
