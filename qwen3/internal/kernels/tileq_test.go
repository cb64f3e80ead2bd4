package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

var qKinds = map[gguf.GGMLType]QKind{gguf.TypeQ8_0: QQ8_0, gguf.TypeQ4_0: QQ4_0, gguf.TypeQ4_K: QQ4_K, gguf.TypeQ6_K: QQ6_K}

// tokenAct is token t's part of a chunk's Act (tokens k values apart).
func tokenAct(a *Act, t, k int) *Act {
	nb := k / ActBlock
	return &Act{Q: a.Q[t*k : (t+1)*k], Scale: a.Scale[t*nb : (t+1)*nb], Sum: a.Sum[t*nb : (t+1)*nb], Sum16: a.Sum16[2*t*nb : 2*(t+1)*nb]}
}

// TestTileQ: every output of TileQ is its row (chapter 01's dequantizer) times its token's Act
// values, in float64, within float32 rounding; for every type, with missing rows (zeros) and a
// pack reused for a narrower matrix.
func TestTileQ(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	eachLevel(t, func(t *testing.T) {
		for typ, kind := range qKinds {
			p := NewQPack(1024)
			for _, c := range []struct{ k, rows, t0 int }{{1024, 32, 0}, {256, 29, 3}, {512, 32, 12}} {
				b := blockOf[typ]
				rowBytes := c.k / b.size * b.bytes
				w := randBlocks(r, typ, c.rows*c.k/b.size)
				tokens := c.t0 + TileTokens
				a := NewAct(tokens * c.k)
				x := randX(r, tokens*c.k)
				x[5] = 40 // a block with one large value
				a.Quantize(x)
				p.Pack(kind, c.k, w, rowBytes, c.rows)
				var out [TileTokens * TileRows]float32
				TileQ(p, a, c.t0, &out)
				for tok := 0; tok < TileTokens; tok++ {
					ta := tokenAct(a, c.t0+tok, c.k)
					for i := 0; i < TileRows; i++ {
						got := out[tok*TileRows+i]
						if i >= c.rows {
							if got != 0 {
								t.Fatalf("%v k=%d: missing row %d gives %v", typ, c.k, i, got)
							}
							continue
						}
						want, mag := actRef(t, typ, w[i*rowBytes:(i+1)*rowBytes], ta)
						if !closeTo(got, want, mag, c.k) {
							t.Fatalf("%v k=%d token %d row %d: %v, float64 reference %v (magnitude %v)", typ, c.k, c.t0+tok, i, got, want, mag)
						}
					}
				}
			}
		}
	})
}

// TestTileQPart: a tile's first n tokens from TileQPart are TileQ's, bit for bit, at every level
// and for every type (the 8-token VNNI kernels where the CPU has them), rows 8-11 of a short
// tile's output aside.
func TestTileQPart(t *testing.T) {
	r := rand.New(rand.NewPCG(79, 80))
	eachLevel(t, func(t *testing.T) {
		for typ, kind := range qKinds {
			const k = 512
			b := blockOf[typ]
			w := randBlocks(r, typ, TileRows*k/b.size)
			p := NewQPack(k)
			p.Pack(kind, k, w, k/b.size*b.bytes, TileRows)
			a := NewAct((TileTokens + 3) * k)
			a.Quantize(randX(r, (TileTokens+3)*k))
			var want [TileTokens * TileRows]float32
			TileQ(p, a, 3, &want)
			for _, n := range []int{1, 5, 8, 9, 12} {
				var got [TileTokens * TileRows]float32
				TileQPart(p, a, 3, n, &got)
				for j := range n * TileRows {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("%v n=%d: token %d row %d is %v, TileQ gives %v", typ, n, j/TileRows, j%TileRows, got[j], want[j])
					}
				}
			}
		}
	})
}

func TestTileQPanics(t *testing.T) {
	p := NewQPack(256)
	for name, f := range map[string]func(){
		"pack too wide": func() { p.Pack(QQ8_0, 512, make([]byte, 32*544), 544, 32) },
		"short Act":     func() { var o [TileTokens * TileRows]float32; TileQ(p, NewAct(256*TileTokens), 1, &o) },
		"k not 32s":     func() { NewQPack(100) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkTileQ is BenchmarkTile's product (32 rows x 12 tokens x 1024) with int16 weights and
// inputs; MAC/ns compares the two directly.
func BenchmarkTileQ(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const k = 1024
	w := randBlocks(r, gguf.TypeQ4_0, TileRows*k/Q4BlockSize)
	p := NewQPack(k)
	p.Pack(QQ4_0, k, w, k/Q4BlockSize*Q4BlockBytes, TileRows)
	a := NewAct(TileTokens * k)
	a.Quantize(randX(r, TileTokens*k))
	var out [TileTokens * TileRows]float32
	b.SetBytes(int64(2 * len(p.Q)))
	for b.Loop() {
		TileQ(p, a, 0, &out)
	}
	b.ReportMetric(float64(k*TileRows*TileTokens)/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "MAC/ns")
}

// BenchmarkQPack: decoding and pairing 32 rows of 1024 weights of each type, once per prompt
// chunk; ns/op against BenchmarkTileQ's times the chunk's tiles (11 for 128 tokens) is the
// packing's share of a prompt's matrix passes.
func BenchmarkQPack(b *testing.B) {
	for _, typ := range []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K} {
		b.Run(typ.String(), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			const k = 1024
			bl := blockOf[typ]
			w := randBlocks(r, typ, TileRows*k/bl.size)
			p := NewQPack(k)
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				p.Pack(qKinds[typ], k, w, k/bl.size*bl.bytes, TileRows)
			}
		})
	}
}

// FuzzTileQ feeds any block bytes as the first row of a QPack (the rest missing) and checks the
// dispatched and the generic TileQ against chapter 01 for twelve tokens.
func FuzzTileQ(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 5))
	f.Add(randBlocks(r, gguf.TypeQ4_K, 2), uint8(2), uint64(1))
	f.Add(randBlocks(r, gguf.TypeQ6_K, 1), uint8(3), uint64(2))
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8, seed uint64) {
		typ := []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K}[kind%4]
		b := blockOf[typ]
		nb := len(raw) / b.bytes
		k := nb * b.size
		if k == 0 {
			return
		}
		w := raw[:nb*b.bytes]
		deq := make([]float32, k)
		if err := gguf.Dequantize(deq, typ, w); err != nil {
			t.Fatal(err)
		}
		if !finite(deq) {
			return
		}
		a := NewAct(TileTokens * k)
		a.Quantize(fuzzX(TileTokens*k, seed))
		p := NewQPack(k)
		for _, level := range []Level{Active(), Generic} {
			func() {
				defer Limit(level)()
				p.Pack(qKinds[typ], k, w, len(w), 1)
				var out [TileTokens * TileRows]float32
				TileQ(p, a, 0, &out)
				for tok := 0; tok < TileTokens; tok++ {
					want, mag := actRef(t, typ, w, tokenAct(a, tok, k))
					if got := out[tok*TileRows]; !closeTo(got, want, mag, k) {
						t.Fatalf("%v %v token %d: %v, float64 reference %v", typ, level, tok, got, want)
					}
				}
			}()
		}
	})
}
