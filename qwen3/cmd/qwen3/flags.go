package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/reference"
)

// common are the flags of run and chat.
type common struct {
	name               string // "run" or "chat"
	model, system      string
	temperature, topP  float64
	minP               float64
	topK, maxTokens    int
	seed               uint64
	think, stats       bool
	threads, ctxTokens int
	kvCache            qwen3.KVType    // -kv-cache: auto, f32 or f16
	exact              bool            // -exact: float32 inputs for the quantized matrices
	hugePages          bool            // -huge-pages: a GGUF file's weights in transparent huge pages
	set                map[string]bool // the flags given on the command line
	path               string          // the checkpoint loaded
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.model, "model", "", "GGUF file or Hugging Face directory (default: the built-in tiny reference checkpoint)")
	fs.Float64Var(&c.temperature, "temperature", 0, "sampling temperature; 0 is greedy (default: the model's recommendation)")
	fs.IntVar(&c.topK, "top-k", 0, "keep the k most likely tokens; 0 is off (default: the model's)")
	fs.Float64Var(&c.topP, "top-p", 0, "nucleus: keep the most likely tokens up to this mass, in (0,1]; 1 is off (default: the model's)")
	fs.Float64Var(&c.minP, "min-p", 0, "drop tokens less likely than min-p times the top one, in [0,1]; 0 is off (default: the model's)")
	fs.Uint64Var(&c.seed, "seed", 0, "random seed: the same seed, model, prompt and settings give the same text (any thread count; another -kv-cache type may not: notebook 11)")
	fs.IntVar(&c.maxTokens, "max-tokens", qwen3.DefaultMaxNewTokens, "most new tokens per reply (the library's default too)")
	fs.BoolVar(&c.think, "think", true, "let Qwen3 think (<think>...</think>) before answering (chat turns only); on by default, as in\n"+
		"Qwen3's chat template, while the library's qwen3.ChatOptions leaves it off unless Thinking is set")
	fs.BoolVar(&c.stats, "stats", false, "print the prompt and new tokens, time to first token, prefill and decode speed, peak memory")
	fs.IntVar(&c.threads, "threads", 0, fmt.Sprintf("goroutines that split each matrix pass; 0 is one per core the Go runtime may use (GOMAXPROCS, %d here)", runtime.GOMAXPROCS(0)))
	fs.IntVar(&c.ctxTokens, "ctx", 0, fmt.Sprintf("context length (KV cache size) in tokens (default: %d, or the model's context if shorter)", qwen3.DefaultMaxContext))
	fs.StringVar(&c.system, "system", "", "system prompt (chat turns only)")
	fs.TextVar(&c.kvCache, "kv-cache", qwen3.KVAuto, fmt.Sprintf("the `type` of the KV cache: auto (f32 for a context of up to %d tokens, f16 for a longer one: go doc qwen3.KVAuto), f32, or f16 for half the cache's memory (logits move by up to 1.5e-3 of the largest logit: notebook 11)", qwen3.DefaultMaxContext))
	fs.BoolVar(&c.hugePages, "huge-pages", true, "read a GGUF file's weights into transparent huge pages (2 MB on x86-64) where Linux offers them: faster decoding, for a private copy of the file in memory; false keeps them in the mapped file")
	fs.BoolVar(&c.exact, "exact", false, "keep the inputs of quantized weights (Q8_0, Q4_0, Q4_K, Q6_K) in float32, as chapter 07 does, instead of rounding them to int16 blocks: slower")
}

// parse parses args, flags and arguments in any order ("--" ends the flags), and remembers which
// flags were given. -h prints the usage to stdout and returns flag.ErrHelp; a bad flag is a
// usageError.
func (c *common) parse(fs *flag.FlagSet, args []string, synopsis string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var positional []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, positional = args[:i], slices.Clone(args[i+1:])
	}
	var rest []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: %s\n\nflags:\n", synopsis)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, flag.ErrHelp
		} else if err != nil {
			// A value the library rejects says "qwen3: ..." itself; main adds "qwen3: " once.
			return nil, usagef("%s (see 'qwen3 %s -h')", strings.Replace(err.Error(), ": qwen3: ", ": ", 1), c.name)
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	c.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	return append(rest, positional...), c.check()
}

// check rejects values out of range before anything is loaded, naming the flag.
func (c *common) check() error {
	if c.set["ctx"] && c.ctxTokens < 1 {
		return usagef("-ctx %d: the context must hold at least 1 token", c.ctxTokens)
	}
	if most := 4 * runtime.GOMAXPROCS(0); c.threads < 0 || c.threads > most {
		return usagef("-threads %d: must be in 0..%d (0: one per core; the Go runtime may use %d here)", c.threads, most, runtime.GOMAXPROCS(0))
	}
	if c.maxTokens < 1 {
		return usagef("-max-tokens %d: must be at least 1", c.maxTokens)
	}
	// Each sampling flag given is checked alone, on settings that are otherwise off.
	set := map[string]func(*sampling.Settings){
		"temperature": func(s *sampling.Settings) { s.Temperature = c.temperature },
		"top-k":       func(s *sampling.Settings) { s.TopK = c.topK },
		"top-p":       func(s *sampling.Settings) { s.TopP = c.topP },
		"min-p":       func(s *sampling.Settings) { s.MinP = c.minP },
	}
	for _, name := range []string{"temperature", "top-k", "top-p", "min-p"} {
		if c.set[name] {
			s := sampling.Neutral(0)
			set[name](&s)
			if err := s.Validate(); err != nil {
				return usagef("-%s: %v", name, err)
			}
		}
	}
	return nil
}

