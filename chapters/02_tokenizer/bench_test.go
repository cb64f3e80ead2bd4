package tokenizer

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// benchText deterministically builds about n bytes of mixed text from testdata/bench_seed.txt:
// a splitmix64 generator picks words of the seed (split at spaces, so some carry newlines and
// tabs), with a random number instead of a word one time in ten, and a newline instead of a space
// one time in seventeen. scripts/bench_tokenizer.py builds the same text (same sha256) to time
// Hugging Face tokenizers on it.
func benchText(tb testing.TB, n int) string {
	tb.Helper()
	seed, err := os.ReadFile("testdata/bench_seed.txt")
	if err != nil {
		tb.Fatal(err)
	}
	words := strings.Split(string(seed), " ")
	state := uint64(20250101)
	next := func() uint64 { // splitmix64
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	var sb strings.Builder
	for sb.Len() < n {
		r := next()
		if r%10 == 0 {
			sb.WriteString(strconv.FormatUint(next()%100000, 10))
		} else {
			sb.WriteString(words[next()%uint64(len(words))])
		}
		if r%17 == 0 {
			sb.WriteByte('\n')
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

const benchBytes = 4 << 20

// BenchmarkEncode measures Encode throughput (MB/s) on 4 MiB of mixed text, with the piece cache
// warm as in steady use (Hugging Face's BPE has a cache too).
//
//	go test -run '^$' -bench Encode -benchtime 5x ./chapters/02_tokenizer
//	python scripts/bench_tokenizer.py   # the same text through Hugging Face tokenizers
func BenchmarkEncode(b *testing.B) {
	tok := qwen(b)
	text := benchText(b, benchBytes)
	ids := tok.Encode(text)
	b.Logf("text: %d bytes, sha256 %x, %d tokens", len(text), sha256.Sum256([]byte(text)), len(ids))
	b.SetBytes(int64(len(text)))
	cpu := cpuSeconds()
	for b.Loop() {
		tok.Encode(text)
	}
	reportCPU(b, cpu, len(text))
}

// reportCPU adds the throughput per CPU second ("MB/cpu-s"): on a machine shared with other jobs
// the wall clock (MB/s) undercounts, and scripts/bench_tokenizer.py reports the same measure.
func reportCPU(b *testing.B, start float64, bytes int) {
	if used := cpuSeconds() - start; used > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/used/1e6, "MB/cpu-s")
	}
}

// BenchmarkEncodeLines encodes the same text one line at a time (about 40,000 lines), the fair
// comparison with Hugging Face, whose encode is very slow on a single 4 MiB string.
func BenchmarkEncodeLines(b *testing.B) {
	tok := qwen(b)
	lines := strings.SplitAfter(benchText(b, benchBytes), "\n")
	n := 0
	for _, line := range lines {
		n += len(tok.Encode(line))
	}
	b.Logf("%d lines, %d tokens", len(lines), n)
	b.SetBytes(int64(benchBytes))
	cpu := cpuSeconds()
	for b.Loop() {
		for _, line := range lines {
			tok.Encode(line)
		}
	}
	reportCPU(b, cpu, benchBytes)
}

// BenchmarkEncodeCold is the same without the cache's help: a fresh tokenizer per run would be
// too slow to build, so the cache is emptied instead.
func BenchmarkEncodeCold(b *testing.B) {
	tok := qwen(b)
	text := benchText(b, benchBytes)
	b.SetBytes(int64(len(text)))
	cpu := cpuSeconds()
	for b.Loop() {
		tok.mu.Lock()
		clear(tok.cache)
		tok.mu.Unlock()
		tok.Encode(text)
	}
	reportCPU(b, cpu, len(text))
}

func TestBenchTextIsDeterministic(t *testing.T) {
	a, b := benchText(t, 1<<16), benchText(t, 1<<16)
	if a != b {
		t.Fatal("benchText is not deterministic")
	}
	// Pinned so that scripts/bench_tokenizer.py can check it builds the same text.
	if got := fmt.Sprintf("%x", sha256.Sum256([]byte(benchText(t, benchBytes)))); got != benchSHA {
		t.Errorf("benchText sha256 = %s, want %s (update scripts/bench_tokenizer.py too)", got, benchSHA)
	}
}

const benchSHA = "ca89dc9486d59ce93ac0d33d230ce5156166aa5ece34d9996ab227c0d1467641"
