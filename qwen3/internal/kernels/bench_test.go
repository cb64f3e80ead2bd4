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

// The activation-quantized kernels of decoding, per 1024-weight row (the Act quantized once).
func benchDotAct(b *testing.B, typ gguf.GGMLType) {
	r := rand.New(rand.NewPCG(1, 1))
	w := randBlocks(r, typ, 1024/blockOf[typ].size)
	a := NewAct(1024)
	a.Quantize(randX(r, 1024))
	dot := dotAct[typ]
	b.SetBytes(int64(len(w)))
	for b.Loop() {
		dot(w, a)
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