// sampling is the sampling the flags ask for: the flags given replace the checkpoint's settings.
func (c *common) sampling() qwen3.Sampling {
	s := qwen3.Sampling{Seed: c.seed}
	if c.set["temperature"] {
		s.Temperature = &c.temperature
	}
	if c.set["top-k"] {
		s.TopK = &c.topK
	}
	if c.set["top-p"] {
		s.TopP = &c.topP
	}
	if c.set["min-p"] {
		s.MinP = &c.minP
	}
	return s
}

// builtinNote says what the built-in checkpoint is, when no -model is given.
const builtinNote = "note: no -model given, using the built-in tiny reference checkpoint: a 6-layer Qwen3 trained on Go source (reference/README.md); it completes Go code"

// builtinName is what the built-in checkpoint is called (in errors and the chat's first line).
const builtinName = "tiny-qwen3.gguf (built in)"

// builtinChatNote adds what chatting with it means.
const builtinChatNote = "note: this tiny model completes Go code and was never trained on the chat template, so its replies are Go-shaped text, not answers; to chat, use the real Qwen3-0.6B with -model (README.md: \"The real model\")"

// load opens the model (the built-in tiny checkpoint without -model), with a progress line on a
// terminal for big files, and checks -ctx against the model's context. A Ctrl-C stops the load
// (errInterrupted).
func (c *common) load(e *env) (*qwen3.Model, error) {
	ctx, stop := interruptible(e)
	defer stop()
	m, err := c.open(ctx, e)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("loading stopped: %w", errInterrupted)
	}
	return m, err
}

// interruptible returns a context that a Ctrl-C cancels, until stop is called.
func interruptible(e *env) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-e.interrupts:
			cancel()
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel() }
}

func (c *common) open(ctx context.Context, e *env) (*qwen3.Model, error) {
	path := c.model
	opts := []qwen3.LoadOption{qwen3.WithThreads(c.threads), qwen3.WithKVCache(c.kvCache)}
	if c.exact {
		opts = append(opts, qwen3.WithExactActivations())
	}
	if path == "" {
		// The built-in model: reference/tiny-qwen3.gguf, compiled into this program (go:embed), so
		// that an installed or -trimpath binary runs it from any directory.
		fmt.Fprintln(e.stderr, builtinNote)
		m, err := qwen3.LoadGGUFBytes(ctx, builtinName, reference.TinyGGUFBytes(), opts...)
		if err != nil {
			return nil, fmt.Errorf("the built-in tiny checkpoint: %w", err)
		}
		c.path = builtinName
		return c.checkCtx(m)
	}
	if !c.hugePages {
		opts = append(opts, qwen3.WithoutHugePages())
	}
	if st, err := os.Stat(path); err == nil && e.stderrTTY && (st.IsDir() || st.Size() > 100<<20) {
		bar := newMeter(e.stderr, "loading "+filepath.Base(path), "MB", 1<<20)
		opts = append(opts, qwen3.WithPrefault(func(done, total int64) {
			bar.update(done, total)
			if done == total {
				bar.finish(fmt.Sprintf("loaded %s: %d MB in %.1f s", filepath.Base(path), total>>20, time.Since(bar.start).Seconds()))
			}
		}))
	}
	m, err := qwen3.Load(ctx, path, opts...)
	if err != nil {
		return nil, err
	}
	c.path = path
	return c.checkCtx(m)
}

// checkCtx checks -ctx against the model's context (closing m when it does not fit) and sets the
// default context.
func (c *common) checkCtx(m *qwen3.Model) (*qwen3.Model, error) {
	if most := m.Config().MaxPositionEmbeddings; c.ctxTokens > most {
		m.Close()
		return nil, usagef("-ctx %d: the model's context is %d tokens", c.ctxTokens, most)
	}
	if !c.set["ctx"] {
		c.ctxTokens = min(qwen3.DefaultMaxContext, m.Config().MaxPositionEmbeddings)
	}
	return m, nil
}

// options are the reply options the flags ask for, with prefill progress through meter.
func (c *common) options(meter *prefillMeter) qwen3.ReplyOptions {
	return qwen3.ReplyOptions{Sampling: c.sampling(), MaxNewTokens: c.maxTokens, MaxContext: c.ctxTokens, Progress: meter.progress()}
}

// contextHint turns a full-context error into one that says which flag to change.
// promptTokens is the prompt's length when known (0 otherwise): a prompt longer than the model's
// whole context must be shortened, since no -ctx holds it.
func (c *common) contextHint(err error, maxContext, promptTokens int) error {
	switch {
	case !errors.Is(err, qwen3.ErrContextFull):
		return err
	case promptTokens > maxContext:
		return fmt.Errorf("%w; this model reads at most %d tokens, whatever -ctx says: shorten the prompt", err, maxContext)
	}
	return fmt.Errorf("%w; raise -ctx (now %d, at most %d for this model)", err, c.ctxTokens, maxContext)
}

func formatStats(st qwen3.Stats) string {
	return fmt.Sprintf("[%d prompt tokens in %v (%.1f tok/s); first token after %v; %d new tokens at %.1f tok/s; finish: %s; peak memory %s]",
		st.PromptTokens, st.Prefill.Round(time.Millisecond), st.PrefillRate(), st.FirstToken.Round(time.Millisecond),
		st.NewTokens, st.DecodeRate(), st.Finish, peakMemory())
}

// short shows s on one line of at most n characters (a system prompt in /show).
func short(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "..."
	}
	return s
}
