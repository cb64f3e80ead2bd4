// Command rss measures the resident memory of a process that calls qwen3's Generate again and
// again on one loaded model: what a program that serves replies one after another holds.
//
//	go run ./scripts/rss -model /tmp/qwen3-synth/qwen3-0.6b-q8_0.gguf [-calls 20] [-tokens 8]
//
// (scripts/make_synthetic.py writes the synthetic checkpoints.) It prints, after Load and after
// each call, the process's resident set (VmRSS of /proc/self/status, Linux only), how much of it
// is anonymous memory, and the Go heap's in-use and obtained-from-the-OS sizes, then one RESULT
// line: the resident set after the first and the last call and their ratio. Each call generates
// -tokens tokens greedily from the same short prompt, in the default context (4,096 tokens for
// Qwen3-0.6B), so that every call is the same work and any growth is memory kept between calls.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/qwen3go/qwen3go/qwen3"
)

func main() {
	model := flag.String("model", "", "GGUF file or Hugging Face directory")
	calls := flag.Int("calls", 20, "Generate calls, one after another")
	tokens := flag.Int("tokens", 8, "new tokens per call")
	flag.Parse()
	if *model == "" || *calls < 1 || *tokens < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/rss -model FILE|DIR [-calls N] [-tokens N]")
		os.Exit(2)
	}
	if err := run(*model, *calls, *tokens); err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
}

func run(path string, calls, tokens int) error {
	m, err := qwen3.Load(context.Background(), path)
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Printf("%s: kernels %s, GOMAXPROCS %d\n", path, qwen3.Kernels(), runtime.GOMAXPROCS(0))
	report("after Load")
	opts := qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: tokens, Stop: []int{}}
	var first, last int64
	for i := range calls {
		if _, _, err := m.Generate(context.Background(), "The capital of France is", opts, nil); err != nil {
			return fmt.Errorf("call %d: %w", i+1, err)
		}
		rss := report(fmt.Sprintf("after call %2d", i+1))
		if i == 0 {
			first = rss
		}
		last = rss
	}
	fmt.Printf("RESULT calls=%d tokens=%d rss_first_mb=%.0f rss_last_mb=%.0f ratio=%.3f\n",
		calls, tokens, mb(first), mb(last), float64(last)/float64(first))
	return nil
}

// report prints the resident set and the Go heap's sizes, and returns the resident set in bytes.
func report(when string) int64 {
	st := status()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%-14s  resident %6.0f MB (anonymous %6.0f MB, file %5.0f MB)  Go heap in use %6.0f MB, from the OS %6.0f MB\n",
		when, mb(st["VmRSS"]), mb(st["RssAnon"]), mb(st["RssFile"]), mb(int64(ms.HeapInuse)), mb(int64(ms.HeapSys-ms.HeapReleased)))
	return st["VmRSS"]
}

// status reads the sizes of /proc/self/status, in bytes (empty off Linux).
func status() map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if v, found := strings.CutSuffix(strings.TrimSpace(rest), " kB"); ok && found {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[name] = n << 10
			}
		}
	}
	return out
}

func mb(b int64) float64 { return float64(b) / 1e6 }
