package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotFloatAVX512MatchesAVX2: the BF16 one-token dot in 512-bit registers (dot_avx512_amd64.s)
// gives the AVX2 kernel's float32 bits for every row: 19 rows (two groups of eight, three left to
// the AVX2 kernel), row lengths of one and of several 32-column steps, and one that is no multiple
// of 32 (all AVX2).
func TestDotFloatAVX512MatchesAVX2(t *testing.T) {
	if Supported() < AVX512 {
		t.Skipf("this CPU has no AVX-512 (%v): the AVX-512 BF16 dot cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(67, 68))
	const rows = 19
	for _, cols := range []int{32, 96, 1024, 1032} {
		w := make([]uint16, rows*cols)
		for i := range w {
			w[i] = uint16(math.Float32bits(float32(r.NormFloat64())) >> 16)
		}
		x := randX(r, cols)
		var outs [2][rows]float32
		for i, level := range []Level{AVX2, AVX512} {
			func() {
				defer Limit(level)()
				DotBF16Rows(outs[i][:], w, cols, x)
			}()
		}
		for j := range rows {
			if math.Float32bits(outs[0][j]) != math.Float32bits(outs[1][j]) {
				t.Fatalf("BF16, %d columns: row %d is %v at AVX512, %v at AVX2: they must agree bit for bit", cols, j, outs[1][j], outs[0][j])
			}
		}
	}
}
