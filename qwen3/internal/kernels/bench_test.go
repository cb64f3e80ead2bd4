package kernels

import (
	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"math/rand/v2"
	"testing"
)

// In-cache kernel throughput: one 1024-wide row (plus x) stays in L1, so these measure the
// arithmetic, not memory. b.SetBytes counts weight bytes; ns/op is per row.

func BenchmarkDotF32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	w, x := randX(r, 1024), randX(r, 1024)
	b.SetBytes(4 * 1024)
	for b.Loop() {
		DotF32(w, x)
	}
}

func BenchmarkDotBF16(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	w, x := make([]uint16, 1024), randX(r, 1024)
	b.SetBytes(2 * 1024)
	for b.Loop() {
		DotBF16(w, x)
	}
}

func BenchmarkDotQ8_0(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	w, x := q8Blocks(r, 32), randX(r, 1024)
	b.SetBytes(int64(len(w)))
	for b.Loop() {
		DotQ8_0(w, x)
	}
}

// The activation-quantized kernels of decoding: 64 rows of 1024 weights per call, as a chunk of
// a matrix pass (about 36-68 KB: in L2, not memory). ns/op is per call; MB/s counts weight bytes.
func benchDotAct(b *testing.B, typ gguf.GGMLType) {
	r := rand.New(rand.NewPCG(1, 1))
	const rows = 64
	nb := 1024 / blockOf[typ].size
	w := randBlocks(r, typ, rows*nb)
	a := NewAct(1024)
	a.Quantize(randX(r, 1024))
	dot := rowsKernels[typ]
	out := make([]float32, rows)
	b.SetBytes(int64(len(w)))
	for b.Loop() {
		dot(out, w, len(w)/rows, a)
	}
}

func BenchmarkDotQ8_0Act(b *testing.B) { benchDotAct(b, gguf.TypeQ8_0) }
func BenchmarkDotQ4_0Act(b *testing.B) { benchDotAct(b, gguf.TypeQ4_0) }
func BenchmarkDotQ4_KAct(b *testing.B) { benchDotAct(b, gguf.TypeQ4_K) }
func BenchmarkDotQ6_KAct(b *testing.B) { benchDotAct(b, gguf.TypeQ6_K) }

func BenchmarkQuantizeAct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := randX(r, 3072)
	a := NewAct(len(x))
	b.SetBytes(4 * int64(len(x)))
	for b.Loop() {
		a.Quantize(x)
	}
}

// The batched kernels of multi.go: 64 rows of 1024 weights (in cache) for 8 tokens per call;
// MAC/ns counts multiply-adds of all tokens. Compare with benchDotAct's one token per call.
func benchDotActN(b *testing.B, typ gguf.GGMLType, tokens int) {
	r := rand.New(rand.NewPCG(1, 1))
	const rows, cols = 64, 1024
	w := randBlocks(r, typ, rows*cols/blockOf[typ].size)
	a := NewAct(tokens * cols)
	a.Quantize(randX(r, tokens*cols))
	out := make([]float32, tokens*rows)
	dot := rowsNKernels[typ]
	for b.Loop() {
		dot(out, rows, rows, w, len(w)/rows, a, tokens)
	}
	b.ReportMetric(float64(rows*cols*tokens)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
}

func BenchmarkDotQ8_0ActN(b *testing.B) { benchDotActN(b, gguf.TypeQ8_0, 8) }
func BenchmarkDotQ4_0ActN(b *testing.B) { benchDotActN(b, gguf.TypeQ4_0, 8) }
func BenchmarkDotQ4_KActN(b *testing.B) { benchDotActN(b, gguf.TypeQ4_K, 8) }
func BenchmarkDotQ6_KActN(b *testing.B) { benchDotActN(b, gguf.TypeQ6_K, 8) }

// BenchmarkDotBF16RowsN: the batched BF16 kernel, 64 rows of 1024 weights for 8 tokens per call.
func BenchmarkDotBF16RowsN(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const rows, cols, tokens = 64, 1024, 8
	w, x := make([]uint16, rows*cols), randX(r, tokens*cols)
	out := make([]float32, tokens*rows)
	for b.Loop() {
		DotBF16RowsN(out, rows, rows, w, cols, x, cols, tokens)
	}
	b.ReportMetric(float64(rows*cols*tokens)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
}
