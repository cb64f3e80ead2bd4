package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"golang.org/x/sys/cpu"
)

// TestTileQVNNIMatchesAVX2: the AVX-512 VNNI TileQ gives the float32 bits of the AVX2 one, for
// every type, a Q4_K pack's minimum terms and missing rows included: their integer sums are exact
// and each scale block's flush does the same float operations in the same order. (TestTileQ holds
// every level, generic included, to chapter 01 within float32 rounding; this is the stricter
// check that the two assembly forms are interchangeable.) It needs a CPU with AVX-512 VNNI, as the
// build machine has; TestVNNIChosen checks that such a CPU does run the VNNI kernel.
func TestTileQVNNIMatchesAVX2(t *testing.T) {
	if Supported() < AVX512 || !cpu.X86.HasAVX512VNNI {
		t.Skipf("this CPU has no AVX-512 VNNI (%v): the VNNI TileQ cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(63, 64))
	const k = 1024
	for typ, kind := range qKinds {
		b := blockOf[typ]
		w := randBlocks(r, typ, TileRows*k/b.size)
		a := NewAct((TileTokens + 5) * k)
		x := randX(r, (TileTokens+5)*k)
		x[k*7+3] = -60 // a block with one large value
		a.Quantize(x)
		var outs [2][TileTokens * TileRows]float32
		for i, level := range []Level{AVX2, AVX512} {
			func() {
				defer Limit(level)()
				p := NewQPack(k)
				p.Pack(kind, k, w, k/b.size*b.bytes, TileRows-3)
				TileQ(p, a, 5, &outs[i])
			}()
		}
		for j := range outs[0] {
			if math.Float32bits(outs[0][j]) != math.Float32bits(outs[1][j]) {
				t.Fatalf("%v: the VNNI TileQ gives %v for token %d row %d, the AVX2 one %v: they must agree bit for bit",
					typ, outs[1][j], j/TileRows, j%TileRows, outs[0][j])
			}
		}
	}
}

// TestVNNIChosen: on a CPU with AVX-512 VNNI the AVX512 level runs the VNNI TileQ (which
// TestTileQVNNIMatchesAVX2 holds to AVX2's bits), and AVX2 does not.
func TestVNNIChosen(t *testing.T) {
	want := Supported() >= AVX512 && cpu.X86.HasAVX512VNNI
	func() {
		defer Limit(AVX512)()
		if useVNNI != want {
			t.Errorf("at %v on this CPU (AVX-512 VNNI %v): useVNNI = %v, want %v", Active(), cpu.X86.HasAVX512VNNI, useVNNI, want)
		}
	}()
	defer Limit(AVX2)()
	if useVNNI {
		t.Error("Limit(AVX2) left the VNNI kernels on")
	}
}

// TestDotActVNNIMatchesAVX2: the one-token dots in 512-bit registers (quant_avx512vnni_amd64.s) give
// the AVX2 kernels' float32 bits, row by row, so a decode step does not depend on which of the two
// ran, and the batched kernels (AVX2 at every level) still give each token what Step gives it.
// Eleven rows: two groups of four in the 512-bit kernel, three left to the AVX2 one.
func TestDotActVNNIMatchesAVX2(t *testing.T) {
	if Supported() < AVX512 || !cpu.X86.HasAVX512VNNI {
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
			for i, level := range []Level{AVX2, AVX512} {
				func() {
					defer Limit(level)()
					dot(outs[i][:], w, rowBytes, a)
				}()
			}
			for j := range rows {
				if math.Float32bits(outs[0][j]) != math.Float32bits(outs[1][j]) {
					t.Fatalf("%v, %d blocks: row %d is %v at AVX512, %v at AVX2: they must agree bit for bit",
						typ, nb, j, outs[1][j], outs[0][j])
				}
			}
		}
	}
}

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

// TestActPlanesVNNI: with the VNNI kernels on, an Act keeps its values split into bytes (per block
// of 32 the high bytes, signed, then the low bytes: a = 256·hi + lo) for the Q6_K dot, and they
// follow every Quantize: after a Quantize at a lower level the planes are marked stale and the dot
// takes the AVX2 path on the new values.
func TestActPlanesVNNI(t *testing.T) {
	if Supported() < AVX512 || !cpu.X86.HasAVX512VNNI {
		t.Skipf("this CPU has no AVX-512 VNNI (%v): no byte planes here", Supported())
	}
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
