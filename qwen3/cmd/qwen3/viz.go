package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
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
	fs := flag.NewFlagSet("viz", flag.ContinueOnError)
	c := common{name: "viz"}
	// The flags viz shares with run and chat, with their texts (flags.go): the model, and the
	// page's first settings.
	shared := flag.NewFlagSet("", flag.ContinueOnError)
	c.register(shared)
	for _, name := range []string{"model", "temperature", "top-k", "top-p", "min-p", "seed", "max-tokens", "think", "ctx",
		"threads", "kv-cache", "exact", "huge-pages"} {
		f := shared.Lookup(name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
	host := fs.String("host", "127.0.0.1", "address to listen on; 0.0.0.0 shows the page to the network (anyone who reaches it can run the model)")
	port := fs.Int("port", 8090, "port to listen on; 0 picks a free one (the address is printed)")
	args, err := c.parse(fs, args, vizSynopsis, e.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("viz takes no arguments (%q)", strings.Join(args, " "))
	}
	if *port < 0 || *port > 65535 {
		return usagef("-port %d: must be in 0..65535", *port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("listening on %s port %d: %w", *host, *port, err)
	}
	defer ln.Close()
	m, err := c.load(e)
	if err != nil {
		return err
	}
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
		o.Note = "The built-in tiny model (6 layers, trained on Go's standard library) completes Go code: type the start " +
			"of a Go file, e.g. func main() {. It was never trained on the chat template; for a chat, run qwen3 viz -model " +
			"with the real Qwen3-0.6B."
	}
	return o, nil
}
