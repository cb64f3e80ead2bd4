package gguf

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The synthetic checkpoint (scripts/make_synthetic.py) has Qwen3-0.6B's real shapes and file layouts
// with random BF16-exact weights: three GGUF files (F32, BF16, Q8_0 matrices) and an HF directory.
// It is too big for git; these tests run when QWEN3_SYNTH points at its directory.

func synthDir(tb testing.TB) string {
	dir := os.Getenv("QWEN3_SYNTH")
	if dir == "" {
		tb.Skip("QWEN3_SYNTH is not set: run scripts/make_synthetic.py and set QWEN3_SYNTH to its output directory to load the full-size checkpoints")
	}
	return dir
}

// rssMB is the process's resident set size in MB (Linux /proc; 0 elsewhere).
func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// TestSyntheticLoad opens each synthetic checkpoint, checks its configuration, tensor names and
// shapes against Qwen3-0.6B, decodes every tensor, and logs open time, decode time and RSS.
// Across doors the values must agree: F32, BF16 and HF exactly (the weights are BF16-exact), Q8_0
// within its quantization error (half a step of the block scale, max|w|/127/2 <= 1% of max|w|).
func TestSyntheticLoad(t *testing.T) {
	dir := synthDir(t)
	want := Qwen3_0_6B()
	probe := "model.layers.13.self_attn.q_proj.weight"
	var ref []float32
	for _, name := range []string{"hf", "qwen3-0.6b-bf16.gguf", "qwen3-0.6b-f32.gguf", "qwen3-0.6b-q8_0.gguf"} {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			rss0 := rssMB()
			start := time.Now()
			src, cfg, closeFn, err := OpenModel(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			open := time.Since(start)
			rssOpen := rssMB()
			if cfg.HiddenSize != want.HiddenSize || cfg.NumHiddenLayers != want.NumHiddenLayers || cfg.HeadDim != want.HeadDim ||
				cfg.NumKeyValueHeads != want.NumKeyValueHeads || cfg.VocabSize != want.VocabSize || cfg.IntermediateSize != want.IntermediateSize {
				t.Errorf("config %+v", cfg)
			}
			names := src.TensorNames()
			wantNames := 2 + 11*want.NumHiddenLayers // 310; the HF file also stores lm_head.weight
			if name == "hf" {
				wantNames++
			}
			if len(names) != wantNames {
				t.Errorf("%d tensors, want %d", len(names), wantNames)
			}
			var params int64
			start = time.Now()
			for _, n := range names {
				shape, err := src.TensorShape(n)
				if err != nil {
					t.Fatal(err)
				}
				x, err := src.TensorFloat32(n)
				if err != nil {
					t.Fatal(err)
				}
				size := int64(1)
				for _, d := range shape {
					size *= int64(d)
				}
				if int64(len(x)) != size {
					t.Fatalf("%s: %d values for shape %v", n, len(x), shape)
				}
				if n != "lm_head.weight" {
					params += size
				}
			}
			decode := time.Since(start)
			if params != CountParams(want).Total() {
				t.Errorf("%d parameters, want %d", params, CountParams(want).Total())
			}
			q, err := src.TensorFloat32(probe)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = q
			} else {
				var maxAbs, maxErr float64
				for i := range q {
					maxAbs = math.Max(maxAbs, math.Abs(float64(ref[i])))
					maxErr = math.Max(maxErr, math.Abs(float64(q[i]-ref[i])))
				}
				tol := 0.0
				if strings.Contains(name, "q8_0") {
					tol = maxAbs / 127 / 2 * 1.01
				}
				if maxErr > tol {
					t.Errorf("%s differs from the HF checkpoint by %g (tolerance %g)", probe, maxErr, tol)
				}
			}
			t.Logf("%-22s open %8v  RSS +%4.0f MB | decode all %d tensors to float32 %6.2fs | RSS %5.0f MB",
				name, open.Round(time.Microsecond), rssOpen-rss0, len(names), decode.Seconds(), rssMB())
		})
	}
}

// BenchmarkOpenSynthetic measures opening (mapping and parsing) the full-size BF16 GGUF file.
func BenchmarkOpenSynthetic(b *testing.B) {
	path := filepath.Join(synthDir(b), "qwen3-0.6b-bf16.gguf")
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
