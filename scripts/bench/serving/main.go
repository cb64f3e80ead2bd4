// Command serving measures `qwen3 serve` beside llama.cpp's llama-server on one model file: the
// same load generator (package qwen3/serve/loadgen) against both, at several numbers of
// concurrent clients, interleaved and repeated. scripts/bench.sh runs it (SERVE=1,4,8,16,32);
// see there for use.
//
// Both servers run continuous batching with the same slots, the same context per slot, the same
// threads and a float16 KV cache (llama.cpp's default; -kv-cache f16 for ours), and they get the
// same requests: /v1/completions, streamed, each prompt different from its first tokens (so that
// neither server's prompt cache can skip a prefill), Qwen3's non-thinking sampling settings
// (temperature 0.7, top-k 20, top-p 0.8) with a seed per request, and a fixed max_tokens (with
// llama.cpp's ignore_eos, which ours ignores; a random-weight model seldom draws a stop token).
// Each client sends its requests one after another. For each level the table gives the
// aggregate tokens per second (all completion tokens over the wall time), the time to the first
// token and the gaps between tokens (p50 and p99), median over the repetitions with their spread.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/qwen3go/qwen3go/qwen3/serve/loadgen"
	"github.com/qwen3go/qwen3go/scripts/bench/internal/ints"
)

type config struct {
	model, qwen3, llamaDir string
	clients                []int
	slots, ctx, threads    int
	promptWords, maxTokens int
	perClient, reps        int
	verbose                bool
}

func main() {
	var c config
	var clients string
	flag.StringVar(&c.model, "model", "", "the GGUF file both servers load")
	flag.StringVar(&c.qwen3, "qwen3", "", "the qwen3 command (go build ./qwen3/cmd/qwen3)")
	flag.StringVar(&c.llamaDir, "llama", "", "directory of llama-server (empty: qwen3 serve alone)")
	flag.StringVar(&clients, "clients", "1,4,8,16,32", "numbers of concurrent clients")
	flag.IntVar(&c.slots, "slots", 0, "slots of both servers (default: the most clients)")
	flag.IntVar(&c.ctx, "ctx", 512, "context of each slot, in tokens")
	flag.IntVar(&c.threads, "threads", runtime.NumCPU(), "threads of both servers")
	flag.IntVar(&c.promptWords, "prompt-words", 100, "words of each prompt (about 1.3 tokens each)")
	flag.IntVar(&c.maxTokens, "max-tokens", 64, "tokens each request asks for")
	flag.IntVar(&c.perClient, "requests", 2, "requests each client sends per level (at least 8 in all)")
	flag.IntVar(&c.reps, "reps", 3, "repetitions of every level on every server")
	out := flag.String("json", "", "write every run's summary as JSON here")
	flag.BoolVar(&c.verbose, "v", false, "print the servers' logs")
	flag.Parse()
	var err error
	if c.clients, err = ints.Parse(clients); err != nil || len(c.clients) == 0 || c.model == "" || c.qwen3 == "" {
		fmt.Fprintln(os.Stderr, "usage: serving -model FILE.gguf -qwen3 BIN [-llama DIR] [-clients 1,4,8,16,32] [-json FILE]", err)
		os.Exit(2)
	}
	if c.slots == 0 {
		c.slots = slices.Max(c.clients)
	}
	if err := run(c, *out); err != nil {
		fmt.Fprintln(os.Stderr, "serving:", err)
		os.Exit(1)
	}
}

// server is one server process.
type server struct {
	name string
	base string // the API's root
	cmd  *exec.Cmd
	log  *os.File
}

