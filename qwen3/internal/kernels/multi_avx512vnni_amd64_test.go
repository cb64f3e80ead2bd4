package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestDotActNVNNIMatchesAVX2: the batched dots in 512-bit registers (multi_avx512vnni_amd64.s, two
// tokens to a register) give the AVX2 batched kernels' float32 bits, token by token and row by
// row, and write nothing between one token's rows and the next's. Rows of 1024 and 3072 values
// as the engine's matrices have, shorter ones, and widths the 512-bit kernels leave to the others
// (Q8_0 and Q4_0 rows that are not whole groups of eight blocks); 1 to 9 tokens, so that the
// kernels for eight, four and two tokens all run and a last odd token goes to the one-token
// kernel; one activation block with a large value (its scale far from its neighbours'). Seven
// rows: the kernels go row by row, and a row count that is not even catches a pair of rows done
// at once; 67 for some of the 3072-value rows, which are done in passes over pieces of their
// columns (vnniChunk), 64 rows at a time. (TestDotActRowsN holds every level to the one-token kernels; this is the stricter
// check that the two assembly forms are interchangeable, with the widths and token counts the
// 512-bit kernels care about.) It needs a CPU with AVX-512 VNNI.
func TestDotActNVNNIMatchesAVX2(t *testing.T) {
	if Supported() < AVX512VNNI {
		t.Skipf("this CPU has no AVX-512 VNNI (%v): the 512-bit batched dots cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(77, 78))
	for typ, rowsN := range rowsNKernels {
		b := blockOf[typ]
		for _, cols := range []int{256, 512, 1024, 3072, 768 + 96} {
			if cols%b.size != 0 {
				continue
			}
			for tokens := 1; tokens <= 9; tokens++ {
				rows := 7
				if cols == 3072 && tokens%4 == 0 {
					rows = vnniRowBlock + 3 // passes over pieces of the columns, for two blocks of rows
				}
				nb, stride := cols/b.size, rows+2
				rowBytes := nb * b.bytes
				w := randBlocks(r, typ, rows*nb)
				x := randX(r, tokens*cols)
				x[(tokens-1)*cols+37] = -90 // one large value in the second block of the last token
				a := NewAct(tokens * cols)
				a.Quantize(x)
				var outs [2][]float32
				for i, level := range []Level{AVX2, AVX512VNNI} {
					outs[i] = make([]float32, (tokens-1)*stride+rows)
					for j := range outs[i] {
						outs[i][j] = sentinel
					}
					func() {
						defer Limit(level)()
						rowsN(outs[i], stride, rows, w, rowBytes, a, tokens)
					}()
				}
				for j, want := range outs[0] {
					if got := outs[1][j]; math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%v, %d values, %d tokens: token %d row %d is %v at AVX512VNNI, %v at AVX2: they must agree bit for bit",
							typ, cols, tokens, j/stride, j%stride, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkStreamDotActN: the batched kernels for eight tokens streaming 128 MB of weights from
// memory, 32 rows per call as the engine's passes make them, in rows of 1024 values (most
// matrices) and of 3072 (the down projection: eight tokens' activations no longer fit in L1 with
// the weights). MAC/ns counts the multiply-adds of all tokens; compare with the in-cache
// BenchmarkDot*ActN.
func BenchmarkStreamDotActN(b *testing.B) {
	for _, typ := range []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K} {
		for _, cols := range []int{1024, 3072} {
			b.Run(fmt.Sprintf("%v/%d", typ, cols), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 1))
				const tokens = 8
				rb := cols / blockOf[typ].size * blockOf[typ].bytes
				rows := (128 << 20) / rb / 32 * 32
				w := randBlocks(r, typ, rows*cols/blockOf[typ].size)
				a := NewAct(tokens * cols)
				a.Quantize(randX(r, tokens*cols))
				out := make([]float32, tokens*32)
				dot := rowsNKernels[typ]
				m := startCPU()
				for b.Loop() {
					for r0 := 0; r0 < rows; r0 += 32 {
						dot(out, 32, 32, w[r0*rb:(r0+32)*rb], rb, a, tokens)
					}
				}
				m.report(b, float64(rows*cols*tokens), "MAC")
			})
		}
	}
}
