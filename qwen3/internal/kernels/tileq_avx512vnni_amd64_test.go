package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTileQVNNIMatchesAVX2: the AVX-512 VNNI TileQ gives the float32 bits of the AVX2 one, for
// every type, a Q4_K pack's minimum terms and missing rows included: their integer sums are exact
// and each scale block's flush does the same float operations in the same order. (TestTileQ holds
// every level, generic included, to chapter 01 within float32 rounding; this is the stricter
// check that the two assembly forms are interchangeable.) It needs a CPU with AVX-512 VNNI, as the
// build machine has; TestVNNIChosen checks that such a CPU does run the VNNI kernel.
func TestTileQVNNIMatchesAVX2(t *testing.T) {
	if Supported() < AVX512VNNI {
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
		for i, level := range []Level{AVX2, AVX512VNNI} {
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
