// Command bench measures the qwen3 engine on one checkpoint: prefill and decode speed, each also
// as a fraction of the memory-bandwidth bound measured in the same run, and peak memory.
//
//	go run ./scripts/bench -model /tmp/qwen3-synth/qwen3-0.6b-q8_0.gguf [-prefill 128] [-decode 64]
//
// The bound: decoding one token streams every layer matrix and the LM head from memory once
// (Model.WeightBytes), so decode can be no faster than bandwidth / WeightBytes tokens per second.
// Bandwidth is measured here, with all cores, as a copy of two 512 MB buffers counted STREAM's way
// (bytes read + bytes written per second, best of 10). Run one checkpoint per process so that the
// peak resident memory belongs to that checkpoint (scripts/bench.sh does).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/qwen3go/qwen3go/qwen3"
)

func main() {
	model := flag.String("model", "", "GGUF file or Hugging Face directory")
	prefill := flag.Int("prefill", 128, "prompt tokens")
	decode := flag.Int("decode", 64, "decoded tokens")
	threads := flag.Int("threads", runtime.NumCPU(), "cores")
	profile := flag.String("cpuprofile", "", "write a CPU profile of prefill and decode to this file")
	bwFlag := flag.Float64("bandwidth", 0, "copy bandwidth in GB/s to compute the bound with (default: measure it)")
	bwOnly := flag.Bool("measure-bandwidth", false, "only measure and print the copy bandwidth")
	flag.Parse()
	if *bwOnly {
		fmt.Printf("BANDWIDTH %.2f\n", copyBandwidth(*threads)/1e9)
		return
	}
	if *model == "" || *prefill < 1 || *decode < 1 {
		fmt.Fprintln(os.Stderr, "usage: bench -model PATH [-prefill N] [-decode N] [-threads N]")
		os.Exit(2)
	}
	if err := run(*model, *prefill, *decode, *threads, *profile, *bwFlag*1e9); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(path string, nPrefill, nDecode, threads int, profile string, bw float64) error {
	if bw <= 0 {
		bw = copyBandwidth(threads)
		resetPeakRSS() // the bandwidth buffers are not the model's memory
	}
	loadStart := time.Now()
	m, err := qwen3.Load(path, qwen3.WithThreads(threads), qwen3.WithPrefault(nil))
	if err != nil {
		return err
	}
	defer m.Close()
	load := time.Since(loadStart)
	s, err := m.NewSession(nPrefill + nDecode + 1)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	prompt := make([]int, nPrefill)
	for i := range prompt {
		prompt[i] = r.IntN(150000)
	}
	ctx := context.Background()
	// warm-up: one short prefill, then start over
	if _, err := s.Prefill(ctx, prompt[:min(8, nPrefill)]); err != nil {
		return err
	}
	s.Reset()
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
	start := time.Now()
	if _, err := s.Prefill(ctx, prompt); err != nil {
		return err
	}
	prefill := time.Since(start)
	// Decode in three rounds from the same prompt and keep the median round: the machine's
	// noise moves single rounds by 10-20%.
	var rounds []time.Duration
	for range 3 {
		s.Truncate(nPrefill)
		start = time.Now()
		for i := 0; i < nDecode; i++ {
			if _, err := s.Step(prompt[i%nPrefill]); err != nil {
				return err
			}
		}
		rounds = append(rounds, time.Since(start))
	}
	slices.Sort(rounds)
	decode := rounds[1]

	bytesPerToken := float64(m.WeightBytes())
	decodeRate := float64(nDecode) / decode.Seconds()
	prefillRate := float64(nPrefill) / prefill.Seconds()
	bound := bw / bytesPerToken
	fmt.Printf("model       %s (%s, %v weights, %d threads)\n", path, m.Source, m.Type, threads)
	fmt.Printf("load        %.2f s (mapped, every page touched)\n", load.Seconds())
	fmt.Printf("bandwidth   %.2f GB/s copy (read+write, all cores, best measured)\n", bw/1e9)
	fmt.Printf("stream      %.3f GB per decoded token -> bound %.2f tok/s\n", bytesPerToken/1e9, bound)
	fmt.Printf("prefill     %d tokens in %.2f s = %.2f tok/s\n", nPrefill, prefill.Seconds(), prefillRate)
	fmt.Printf("decode      %d tokens in %.2f s (median of 3 rounds) = %.2f tok/s = %.2f of the bandwidth bound\n", nDecode, decode.Seconds(), decodeRate, decodeRate/bound)
	fmt.Printf("peak RSS    %.0f MB\n", peakRSS()/1e6)
	fmt.Printf("RESULT type=%v prefill_tps=%.3f decode_tps=%.3f bound_tps=%.3f fraction=%.3f rss_mb=%.0f bw_gbs=%.2f\n",
		m.Type, prefillRate, decodeRate, bound, decodeRate/bound, peakRSS()/1e6, bw/1e9)
	return nil
}

// copyBandwidth copies a 512 MB buffer into another with all cores, ten times, and returns the
// best rate in bytes per second, counting the bytes read and the bytes written. Taking the best
// copy makes the bound as high (and the fraction as low) as this machine allows.
func copyBandwidth(threads int) float64 {
	const size = 512 << 20
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault in the pages
	best := 0.0
	for rep := 0; rep < 10; rep++ {
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < threads; w++ {
			lo, hi := w*size/threads, (w+1)*size/threads
			wg.Add(1)
			go func() {
				defer wg.Done()
				copy(dst[lo:hi], src[lo:hi])
			}()
		}
		wg.Wait()
		best = max(best, 2*size/time.Since(start).Seconds())
	}
	return best
}

// resetPeakRSS returns the bandwidth buffers to the OS and resets Linux's peak-RSS counter
// (writing 5 to /proc/self/clear_refs), so that peakRSS measures the model alone.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		fmt.Fprintln(os.Stderr, "bench: cannot reset the peak RSS counter:", err)
	}
}

// peakRSS is the process's peak resident set size in bytes since resetPeakRSS: VmHWM from
// /proc/self/status, or getrusage's ru_maxrss (since the start) where that file is missing.
func peakRSS() float64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			var kb float64
			if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) * 1024
}
