// Command qwen3 runs Qwen3 models: a prompt, an interactive chat, or a look inside a model file.
//
//	qwen3 run  -prompt "The capital of France is"      complete a prompt (the built-in tiny model unless -model)
//	qwen3 run  -chat -prompt "What is 2+2?" -think=false   the prompt as one chat turn
//	qwen3 chat -model Qwen3-0.6B-Q8_0.gguf              talk; Ctrl-C stops a reply, Ctrl-D leaves
//	qwen3 inspect FILE|DIR                              what a GGUF file, a safetensors file or an HF directory holds
//
// -model takes a GGUF file or a Hugging Face directory. Without it, run and chat use the course's
// tiny reference checkpoint (reference/tiny-qwen3.gguf): random weights, so its text is meaningless.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/reference"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "qwen3:", strings.TrimPrefix(err.Error(), "qwen3: "))
		os.Exit(1)
	}
}

const usage = `usage:
  qwen3 run     [flags] -prompt TEXT   complete TEXT (with -chat: answer it as a chat turn)
  qwen3 chat    [flags]                interactive chat; Ctrl-C stops a reply, Ctrl-D or /quit leaves
  qwen3 inspect FILE|DIR               what a GGUF file, a safetensors file or an HF directory holds
Run 'qwen3 run -h' or 'qwen3 chat -h' for the flags.`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "chat":
		return chatCmd(args[1:], stdin, stdout, stderr)
	case "inspect":
		if len(args) != 2 {
			return errors.New("usage: qwen3 inspect FILE|DIR")
		}
		return inspect(args[1], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// common are the flags of run and chat.
type common struct {
	model              string
	temperature, topP  float64
	minP               float64
	topK, maxTokens    int
	seed               uint64
	think, stats       bool
	threads, ctxTokens int
	set                map[string]bool // the flags given on the command line
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.model, "model", "", "GGUF file or Hugging Face directory (default: the built-in tiny reference checkpoint)")
	fs.Float64Var(&c.temperature, "temperature", 0, "sampling temperature; 0 is greedy (default: the model's recommendation)")
	fs.IntVar(&c.topK, "top-k", 0, "keep the k most likely tokens; 0 is off (default: the model's)")
	fs.Float64Var(&c.topP, "top-p", 0, "nucleus: keep the most likely tokens up to this mass, in (0,1] (default: the model's)")
	fs.Float64Var(&c.minP, "min-p", 0, "drop tokens less likely than min-p times the top one, in [0,1] (default: the model's)")
	fs.Uint64Var(&c.seed, "seed", 0, "random seed: the same seed gives the same text")
	fs.IntVar(&c.maxTokens, "max-tokens", 256, "most new tokens per reply")
	fs.BoolVar(&c.think, "think", true, "let Qwen3 think (<think>...</think>) before answering (chat template)")
	fs.BoolVar(&c.stats, "stats", false, "print time to first token, prefill and decode speed, peak memory")
	fs.IntVar(&c.threads, "threads", runtime.NumCPU(), "cores to use")
	fs.IntVar(&c.ctxTokens, "ctx", 4096, "context length (KV cache size) in tokens")
}

func (c *common) load(stderr io.Writer) (*qwen3.Model, error) {
	path := c.model
	if path == "" {
		path = reference.TinyGGUF()
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("the built-in tiny checkpoint is missing (%v); pass -model", err)
		}
		fmt.Fprintln(stderr, "note: no -model given, using the built-in tiny reference checkpoint: random weights, its text is meaningless")
	}
	opts := []qwen3.Option{qwen3.WithThreads(c.threads)}
	if st, err := os.Stat(path); err == nil && (st.IsDir() || st.Size() > 100<<20) {
		start, shown := time.Now(), int64(-1)
		opts = append(opts, qwen3.WithPrefault(func(done, total int64) {
			if pct := 100 * done / total; pct != shown {
				shown = pct
				fmt.Fprintf(stderr, "\rloading %s: %3d%% of %d MB", filepath.Base(path), pct, total>>20)
			}
			if done == total {
				fmt.Fprintf(stderr, " in %.1f s\n", time.Since(start).Seconds())
			}
		}))
	}
	m, err := qwen3.Load(path, opts...)
	if err != nil {
		return nil, err
	}
	ctxTokens := min(c.ctxTokens, m.Config.MaxPositionEmbeddings)
	c.ctxTokens = ctxTokens
	return m, nil
}

