package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// cpuMeter reports a rate per ns of the benchmark thread's CPU time beside the wall-clock one: on a
// machine shared with other jobs the wall clock also counts their turns on the core (the course's
// 2-core machine often runs other people's tests and trainings), the thread's CPU time does not.
type cpuMeter struct{ t0 int64 }

func startCPU() cpuMeter {
	runtime.LockOSThread()
	return cpuMeter{threadCPU()}
}

// report adds unit/ns and unit/cpu-ns for perOp units of work (multiply-adds, bytes) per op.
func (m cpuMeter) report(b *testing.B, perOp float64, unit string) {
	cpu := threadCPU() - m.t0
	runtime.UnlockOSThread()
	b.ReportMetric(perOp*float64(b.N)/float64(b.Elapsed().Nanoseconds()), unit+"/ns")
	if cpu > 0 {
		b.ReportMetric(perOp*float64(b.N)/float64(cpu), unit+"/cpu-ns")
	}
}

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
	m := startCPU()
	for b.Loop() {
		dot(out, w, len(w)/rows, a)
	}
	m.report(b, float64(rows*1024), "MAC")
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
	m := startCPU()
	for b.Loop() {
		dot(out, rows, rows, w, len(w)/rows, a, tokens)
	}
	m.report(b, float64(rows*cols*tokens), "MAC")
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
	m := startCPU()
	for b.Loop() {
		DotBF16RowsN(out, rows, rows, w, cols, x, cols, tokens)
	}
	m.report(b, float64(rows*cols*tokens), "MAC")
}

// Decoding streams each matrix from memory: 128 MB of rows of 1024 weights (four times the L3),
// 32 rows per kernel call as the engine's passes make them, on one core. B/ns is weight bytes per
// ns (GB/s); the one-token kernels' prefetching is what this measures, beside their arithmetic.
func benchStream(b *testing.B, typ gguf.GGMLType) {
	r := rand.New(rand.NewPCG(1, 1))
	const cols = 1024
	rb := cols / blockOf[typ].size * blockOf[typ].bytes
	rows := (128 << 20) / rb / 32 * 32
	w := randBlocks(r, typ, rows*cols/blockOf[typ].size)
	a := NewAct(cols)
	a.Quantize(randX(r, cols))
	out := make([]float32, 32)
	dot := rowsKernels[typ]
	m := startCPU()
	for b.Loop() {
		for r0 := 0; r0 < rows; r0 += 32 {
			dot(out, w[r0*rb:(r0+32)*rb], rb, a)
		}
	}
	m.report(b, float64(len(w)), "B")
}

func BenchmarkStreamQ8_0Act(b *testing.B) { benchStream(b, gguf.TypeQ8_0) }
func BenchmarkStreamQ4_0Act(b *testing.B) { benchStream(b, gguf.TypeQ4_0) }
func BenchmarkStreamQ4_KAct(b *testing.B) { benchStream(b, gguf.TypeQ4_K) }
func BenchmarkStreamQ6_KAct(b *testing.B) { benchStream(b, gguf.TypeQ6_K) }

// BenchmarkStreamBF16: benchStream for BF16 rows (the one-token float kernel of decoding).
func BenchmarkStreamBF16(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const cols = 1024
	rows := (128 << 20) / (2 * cols) / 32 * 32
	w := make([]uint16, rows*cols)
	for i := range w {
		w[i] = uint16(math.Float32bits(float32(r.NormFloat64())) >> 16)
	}
	x := randX(r, cols)
	out := make([]float32, 32)
	m := startCPU()
	for b.Loop() {
		for r0 := 0; r0 < rows; r0 += 32 {
			DotBF16Rows(out, w[r0*cols:(r0+32)*cols], cols, x)
		}
	}
	m.report(b, float64(2*len(w)), "B")
}
