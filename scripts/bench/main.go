// Command bench measures the qwen3 engine on one checkpoint: prompt processing (prefill) at
// several lengths, decoding at several context depths, and peak memory, in one process.
//
//	go run ./scripts/bench -model DIR/qwen3-0.6b-q8_0.gguf [-prefill 128,512,2048] [-decode 64] [-depth 0,2048]
//	go run ./scripts/bench -model FILE -prefill '' -decode 64 -batch 1,2,4,8 [-batch-prompt 128]
//	go run ./scripts/bench -measure-read
//
// The KV cache's type is the engine's default (qwen3.KVAuto: float32 for a cache of up to 4096
// tokens, float16 for a longer one, as for -prefill 8192, and for a batch's caches); -kv f32 or
// -kv f16 fixes it (qwen3.WithKVCache). -exact keeps the inputs of quantized matrices in float32
// (qwen3.WithExactActivations). The RESULT lines say kv=f16 when the cache was float16, exact=1.
//
// -batch B1,B2,... measures batched generation as llama.cpp's llama-batched-bench does: B
// different prompts of -batch-prompt tokens each prefilled (each alone, the aggregate rate is
// reported), then -decode tokens of every sequence decoded together by a qwen3.Batch; the RESULT
// lines carry batch=B and aggregate tokens per second (B·tokens / time).
//
// Each prefill test starts from an empty cache; decoding at depth D first fills the cache with D
// tokens (reusing a prefill test of D tokens when there is one) and then times -decode steps.
// Every test prints a line for people and a RESULT line that scripts/bench/compare reads:
//
//	RESULT test=decode tokens=64 depth=2048 tok_s=8.1 bytes_per_token=... kv_bytes_per_token=...
//
// -measure-read prints the read bandwidth of all cores (one pass over 1 GiB, best of 5): decoding a
// token streams every weight once, so bandwidth / bytes per token bounds decode speed. A read
// stream, not a copy: a copy also writes, and its figure overstates what a read-only pass gets.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/scripts/bench/internal/ints"
)

