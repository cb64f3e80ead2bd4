package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestAttnTileAVX512MatchesAVX2: the attention tiles in 512-bit registers (attn_avx512_amd64.s)
// give the AVX2 tiles' float32 bits, float32 and float16 packs alike, for both row counts, k odd
// and even (tile16x2's two sets of sums), with and without acc: each lane does the same operations
// in the same order, so attention's results do not depend on which level ran. (TestAttnTile holds
// every level to float64 sums; this is the stricter check.)
func TestAttnTileAVX512MatchesAVX2(t *testing.T) {
	if Supported() < AVX512 {
		t.Skipf("this CPU has no AVX-512 F and BW (%v): the AVX-512 attention tiles cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(73, 74))
	for _, rows := range []int{2, AttnRows} {
		for _, k := range []int{1, 2, 3, 16, 127, 128, 300} {
			packStride, xStride, outStride := 16+r.IntN(8), k+r.IntN(5), 16+r.IntN(9)
			pack := randX(r, (k-1)*packStride+AttnLanes)
			half := make([]uint16, len(pack))
			for i, v := range pack {
				half[i] = gguf.F32ToF16(v)
			}
			x := randX(r, (rows-1)*xStride+k)
			for _, acc := range []bool{false, true} {
				start := randX(r, (rows-1)*outStride+AttnLanes)
				var outs [2][2][]float32 // [f16][level]
				for i, level := range []Level{AVX2, AVX512} {
					func() {
						defer Limit(level)()
						outs[0][i] = append([]float32(nil), start...)
						AttnTile(rows, pack, packStride, x, xStride, k, outs[0][i], outStride, acc)
						outs[1][i] = append([]float32(nil), start...)
						AttnTileF16(rows, half, packStride, x, xStride, k, outs[1][i], outStride, acc)
					}()
				}
				for f, name := range []string{"AttnTile", "AttnTileF16"} {
					for j, v := range outs[f][0] {
						if got := outs[f][1][j]; math.Float32bits(got) != math.Float32bits(v) {
							t.Fatalf("%s rows %d k %d acc %v: out[%d] is %v at AVX512, %v at AVX2: they must agree bit for bit",
								name, rows, k, acc, j, got, v)
						}
					}
				}
			}
		}
	}
}
