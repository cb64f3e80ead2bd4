package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/qwen3/viz"
)

const vizSynopsis = `qwen3 viz [flags]

Serves a page that shows every decode step as the model writes: the top candidates' probabilities
before and after temperature, which of them top-k, top-p and min-p kept, the nucleus and the tail,
the token drawn; click a token to look at its step again, change a setting to run the message
again. Open the address it prints in a browser (it works offline). It listens on 127.0.0.1 (this
machine only) unless -host says otherwise; Ctrl-C stops it.

  qwen3 viz                                   the built-in tiny model, completing Go code
  qwen3 viz -model Qwen3-0.6B-Q8_0.gguf -think=false`

func vizCmd(args []string, e *env) error {
	// The model, and the page's first settings.
	cmd := newServer("viz", []string{"model", "temperature", "top-k", "top-p", "min-p", "seed", "max-tokens", "think", "ctx",
		"threads", "kv-cache", "exact", "huge-pages"}, 8090,
		"address to listen on; 0.0.0.0 shows the page to the network (anyone who reaches it can run the model)")
	c := &cmd.c
	ln, m, err := cmd.start(args, vizSynopsis, e, nil)
	if ln == nil {
		return err // nil when the help was asked for
	}
	defer ln.Close()
	defer m.Close()
	o, err := c.vizOptions(m)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: viz.Handler(m, o), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(e.stderr, "qwen3 viz: open http://%s/ in a browser (Ctrl-C stops)\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serving the page: %w", err)
	case <-e.interrupts:
		fmt.Fprintln(e.stderr, "qwen3 viz: stopped")
		return srv.Close()
	}
}

// vizOptions are the page's options from the flags: its first settings, the model's name and
// context, and for the built-in tiny model completion mode with a note on what it writes. qwen3
// serve mounts the same page at /viz/.
func (c *common) vizOptions(m *qwen3.Model) (viz.Options, error) {
	first, err := m.Settings(c.sampling())
	if err != nil {
		return viz.Options{}, err
	}
	o := viz.Options{Name: c.path, Thinking: c.think, Settings: &first, MaxTokens: c.maxTokens, MaxContext: c.ctxTokens}
	if c.model == "" {
		o.Complete = true
		o.Note = "The built-in tiny model (6 layers, trained on Go source) completes Go code: type the start " +
			"of a Go file, e.g. func main() {. It was never trained on the chat template; for a chat, run qwen3 viz -model " +
			"with the real Qwen3-0.6B."
	}
	return o, nil
}
