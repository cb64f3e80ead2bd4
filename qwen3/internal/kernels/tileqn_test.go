package kernels

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
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

// BenchmarkStreamTileQN is benchStream for TileQN: 128 MB of rows of 1024 weights (four times the
// L3), 32 rows per call as the engine's passes make them, for a batch of 16 or 32 tokens on one
// core. MAC/ns against BenchmarkTileQN's (the rows in the cache) is what streaming the weights
// from memory costs the batched kernel.
func BenchmarkStreamTileQN(b *testing.B) {
	for _, typ := range []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_K, gguf.TypeQ6_K} {
		for _, tokens := range []int{16, 32} {
			b.Run(fmt.Sprintf("%v/%d", typ, tokens), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 1))
				const cols = 1024
				bl := blockOf[typ]
				rb := cols / bl.size * bl.bytes
				rows := (128 << 20) / rb / 32 * 32
				w := randBlocks(r, typ, rows*cols/bl.size)
				a := NewAct(tokens * cols)
				a.Quantize(randX(r, tokens*cols))
				xn := NewActN(tokens, cols)
				xn.Set(a, tokens, cols)
				out := make([]float32, tokens*32)
				m := startCPU()
				for b.Loop() {
					for r0 := 0; r0 < rows; r0 += 32 {
						TileQN(qKinds[typ], out, 32, 32, w[r0*rb:(r0+32)*rb], rb, xn)
					}
				}
				m.report(b, float64(rows*cols*tokens), "MAC")
			})
		}
	}
}

// BenchmarkActNSet: laying out 16 and 32 tokens of 3072 values (the down projection's inputs),
// once per matrix pass of a Batch's step, on one core while the other waits.
func BenchmarkActNSet(b *testing.B) {
	for _, tokens := range []int{16, 32} {
		b.Run(fmt.Sprint(tokens), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			const k = 3072
			a := NewAct(tokens * k)
			a.Quantize(randX(r, tokens*k))
			xn := NewActN(tokens, k)
			for b.Loop() {
				xn.Set(a, tokens, k)
			}
		})
	}
}

// TestActNSet: Set puts token 16g+l's values 2j, 2j+1 of block b in the word
// Q[((g·nb+b)·16+j)·16+l] (low half, high half), crossed in the last of an odd number of groups
// (1, 5, 16 and 40 tokens; not 21 or 32), its scale and sum at SS[(g·nb+b)·32+l] and
// [..+16+l], zeros for the tokens past the batch, over a layout full of other values; and the
// form that puts each word together from the two values (big-endian machines) gives the same, and
// so does SetBlocks over runs of blocks.
func TestActNSet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const k = 256
	nb := k / ActBlock
	for _, tokens := range []int{1, 5, 16, 21, 32, 40} {
		a := NewAct(tokens * k)
		x := randX(r, tokens*k)
		for i := range x {
			x[i] *= float32(1 + i%7) // values near ±32767 too, with their sign bit in the low half
		}
		a.Quantize(x)
		xn := NewActN(48, k)
		for i := range xn.Q {
			xn.Q[i] = -1
		}
		for i := range xn.SS {
			xn.SS[i] = -1
		}
		xn.Set(a, tokens, k)
		for g := 0; g*ActNLanes < tokens; g++ {
			for b := range nb {
				for l := range ActNLanes {
					tok := g*ActNLanes + l
					var s, m float32
					if tok < tokens {
						s, m = a.Scale[tok*nb+b], a.Sum[tok*nb+b]
					}
					if got := xn.SS[(g*nb+b)*32+l]; got != s {
						t.Fatalf("%d tokens: token %d block %d scale %v, want %v", tokens, tok, b, got, s)
					}
					if got := xn.SS[(g*nb+b)*32+16+l]; got != m {
						t.Fatalf("%d tokens: token %d block %d sum %v, want %v", tokens, tok, b, got, m)
					}
					for j := range ActBlock / 2 {
						// the word at row j, lane l holds token l's pair j; in the crossed group
						// (the last of an odd number) rows j, j+1 (j even) hold in lanes 2m, 2m+1
						// tokens 2m's pair j and 2m+1's pair j+1, then 2m+1's pair j and 2m's pair j+1.
						wt, wj := tok, j
						if crossedGroup := (tokens+15)/16%2 == 1 && g == (tokens+15)/16-1; crossedGroup {
							switch {
							case j%2 == 0 && l%2 == 1:
								wj = j + 1
							case j%2 == 1 && l%2 == 0:
								wt, wj = tok+1, j-1
							case j%2 == 1 && l%2 == 1:
								wt = tok - 1
							}
						}
						var lo, hi int16
						if wt < tokens {
							lo, hi = a.Q[wt*k+b*ActBlock+2*wj], a.Q[wt*k+b*ActBlock+2*wj+1]
						}
						if got := xn.Q[((g*nb+b)*16+j)*16+l]; int16(got) != lo || int16(got>>16) != hi {
							t.Fatalf("%d tokens: word %d of block %d of group %d (token %d's pair %d) = %#x, want %d, %d", tokens, j*16+l, b, g, wt, wj, got, lo, hi)
						}
					}
				}
			}
		}
		runs := NewActN(48, k) // Shape, then SetBlocks of two runs of blocks, the second first
		copy(runs.Q, xn.Q[len(xn.Q)/2:])
		runs.Shape(a, tokens, k)
		runs.SetBlocks(a, 3, nb)
		runs.SetBlocks(a, 0, 3)
		g := (tokens + ActNLanes - 1) / ActNLanes
		if !slices.Equal(runs.Q[:g*k/2*ActNLanes], xn.Q[:g*k/2*ActNLanes]) || !slices.Equal(runs.SS[:2*g*nb*ActNLanes], xn.SS[:2*g*nb*ActNLanes]) {
			t.Fatalf("%d tokens: SetBlocks of blocks 3.. then 0..3 differs from Set", tokens)
		}
		if !littleEndian {
			continue // Set took the pairs' form itself
		}
		pairs := NewActN(48, k)
		for i := range pairs.Q {
			pairs.Q[i] = -1
		}
		for i := range pairs.SS {
			pairs.SS[i] = -1
		}
		pairs.N, pairs.K = tokens, k
		pairs.setBlocks(a, 0, nb, false)
		if !slices.Equal(pairs.Q, xn.Q) || !slices.Equal(pairs.SS, xn.SS) {
			t.Fatalf("%d tokens: the pairs' form differs from the words' form", tokens)
		}
	}
}