func main() {
	model := flag.String("model", "", "GGUF file or Hugging Face directory")
	prefill := flag.String("prefill", "128", "prompt lengths to time, comma-separated (empty: none)")
	decode := flag.Int("decode", 64, "tokens to decode per depth (0: none)")
	depth := flag.String("depth", "0", "context depths to decode at, comma-separated")
	threads := flag.Int("threads", runtime.NumCPU(), "cores")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed tests to this file")
	readOnly := flag.Bool("measure-read", false, "only measure and print the read bandwidth")
	batch := flag.String("batch", "", "batch sizes for batched generation, comma-separated (empty: none)")
	batchPrompt := flag.Int("batch-prompt", 128, "prompt tokens of each sequence of a batch")
	var kvType qwen3.KVType
	flag.TextVar(&kvType, "kv", qwen3.KVAuto, "the KV cache's element `type`: auto (the engine's choice), f32 or f16")
	exact := flag.Bool("exact", false, "float32 inputs for the quantized matrices (qwen3.WithExactActivations)")
	flag.Parse()
	if *readOnly {
		fmt.Printf("READ %.2f\n", readBandwidth(*threads)/1e9)
		return
	}
	prefills, err1 := ints.Parse(*prefill)
	depths, err2 := ints.Parse(*depth)
	batches, err3 := ints.Parse(*batch)
	if *model == "" || err1 != nil || err2 != nil || err3 != nil || *decode < 0 || *threads < 1 || *batchPrompt < 1 {
		fmt.Fprintln(os.Stderr, "usage: bench -model PATH [-prefill 128,512] [-decode 64] [-depth 0,2048] [-batch 1,2,4,8 [-batch-prompt 128]] [-threads N] [-kv f16] [-exact] | -measure-read")
		for _, err := range []error{err1, err2, err3} {
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
			}
		}
		os.Exit(2)
	}
	opts := []qwen3.LoadOption{qwen3.WithThreads(*threads), qwen3.WithPrefault(nil), qwen3.WithKVCache(kvType)}
	if *exact {
		opts = append(opts, qwen3.WithExactActivations())
	}
	if len(batches) > 0 {
		if err := runBatched(*model, opts, batches, *batchPrompt, *decode, *threads, *profile); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*model, opts, *threads, prefills, *decode, depths, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(path string, opts []qwen3.LoadOption, threads int, prefills []int, nDecode int, depths []int, profile string) error {
	loadStart := time.Now()
	m, err := qwen3.Load(context.Background(), path, opts...)
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Printf("model       %s (%s), loaded in %.2f s\n", path, describe(m, threads), time.Since(loadStart).Seconds())
	longest := max(nDecode+1, 12) // the warm-up below takes 12 tokens
	for _, n := range prefills {
		longest = max(longest, n)
	}
	for _, d := range depths {
		longest = max(longest, d+nDecode+1)
	}
	s, err := m.NewCache(longest)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Printf("cache       %d tokens, %v\n", longest, s.Type())
	r := rand.New(rand.NewPCG(1, 2))
	prompt := make([]int, longest)
	for i := range prompt {
		prompt[i] = r.IntN(150000)
	}
	ctx := context.Background()
	// warm-up: one short prefill and a few steps, then start over
	if _, err := s.Prefill(ctx, prompt[:8]); err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		if _, err := s.Step(prompt[8+i]); err != nil {
			return err
		}
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	result := func(test string, tokens, depth int, d time.Duration, bytes, kv int64) {
		rate := float64(tokens) / d.Seconds()
		fmt.Printf("%-7s     %d tokens at depth %d in %.2f s = %.2f tok/s\n", test, tokens, depth, d.Seconds(), rate)
		fmt.Printf("RESULT test=%s tokens=%d depth=%d tok_s=%.3f bytes_per_token=%d kv_bytes_per_token=%d type=%v%s\n",
			test, tokens, depth, rate, bytes, kv, m.WeightType(), settings(m, s.Type()))
	}
	filled := -1 // the session's length after the last prefill test, to reuse for a decode depth
	for _, n := range prefills {
		if n == 0 {
			continue
		}
		s.Reset()
		start := time.Now()
		if _, err := s.Prefill(ctx, prompt[:n]); err != nil {
			return err
		}
		result("prefill", n, 0, time.Since(start), 0, 0)
		filled = n
	}
	if nDecode > 0 {
		// the depth the last prefill test left in the cache first, so that its fill is reused
		order := slices.Clone(depths)
		slices.SortStableFunc(order, func(a, b int) int {
			if (a == filled) != (b == filled) {
				if a == filled {
					return -1
				}
				return 1
			}
			return a - b
		})
		for _, d := range order {
			if filled != d {
				s.Reset()
				if d > 0 {
					if _, err := s.Prefill(ctx, prompt[:d]); err != nil {
						return err
					}
				}
			}
			start := time.Now()
			for i := 0; i < nDecode; i++ {
				if _, err := s.Step(prompt[d+i]); err != nil {
					return err
				}
			}
			// bytes streamed per decoded token: every weight once, and the keys and values of
			// the context (in the cache's type) at the middle of the run
			kv := s.BytesPerToken() * int64(d+nDecode/2)
			result("decode", nDecode, d, time.Since(start), m.WeightBytes()+kv, kv)
			filled = -1
		}
	}
	return nil
}

// runBatched measures batched generation for each batch size: b prompts of pp random tokens
// prefilled one after the other, then nDecode tokens of each decoded together. A profile, when
// asked for, covers the timed batched decoding only.
func runBatched(path string, opts []qwen3.LoadOption, batches []int, pp, nDecode, threads int, profile string) error {
	m, err := qwen3.Load(context.Background(), path, opts...)
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Printf("model       %s (%s), batched\n", path, describe(m, threads))
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	warm := true
	var prof *os.File
	if profile != "" {
		if prof, err = os.Create(profile); err != nil {
			return err
		}
		defer prof.Close()
	}
	for _, b := range batches {
		if b < 1 {
			return fmt.Errorf("batch size %d", b)
		}
		batch, err := m.NewBatch(b)
		if err != nil {
			return err
		}
		sessions := make([]*qwen3.Cache, b)
		prompts := make([][]int, b)
		for i := range sessions {
			if sessions[i], err = batch.NewCache(pp + nDecode + 1); err != nil {
				return err
			}
			prompts[i] = make([]int, pp+nDecode)
			for j := range prompts[i] {
				prompts[i][j] = r.IntN(150000)
			}
		}
		for {
			start := time.Now()
			for i, s := range sessions {
				s.Reset()
				if _, err := s.Prefill(ctx, prompts[i][:pp]); err != nil {
					return err
				}
			}
			tPrefill := time.Since(start)
			ids := make([]int, b)
			if prof != nil && !warm {
				if err := pprof.StartCPUProfile(prof); err != nil {
					return err
				}
			}
			start = time.Now()
			for t := range nDecode {
				for i := range ids {
					ids[i] = prompts[i][pp+t]
				}
				if _, err := batch.Step(sessions, ids); err != nil {
					return err
				}
			}
			tDecode := time.Since(start)
			if prof != nil && !warm {
				pprof.StopCPUProfile()
				prof = nil // one batch size: the first one measured
			}
			if warm { // the first batch size runs twice: the first time warms the caches and pages
				warm = false
				continue
			}
			for _, t := range []struct {
				test   string
				tokens int
				d      time.Duration
			}{{"prefill", pp, tPrefill}, {"decode", nDecode, tDecode}} {
				rate := float64(b*t.tokens) / t.d.Seconds()
				fmt.Printf("%-7s     %d sequences x %d tokens in %.2f s = %.2f tok/s (all sequences)\n", t.test, b, t.tokens, t.d.Seconds(), rate)
				fmt.Printf("RESULT test=%s tokens=%d depth=0 batch=%d tok_s=%.3f bytes_per_token=0 kv_bytes_per_token=0 type=%v%s\n", t.test, t.tokens, b, rate, m.WeightType(), settings(m, sessions[0].Type()))
			}
			break
		}
		for _, s := range sessions {
			s.Close() // the next batch size starts from the weights alone
		}
	}
	return nil
}

// describe names what was loaded and how: source, weights, threads, cache, activations.
func describe(m *qwen3.Model, threads int) string {
	s := fmt.Sprintf("%s, %v weights, %d threads, %v KV cache", m.Source(), m.WeightType(), threads, m.KVCache())
	if m.ExactActivations() {
		s += ", exact activations"
	}
	if m.HugePages() {
		s += ", weights in huge pages"
		if kb, ok := anonHugeKB(); ok {
			s += fmt.Sprintf(" (%d MB backed so)", kb>>10)
		}
	}
	return s
}

// anonHugeKB is the process's memory in transparent huge pages (AnonHugePages of
// /proc/self/smaps_rollup, Linux), in kB.
func anonHugeKB() (int, bool) {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb, err == nil
		}
	}
	return 0, false
}