func run(c config, out string) error {
	// Ctrl-C or SIGTERM ends the run, the servers with it (a server left behind would hold its
	// port and its memory, and spin on a shared machine).
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	dir, err := os.MkdirTemp("", "serving-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var servers []*server
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()

	ours, err := start(ctx, c, dir, "qwen3", func(port int) []string {
		return []string{c.qwen3, "serve", "-model", c.model, "-port", strconv.Itoa(port), "-slots", strconv.Itoa(c.slots),
			"-ctx", strconv.Itoa(c.ctx), "-threads", strconv.Itoa(c.threads), "-kv-cache", "f16", "-quiet"}
	})
	if err != nil {
		return err
	}
	servers = append(servers, ours)
	if c.llamaDir != "" {
		peer, err := start(ctx, c, dir, "llama.cpp", func(port int) []string {
			return []string{filepath.Join(c.llamaDir, "llama-server"), "-m", c.model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
				"-np", strconv.Itoa(c.slots), "-c", strconv.Itoa(c.slots * c.ctx), "-t", strconv.Itoa(c.threads), "-cb", "--no-webui"}
		})
		if err != nil {
			return err
		}
		servers = append(servers, peer)
	}
	fmt.Fprintf(os.Stderr, "serving: %s, %d slots of %d tokens, %d threads, prompts of %d words, %d new tokens, %d reps\n",
		filepath.Base(c.model), c.slots, c.ctx, c.threads, c.promptWords, c.maxTokens, c.reps)
	type row struct {
		Engine  string          `json:"engine"`
		Clients int             `json:"clients"`
		Rep     int             `json:"rep"`
		Summary loadgen.Summary `json:"summary"`
		Prompt  int             `json:"prompt_tokens"` // the mean prompt length the server counted
	}
	var rows []row
	for rep := range c.reps {
		for li, n := range c.clients {
			order := slices.Clone(servers)
			if (rep+li)%2 == 1 {
				slices.Reverse(order)
			}
			for _, s := range order {
				res, err := loadgen.Run(ctx, loadgen.Config{
					BaseURL: s.base, Clients: n, Requests: max(8, n*c.perClient),
					Request: func(client, i int) loadgen.Body { return c.request(rep, n, client, i) },
				})
				if err != nil {
					return err
				}
				if ctx.Err() != nil {
					return errors.New("interrupted")
				}
				sum := res.Summarize()
				prompt := 0
				for _, r := range res.Records {
					prompt += r.Prompt
				}
				fmt.Fprintf(os.Stderr, "serving: rep %d, %-9s %s\n", rep+1, s.name, sum)
				if sum.Failed > 0 {
					for _, r := range res.Records {
						if !r.OK() {
							fmt.Fprintf(os.Stderr, "serving: %s: a request failed: %s\n", s.name, r.Err)
							break
						}
					}
				}
				rows = append(rows, row{s.name, n, rep, sum, prompt / max(len(res.Records), 1)})
			}
		}
	}
	// The table: per level, the median of the repetitions and their spread.
	fmt.Printf("\nserving %s: %d slots of %d tokens, %d threads, F16 KV cache, prompts of ~%d tokens, %d new tokens each (machine: %s)\n",
		filepath.Base(c.model), c.slots, c.ctx, c.threads, rows[0].Prompt, c.maxTokens, cpuName())
	fmt.Printf("%-8s %-10s %22s %24s %24s %24s %24s\n", "clients", "server", "tok/s", "TTFT p50 ms", "TTFT p99 ms", "ITL p50 ms", "ITL p99 ms")
	for _, n := range c.clients {
		var ratio []float64
		for _, s := range servers {
			var tok, t50, t99, i50, i99 []float64
			for _, r := range rows {
				if r.Engine == s.name && r.Clients == n {
					tok = append(tok, r.Summary.TokensPerSecond)
					t50, t99 = append(t50, ms(r.Summary.TTFT50)), append(t99, ms(r.Summary.TTFT99))
					i50, i99 = append(i50, ms(r.Summary.ITL50)), append(i99, ms(r.Summary.ITL99))
				}
			}
			fmt.Printf("%-8d %-10s %22s %24s %24s %24s %24s\n", n, s.name, spread(tok), spread(t50), spread(t99), spread(i50), spread(i99))
			ratio = append(ratio, median(tok))
		}
		if len(ratio) == 2 && ratio[1] > 0 {
			fmt.Printf("%-8d %-10s %22s\n", n, "ratio", fmt.Sprintf("%.2fx", ratio[0]/ratio[1]))
		}
	}
	if out != "" {
		b, _ := json.MarshalIndent(map[string]any{
			"model": filepath.Base(c.model), "slots": c.slots, "ctx": c.ctx, "threads": c.threads, "max_tokens": c.maxTokens,
			"machine": cpuName(), "date": time.Now().UTC().Format("2006-01-02"), "runs": rows,
		}, "", " ")
		if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "serving: wrote", out)
	}
	return nil
}

// request is client's i-th request at a level: a prompt whose first words are its own.
func (c config) request(rep, level, client, i int) loadgen.Body {
	var b strings.Builder
	fmt.Fprintf(&b, "Request %d-%d-%d-%d.", rep, level, client, i)
	words := strings.Fields("the quick brown fox jumps over the lazy dog while a server decodes many streams at once and")
	for w := 0; w < c.promptWords; w++ {
		b.WriteString(" " + words[(w+client+i)%len(words)])
	}
	return loadgen.Body{Fields: map[string]any{
		"prompt": b.String(), "max_tokens": c.maxTokens, "ignore_eos": true,
		"temperature": 0.7, "top_k": 20, "top_p": 0.8, "min_p": 0, "seed": rep*1_000_000 + level*10_000 + client*100 + i,
	}}
}

// start runs a server on a free port and waits until it answers GET /health.
func start(ctx context.Context, c config, dir, name string, args func(port int) []string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	a := args(port)
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(a[0], a[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if c.verbose {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(log, os.Stderr), io.MultiWriter(log, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "serving: starting %s: %s\n", name, strings.Join(a, " "))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &server{name: name, base: fmt.Sprintf("http://127.0.0.1:%d/v1", port), cmd: cmd, log: log}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(log.Name())
			return nil, fmt.Errorf("%s exited before serving (%v): %s", name, err, tail(string(b)))
		default:
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.stop()
			return nil, fmt.Errorf("%s did not answer /health within 5 minutes, or the run was interrupted", name)
		}
	}
}

func (s *server) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { s.cmd.Process.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
		}
	}
	s.log.Close()
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// spread is "median (min-max)".
func spread(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f (%.1f-%.1f)", median(v), slices.Min(v), slices.Max(v))
}

// cpuName is the processor's model name (Linux), for the table's header.
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
