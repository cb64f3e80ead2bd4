package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestDotActVNNIMatchesAVX2: the one-token dots in 512-bit registers (quant_avx512vnni_amd64.s) give
// the AVX2 kernels' float32 bits, row by row, so a decode step does not depend on which of the two
// ran, and the batched kernels (AVX2 at every level) still give each token what Step gives it.
// Eleven rows: two groups of four in the 512-bit kernel, three left to the AVX2 one.
func TestDotActVNNIMatchesAVX2(t *testing.T) {
	if Supported() < AVX512VNNI {
		t.Skipf("this CPU has no AVX-512 VNNI (%v): the VNNI dots cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(65, 66))
	const rows = 11
	for typ, dot := range rowsKernels {
		b := blockOf[typ]
		for _, nb := range []int{8, 16, 24, 40} {
			rowBytes := nb * b.bytes
			w := randBlocks(r, typ, rows*nb)
			x := randX(r, nb*b.size)
			x[5] = 70 // a block with one large value
			// and a block at the ends of the int16 range: every value ±32767 (Q6_K's byte planes
			// then hold hi = 127 and -128)
			for i := ActBlock; i < 2*ActBlock; i++ {
				x[i] = float32(1 - 2*(i%2))
			}
			a := NewAct(nb * b.size)
			a.Quantize(x)
			if a.Q[ActBlock] != 32767 || a.Q[ActBlock+1] != -32767 {
				t.Fatalf("the second block quantized to %d, %d, want ±32767", a.Q[ActBlock], a.Q[ActBlock+1])
			}
			var outs [2][rows]float32
			for i, level := range []Level{AVX2, AVX512VNNI} {
				func() {
					defer Limit(level)()
					dot(outs[i][:], w, rowBytes, a)
				}()
			}
			for j := range rows {
				if math.Float32bits(outs[0][j]) != math.Float32bits(outs[1][j]) {
					t.Fatalf("%v, %d blocks: row %d is %v at AVX512VNNI, %v at AVX2: they must agree bit for bit",
						typ, nb, j, outs[1][j], outs[0][j])
				}
			}
		}
	}
}

// TestActPlanesVNNI: with the VNNI kernels on, an Act keeps its values split into bytes (per block
// of 32 the high bytes, signed, then the low bytes: a = 256·hi + lo) for the Q6_K dot, and they
// follow every Quantize: after a Quantize at a lower level the planes are marked stale and the dot
// takes the AVX2 path on the new values.
func TestActPlanesVNNI(t *testing.T) {
	if Supported() < AVX512VNNI {
		t.Skipf("this CPU has no AVX-512 VNNI (%v): no byte planes here", Supported())
	}
	defer Limit(AVX512VNNI)() // also when QWEN3_KERNELS lowered the level
	r := rand.New(rand.NewPCG(73, 74))
	x := randX(r, 256*3)
	x[40] = 0 // a zero among the values; and a block of zeros
	clear(x[64:96])
	a := NewAct(len(x) + 256) // longer than its values, as a chunk's Act is
	a.Quantize(x)
	checkPlanes(t, a, x)

	// Quantize other values at a lower level: the planes still hold x's bytes, and must not be read.
	w := randBlocks(r, gguf.TypeQ6_K, 2*len(x)/256)
	y := randX(r, len(x))
	func() {
		defer Limit(AVX2)()
		a.Quantize(y)
	}()
	if a.arch.n != 0 {
		t.Errorf("after Quantize at avx2 the planes claim %d values", a.arch.n)
	}
	var out [2]float32
	DotQ6_KActRows(out[:], w, len(w)/2, a)
	for row := range 2 {
		want, mag := actRef(t, gguf.TypeQ6_K, w[row*len(w)/2:(row+1)*len(w)/2], a)
		if !closeTo(out[row], want, mag, len(x)) {
			t.Errorf("row %d after a Quantize at avx2: %v, float64 reference %v", row, out[row], want)
		}
	}
}

// arenaPlanes gives a its byte planes in m's buffers (quantizeVNNI fills them instead of making
// its own), so that TestDispatch guards them as it guards the values.
func arenaPlanes(m *arena, what string, a *Act) {
	a.arch.planes = alloc[byte](m, what+".planes", 2*len(a.Q))
}
