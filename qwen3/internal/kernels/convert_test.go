package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

func TestTranspose8(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, k := range []int{1, 7, 8, 9, 64, 100} {
		srcStride, dstStride := k+3, 16
		src := randX(r, 7*srcStride+k)
		dst := make([]float32, (k-1)*dstStride+8)
		Transpose8(dst, dstStride, src, srcStride, k)
		for i := 0; i < 8; i++ {
			for j := 0; j < k; j++ {
				if dst[j*dstStride+i] != src[i*srcStride+j] {
					t.Fatalf("k=%d: dst[%d*%d+%d] = %v, src[%d][%d] = %v", k, j, dstStride, i, dst[j*dstStride+i], i, j, src[i*srcStride+j])
				}
			}
		}
	}
}

// The conversions must agree with chapter 01's dequantizer bit for bit.
func TestWidenAndDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{0, 5, 8, 37, 1024} {
		raw := make([]byte, 2*n)
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		u := make([]uint16, n)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		for name, c := range map[string]struct {
			typ  gguf.GGMLType
			conv func([]float32, []uint16)
		}{"BF16": {gguf.TypeBF16, WidenBF16}, "F16": {gguf.TypeF16, WidenF16}} {
			got := make([]float32, n)
			c.conv(got, u)
			want := dequant(t, c.typ, raw, n)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s n=%d: value %d = %v, chapter 01 %v", name, n, i, got[i], want[i])
				}
			}
		}
	}
	for _, nb := range []int{0, 1, 3, 32} {
		w := q8Blocks(r, nb)
		got := make([]float32, nb*Q8BlockSize)
		DecodeQ8_0(got, w)
		want := dequant(t, gguf.TypeQ8_0, w, nb*Q8BlockSize)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("Q8_0 %d blocks: value %d = %v, chapter 01 %v", nb, i, got[i], want[i])
			}
		}
	}
}
