package kernels

import "fmt"

// Prompts of the block-quantized types (Q8_0, Q4_0, Q4_K, Q6_K) multiply integers, as decoding
// does: the chunk's inputs are rounded to int16 blocks (an Act over all its tokens) and 32 weight
// rows are decoded, once per chunk, into their small integers and float scales (a QPack), not into
// float32. TileQ then computes 32 rows x 12 tokens with VPMADDWD, 16 int16 products per
// instruction where the float Tile's FMA does 8:
//
//	out[t*32+i] = Σ_f S_if·s_tb(f)·Σ_j q_ij·a_tj − M_if·Sum_tb(f)
//
// f runs over the weights' scale blocks (32 values; 16 for Q6_K, two per activation block b(f)),
// S and M are a row's scale and minimum term per block, s, a and Sum the Act's scale, int16 values
// and block sum. What each type stores as q, S and M mirrors its decoding:
//
//	Q8_0  q = int8 quant          S = d          M = 0
//	Q4_0  q = quant − 8           S = d          M = 0
//	Q4_K  q = 4-bit quant         S = d·scale    M = dmin·min     per 32-value sub-block
//	Q6_K  q = 6-bit quant − 32    S = d·scale    M = 0            per 16-value group
//
// The integer sums are exact (|q·a| < 2^17 summed 32 times); the result differs from the float
// Tile's only by the inputs' rounding to int16, as decoding's does.

// QKind names the block-quantized weight types TileQ reads.
type QKind int

// The weight types of a QPack.
const (
	QQ8_0 QKind = iota
	QQ4_0
	QQ4_K
	QQ6_K
)

// TileQ computes a TileTokens x TileRows block of a prompt's matrix product from a QPack and an
// Act holding tokens t0 .. t0+11 (each p.K values, tokens k apart in a.Q: the Act of a whole
// chunk): out[t*32+i] = row i · token t0+t, by the formula above.
func TileQ(p *QPack, a *Act, t0 int, out *[TileTokens * TileRows]float32) {
	k := p.K
	if t0 < 0 || a.Len() < (t0+TileTokens)*k {
		panic(fmt.Sprintf("kernels: TileQ of tokens %d..%d of %d values from an Act of %d", t0, t0+TileTokens, k, a.Len()))
	}
	nb := k / ActBlock
	x, xs, xsum := a.Q[t0*k:], a.Scale[t0*nb:], a.Sum[t0*nb:]
	if kern, ok := tileQOps[p.Kind.hasMins()].get(); ok {
		kern(noEscape(p), noEscapeSlice(x), k, nb, noEscapeSlice(xs), noEscapeSlice(xsum), noEscape(out))
		return
	}
	tileQGeneric(p, x, xs, xsum, out)
}

// TileQPart is TileQ for a tile whose tokens past the first n (0 < n <= 12) are not wanted, as
// in a chunk's last tile: out[t*32+i] for t < n are TileQ's values, bit for bit, and the rows
// t >= n hold anything. The Act needs room for twelve tokens, as for TileQ. Where the CPU has an
// 8-token form (AVX-512 VNNI) it does n <= 8 with it: 128 tokens are ten tiles and one of 8,
// and the 12-token kernel would spend a third of that last tile on nothing.
func TileQPart(p *QPack, a *Act, t0, n int, out *[TileTokens * TileRows]float32) {
	if n <= 0 || n > TileTokens {
		panic(fmt.Sprintf("kernels: TileQPart of %d tokens", n))
	}
	k := p.K
	if n <= 8 && t0 >= 0 && a.Len() >= (t0+TileTokens)*k {
		nb := k / ActBlock
		if kern, ok := tileQ8Ops[p.Kind.hasMins()].get(); ok {
			kern(noEscape(p), noEscapeSlice(a.Q[t0*k:]), k, nb, noEscapeSlice(a.Scale[t0*nb:]), noEscapeSlice(a.Sum[t0*nb:]), noEscape(out))
			return
		}
	}
	TileQ(p, a, t0, out)
}

// tileQGeneric is TileQ in plain Go, blocked for registers: twelve integer sums, 4 rows by 3
// tokens, run over one weight scale block f (32 columns; 16 for Q6_K) at a time. Each step takes a
// column pair: 8 int16 weights that lie side by side in the pack (rows i..i+3, columns j and j+1)
// and 6 inputs, for 24 multiply-adds. At the end of the block the sums get the block's scales and
// go into float32 sums, as the formula above says. (1.4 against 0.4 multiply-adds per ns for one
// sum at a time with index arithmetic per value, on one AMD EPYC core; amd64 keeps some of the
// twelve sums in memory, and smaller blocks measured slower still.)
func tileQGeneric(p *QPack, x []int16, xs, xsum []float32, out *[TileTokens * TileRows]float32) {
	k, h := p.K, p.Kind.halves()
	nb, size := k/ActBlock, ActBlock/h // activation blocks per token; columns per scale block
	for t := 0; t < TileTokens; t += 3 {
		for i := 0; i < TileRows; i += 4 {
			var sum [3][4]float32 // [token][row]
			for f := 0; f < nb*h; f++ {
				c := f * size // first column of block f
				x0, x1, x2 := x[t*k+c:t*k+c+size], x[(t+1)*k+c:(t+1)*k+c+size], x[(t+2)*k+c:(t+2)*k+c+size]
				// q[j*32 + 2r + j%2]: row i+r, column c+j (j even: a column pair)
				q := p.Q[c*TileRows+2*i : (c+size)*TileRows]
				var a00, a01, a02, a10, a11, a12, a20, a21, a22, a30, a31, a32 int32 // a<row><token>
				// The loop's condition names every length, so the compiler drops the index checks.
				for j := 0; j+1 < len(x0) && j+1 < len(x1) && j+1 < len(x2) && j*TileRows+8 <= len(q); j += 2 {
					w := q[j*TileRows : j*TileRows+8]
					u0, v0 := int32(x0[j]), int32(x0[j+1]) // token t, columns j and j+1
					u1, v1 := int32(x1[j]), int32(x1[j+1])
					u2, v2 := int32(x2[j]), int32(x2[j+1])
					wu, wv := int32(w[0]), int32(w[1]) // row i
					a00 += wu*u0 + wv*v0
					a01 += wu*u1 + wv*v1
					a02 += wu*u2 + wv*v2
					wu, wv = int32(w[2]), int32(w[3]) // row i+1
					a10 += wu*u0 + wv*v0
					a11 += wu*u1 + wv*v1
					a12 += wu*u2 + wv*v2
					wu, wv = int32(w[4]), int32(w[5])
					a20 += wu*u0 + wv*v0
					a21 += wu*u1 + wv*v1
					a22 += wu*u2 + wv*v2
					wu, wv = int32(w[6]), int32(w[7])
					a30 += wu*u0 + wv*v0
					a31 += wu*u1 + wv*v1
					a32 += wu*u2 + wv*v2
				}
				acc := [4][3]int32{{a00, a01, a02}, {a10, a11, a12}, {a20, a21, a22}, {a30, a31, a32}}
				b := f / h // the activation block of columns c .. c+size
				for r := range 4 {
					S, M := p.S[f*64+i+r], p.S[f*64+32+i+r]
					for tt := range 3 {
						sum[tt][r] += S*xs[(t+tt)*nb+b]*float32(acc[r][tt]) - M*xsum[(t+tt)*nb+b]
					}
				}
			}
			for tt := range 3 {
				copy(out[(t+tt)*TileRows+i:(t+tt)*TileRows+i+4], sum[tt][:])
			}
		}
	}
}
