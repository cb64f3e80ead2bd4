package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTileQNMatchesTileQ: the VNNI TileQN gives, for every row and token, the float32 bits the
// VNNI TileQ gives in a prompt, for every type: the same exact integer sums of a block, and the
// same flush (c = S·s, o = fma(float(sum), c, o), then o − M·Sum fused), whichever of rows and
// tokens the lanes are. Twelve tokens of a chunk, 32 rows (three missing from the pack's), 1024
// columns.
func TestTileQNMatchesTileQ(t *testing.T) {
	if Supported() < AVX512VNNI {
		t.Skipf("this CPU has no AVX-512 VNNI (%v): the VNNI TileQN cannot run here", Supported())
	}
	defer Limit(AVX512VNNI)() // the VNNI forms, whatever level QWEN3_KERNELS chose
	r := rand.New(rand.NewPCG(85, 86))
	const k, rows = 1024, 32
	for typ, kind := range qKinds {
		b := blockOf[typ]
		rowBytes := k / b.size * b.bytes
		w := randBlocks(r, typ, rows*k/b.size)
		a := NewAct(TileTokens * k)
		x := randX(r, TileTokens*k)
		x[k*7+3] = -60 // a block with one large value
		a.Quantize(x)
		var tile [TileTokens * TileRows]float32
		p := NewQPack(k)
		p.Pack(kind, k, w, rowBytes, rows)
		TileQ(p, a, 0, &tile)
		xn := NewActN(TileTokens, k)
		xn.Set(a, TileTokens, k)
		out := make([]float32, TileTokens*rows)
		TileQN(kind, out, rows, rows, w, rowBytes, xn)
		for tok := range TileTokens {
			for i := range rows {
				if got, want := out[tok*rows+i], tile[tok*TileRows+i]; math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%v: token %d row %d: TileQN %v, TileQ %v: they must agree bit for bit", typ, tok, i, got, want)
				}
			}
		}
	}
}
