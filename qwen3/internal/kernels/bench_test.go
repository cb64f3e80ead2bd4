package kernels

import (
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