// parse parses the flags and remembers which were given.
func (c *common) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	return nil
}

// settings combines the model's recommended sampling settings with the flags that were given.
func (c *common) settings(m *qwen3.Model) (sampling.Settings, error) {
	s := m.DefaultSettings(c.seed)
	if c.set["temperature"] {
		s.Temperature = c.temperature
	}
	if c.set["top-k"] {
		s.TopK = c.topK
	}
	if c.set["top-p"] {
		s.TopP = c.topP
	}
	if c.set["min-p"] {
		s.MinP = c.minP
	}
	if c.maxTokens <= 0 {
		return s, fmt.Errorf("-max-tokens %d must be positive", c.maxTokens)
	}
	return s, s.Validate()
}

func (c *common) printStats(w io.Writer, st qwen3.Stats) {
	if !c.stats {
		return
	}
	fmt.Fprintf(w, "\n[%d prompt tokens in %v (%.1f tok/s); first token after %v; %d new tokens at %.1f tok/s; peak memory %s]\n",
		st.PromptTokens, st.Prefill.Round(time.Millisecond), st.PrefillRate(), st.FirstToken.Round(time.Millisecond),
		st.NewTokens, st.DecodeRate(), peakMemory())
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	prompt := fs.String("prompt", "", "the text to continue (required)")
	asChat := fs.Bool("chat", false, "render the prompt as one user turn of Qwen3's chat template")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if *prompt == "" || fs.NArg() > 0 {
		return errors.New("run needs -prompt TEXT (and no other arguments)")
	}
	m, err := c.load(stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	s, err := c.settings(m)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := qwen3.Options{Sampling: &s, MaxNewTokens: c.maxTokens, MaxContext: c.ctxTokens}
	print := func(piece string) error { _, err := io.WriteString(stdout, piece); return err }
	var st qwen3.Stats
	if *asChat {
		chat, err := m.NewChat("", c.think, opts)
		if err != nil {
			return err
		}
		_, err = chat.Send(ctx, *prompt, print)
		st = chat.Last
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	} else {
		fmt.Fprint(stdout, *prompt)
		if _, st, err = m.Generate(ctx, *prompt, opts, print); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	fmt.Fprintln(stdout)
	c.printStats(stderr, st)
	return nil
}

func chatCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	system := fs.String("system", "", "system prompt")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	m, err := c.load(stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	s, err := c.settings(m)
	if err != nil {
		return err
	}
	chat, err := m.NewChat(*system, c.think, qwen3.Options{Sampling: &s, MaxNewTokens: c.maxTokens, MaxContext: c.ctxTokens})
	if err != nil {
		return err
	}
	// Ctrl-C cancels the reply in progress; between replies it only reminds how to leave.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	fmt.Fprintf(stderr, "chatting with %s (%d layers, %v weights); thinking %v. Ctrl-C stops a reply, Ctrl-D or /quit leaves, /think and /nothink switch thinking.\n",
		m.Source, m.Config.NumHiddenLayers, m.Type, c.think)
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for {
		fmt.Fprint(stdout, "\n> ")
		if !in.Scan() {
			fmt.Fprintln(stdout)
			return in.Err()
		}
		line := strings.TrimSpace(in.Text())
		switch line {
		case "":
			continue
		case "/quit", "/exit":
			return nil
		case "/think", "/nothink":
			chat.Thinking = line == "/think"
			fmt.Fprintf(stderr, "thinking %v\n", chat.Thinking)
			continue
		}
		// A Ctrl-C pressed while no reply was running only reminds how to leave; it must not
		// cancel the reply about to start.
	drain:
		for {
			select {
			case <-interrupts:
				fmt.Fprintln(stderr, "(Ctrl-D or /quit leaves)")
			default:
				break drain
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			select {
			case <-interrupts:
				cancel()
			case <-done:
			}
		}()
		_, err := chat.Send(ctx, line, func(piece string) error { _, err := io.WriteString(stdout, piece); return err })
		close(done)
		cancel()
		switch {
		case errors.Is(err, context.Canceled):
			fmt.Fprint(stdout, " [stopped]")
		case err != nil:
			return err
		}
		fmt.Fprintln(stdout)
		c.printStats(stderr, chat.Last)
	}
}