// settings are the RESULT fields of the cache's type and the engine's options that differ from
// float32 and the defaults, so that compare's existing keys stay as they were: " kv=f16",
// " exact=1".
func settings(m *qwen3.Model, kv qwen3.KVType) string {
	s := ""
	if kv != qwen3.KVFloat32 {
		s += fmt.Sprintf(" kv=%v", kv)
	}
	if m.ExactActivations() {
		s += " exact=1"
	}
	return s
}

// readBandwidth reads a 1 GiB buffer (in huge pages where Linux has them: readBuffer) with all
// cores, five times, and returns the best rate in bytes per second. The reads are AVX2 loads with
// a software prefetch 4 KB ahead, as the engine's dot products make: a single core keeps too few
// reads in flight without it (read_amd64.s).
func readBandwidth(threads int) float64 {
	const size = 1 << 30
	buf := readBuffer(size)
	for i := range buf {
		buf[i] = byte(i)
	}
	best := 0.0
	var sink uint64
	for rep := 0; rep < 5; rep++ {
		start := time.Now()
		var wg sync.WaitGroup
		sums := make([]uint64, threads)
		for w := 0; w < threads; w++ {
			part := buf[w*size/threads : (w+1)*size/threads]
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[w] = read(part)
			}()
		}
		wg.Wait()
		best = max(best, size/time.Since(start).Seconds())
		for _, v := range sums {
			sink ^= v
		}
	}
	if sink == 1 { // keep the reads alive
		fmt.Print("")
	}
	return best
}

// readGo xors b eight bytes at a time (the portable read).
func readGo(b []byte) uint64 {
	var s uint64
	for len(b) >= 8 {
		s ^= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, v := range b {
		s ^= uint64(v)
	}
	return s
}
