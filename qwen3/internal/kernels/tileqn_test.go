package kernels

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestTileQN: every output of TileQN is its row (chapter 01's dequantizer) times its token's Act
// values, in float64, within float32 rounding, and bit for bit the plain Go form's: at every
// level, for every type, with token counts below, at and past a group of 16 and row counts that
// leave rows to the plain Go form.
func TestTileQN(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	eachLevel(t, func(t *testing.T) {
		for typ, kind := range qKinds {
			for _, c := range []struct{ k, rows, tokens int }{{1024, 32, 16}, {256, 19, 5}, {512, 16, 33}, {256, 48, 32}} {
				name := fmt.Sprintf("%v k=%d rows=%d tokens=%d", typ, c.k, c.rows, c.tokens)
				b := blockOf[typ]
				rowBytes := c.k / b.size * b.bytes
				w := randBlocks(r, typ, c.rows*c.k/b.size)
				a := NewAct(c.tokens * c.k)
				x := randX(r, c.tokens*c.k)
				x[5] = 40 // a block with one large value
				a.Quantize(x)
				xn := NewActN(c.tokens, c.k)
				xn.Set(a, c.tokens, c.k)
				stride := c.rows + 3
				out := make([]float32, (c.tokens-1)*stride+c.rows)
				for i := range out {
					out[i] = sentinel
				}
				TileQN(kind, out, stride, c.rows, w, rowBytes, xn)
				want := make([]float32, len(out))
				for i := range want {
					want[i] = sentinel
				}
				tileQNGeneric(kind, want, stride, c.rows, w, rowBytes, xn)
				for tok := range c.tokens {
					ta := tokenAct(a, tok, c.k)
					for i := range stride {
						j := tok*stride + i
						if j >= len(out) {
							break
						}
						got := out[j]
						if i >= c.rows {
							if got != sentinel {
								t.Fatalf("%s: token %d wrote %v past its rows, at %d", name, tok, got, i)
							}
							continue
						}
						if math.Float32bits(got) != math.Float32bits(want[j]) {
							t.Fatalf("%s: token %d row %d = %v, the plain Go form gives %v", name, tok, i, got, want[j])
						}
						if ref, mag := actRef(t, typ, w[i*rowBytes:(i+1)*rowBytes], ta); !closeTo(got, ref, mag, c.k) {
							t.Fatalf("%s: token %d row %d = %v, float64 reference %v (magnitude %v)", name, tok, i, got, ref, mag)
						}
					}
				}
			}
		}
	})
}

// TestFMA32: fma32 rounds x·y + z once, as a fused multiply-add does. A case where rounding the
// float64 sum to float32 again goes wrong: x·y = 2^-24 − 2^-70, z = 1 + 2^-23; the exact sum lies
// just below the float32 tie 1 + 2^-23 + 2^-24, so it rounds down to z, while its float64
// rounding is the tie itself, which rounds to even, up to 1 + 2^-22. Then random operands, a
// third of them with z near −x·y, against an exact big-float computation.
func TestFMA32(t *testing.T) {
	x, y, z := float32(0x1p-12*(1+0x1p-23)), float32(0x1p-12*(1-0x1p-23)), float32(1+0x1p-23)
	if got := fma32(x, y, z); got != z {
		t.Fatalf("fma32 of a sum just below a tie: %v, want %v (twice rounded: %v)", got, z, float32(float64(x)*float64(y)+float64(z)))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200000; i++ {
		x, y, z := float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
		if i%3 == 0 {
			z = -x*y + float32(r.NormFloat64())*1e-6
		}
		if got, want := fma32(x, y, z), fma32Big(x, y, z); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%v, %v, %v) = %v, exactly rounded %v", x, y, z, got, want)
		}
	}
}

func BenchmarkTileQN(b *testing.B) {
	for _, typ := range []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K} {
		for _, tokens := range []int{8, 16, 32} {
			b.Run(fmt.Sprintf("%v/%d", typ, tokens), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 1))
				const rows, cols = 64, 1024
				bl := blockOf[typ]
				w := randBlocks(r, typ, rows*cols/bl.size)
				a := NewAct(tokens * cols)
				a.Quantize(randX(r, tokens*cols))
				xn := NewActN(tokens, cols)
				xn.Set(a, tokens, cols)
				out := make([]float32, tokens*rows)
				m := startCPU()
				for b.Loop() {
					TileQN(qKinds[typ], out, rows, rows, w, len(w)/rows, xn)
				}
				m.report(b, float64(rows*cols*tokens), "MAC")
			})
		}
	}
}

// fma32Big is x·y + z rounded once to float32, through exact big floats.
func fma32Big(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(200).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetPrec(200).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetPrec(200).SetFloat64(float64(z)))
	f, _ := p.Float32()
	return f
}
