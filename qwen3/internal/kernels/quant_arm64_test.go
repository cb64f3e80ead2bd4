package kernels

import (
	"math/rand/v2"
	"os"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestLevelDetected: CI runs the kernel tests under qemu once with a CPU that has the dot product
// and once with one that has not (-cpu cortex-a72), and says in QWEN3_KERNELS_EXPECT which level
// each must detect; without it the test only reports what it found.
func TestLevelDetected(t *testing.T) {
	want := os.Getenv("QWEN3_KERNELS_EXPECT")
	if want == "" {
		t.Skipf("this CPU runs %v (set QWEN3_KERNELS_EXPECT to check it)", Supported())
	}
	if got := Supported().String(); got != want {
		t.Errorf("detected %s, want %s", got, want)
	}
}

// TestActPlanes: at DotProd an Act keeps its values split into bytes (the high byte, signed, then
// the low byte, unsigned: a = 256·hi + lo) and 128·Σlo per block, and they follow every Quantize:
// after a Quantize at a lower level the planes are marked stale and the dots take the NEON path.
func TestActPlanes(t *testing.T) {
	if Supported() < DotProd {
		t.Skipf("this CPU has no dot product (%v)", Supported())
	}
	r := rand.New(rand.NewPCG(71, 72))
	x := randX(r, 32*9)
	x[40] = 0 // a zero among the values; and a block of zeros
	clear(x[64:96])
	a := NewAct(len(x) + 64) // longer than its values, as a chunk's Act is
	a.Quantize(x)
	checkPlanes(t, a, x)
	for b := range len(x) / ActBlock {
		var s int32
		for _, lo := range a.arch.planes[64*b+32 : 64*b+64] {
			s += int32(lo)
		}
		if a.arch.lo128[b] != 128*s {
			t.Fatalf("block %d: lo128 %d, want 128·%d", b, a.arch.lo128[b], s)
		}
	}

	// Quantize other values at a lower level: the planes still hold x's bytes, and must not be read.
	w := randBlocks(r, gguf.TypeQ8_0, len(x)/ActBlock)
	y := randX(r, len(x))
	func() {
		defer Limit(NEON)()
		a.Quantize(y)
	}()
	if a.arch.n != 0 {
		t.Errorf("after Quantize at neon the planes claim %d values", a.arch.n)
	}
	want, mag := actRef(t, gguf.TypeQ8_0, w, a)
	if got := DotQ8_0Act(w, a); !closeTo(got, want, mag, len(x)) {
		t.Errorf("dot after a Quantize at neon: %v, float64 reference %v", got, want)
	}
}

// TestDotProdMatchesNEON: SDOT/UDOT on the byte planes compute the same integers as SMLAL on the
// int16 values, and the float steps after them are the same, so the two levels give the same
// float32 bits for every row; also with activations at the ends of the int16 range (±32767,
// whose high byte is ±127/−128) and at the byte boundaries (−256, −1, 255, 256).
func TestDotProdMatchesNEON(t *testing.T) {
	if Supported() < DotProd {
		t.Skipf("this CPU has no dot product (%v)", Supported())
	}
	r := rand.New(rand.NewPCG(73, 74))
	for typ, rowsDot := range rowsKernels {
		b := blockOf[typ]
		const rows, nb = 7, 8
		w := randBlocks(r, typ, rows*nb)
		x := randX(r, nb*b.size)
		for i, v := range []float32{1, -1, 256.0 / 32767, -256.0 / 32767, 255.0 / 32767, -1.0 / 32767} {
			x[32*i] = 1 // each of the first blocks' scale is 1/32767: its values are exact integers
			x[32*i+1+i] = v
			x[32*i+9] = -1
		}
		var got [2][rows]float32
		for i, l := range []Level{NEON, DotProd} {
			func() {
				defer Limit(l)()
				a := NewAct(len(x))
				a.Quantize(x)
				rowsDot(got[i][:], w, len(w)/rows, a)
			}()
		}
		if got[0] != got[1] {
			t.Errorf("%v: neon %v, dotprod %v", typ, got[0], got[1])
		}
	}
}

// arenaPlanes gives a its byte planes and low-byte sums in m's buffers (quantizeDot fills them
// instead of making its own), so that TestDispatch guards them as it guards the values.
func arenaPlanes(m *arena, what string, a *Act) {
	a.arch.planes, a.arch.lo128 = alloc[byte](m, what+".planes", 2*len(a.Q)), alloc[int32](m, what+".lo128", len(a.Q)/ActBlock)
}
