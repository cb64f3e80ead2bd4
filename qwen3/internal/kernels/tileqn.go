package kernels

import (
	"fmt"
	"math"
	"unsafe"
)

// Batched decoding of 16 tokens and more. The batched dots (multi.go) keep the one-token
// kernels' lanes: each token's block of 32 products is eight int32 lanes, each converted and
// scaled by its own fused multiply-add, so that a batch gives Step's bits. That float work is
// one instruction for every two products, and it binds: on an AVX-512 core the dots do about
// half the multiply-adds per ns of a prompt's TileQ, whose lanes are 16 rows and whose block
// sums are converted once per row and token. TileQN is the prompt tile turned around: the
// tokens are the lanes (16 to a register), each weight pair is broadcast to them, and the
// weights need no packing, only widening, block by block, as they stream past. A block's sum
// for a row and a token is one int32 lane, flushed once:
//
//	out[t*outStride+r] = Σ_f S_rf·s_tb(f)·Σ_j q_rj·a_tj − M_rf·Sum_tb(f)
//
// with q, S and M those of a QPack (tileq.go) and the float operations of TileQ's flush, in its
// order: c = S·s, o = fma(float(Σ q·a), c, o), then o = o − M·Sum, fused. So the 512-bit kernel
// gives, for every row and token, the bits TileQ's 512-bit kernel gives in a prompt
// (TestTileQNMatchesTileQ), and they differ from the one-token dots' by float32 rounding.
//
// The activations are laid out once per matrix pass for all its row calls (ActN): the tokens in
// groups of 16, and per group and block 16 pairs of int16 (columns 2j, 2j+1) for each of the 16
// tokens; beside them the block's 16 scales and 16 sums. Tokens past the batch's in its last group are
// zeros (in whichever words the layout puts them) and give zeros, never written out.

// ActNLanes is the number of tokens in a group of an ActN: the lanes of a 512-bit register.
const ActNLanes = 16

// ActN is the inputs of a batch of tokens, each rounded to int16 blocks as an Act holds them,
// laid out for TileQN: token 16g+l's values 2j and 2j+1 of block b (its pair j) are
// Q[((g·nb+b)·16+j)·16+l] (the low and high half of an int32), its scale SS[(g·nb+b)·32+l] and
// its block sum SS[(g·nb+b)·32+16+l]; nb is K/32. One group is laid out otherwise: the last, when
// the groups are odd in number (a batch of 1-16 tokens, 33-48, ...), the one that the 512-bit
// 16-token kernel takes (the others go two by two to the 32-token one). Its rows j, j+1 (j even)
// hold the two inputs that kernel multiplies with one broadcast of pairs j and j+1 of a weight
// row (tileqn_avx512vnni_amd64.s): row j lane 2m token 2m's pair j, lane 2m+1 token 2m+1's pair
// j+1; row j+1 lane 2m token 2m+1's pair j, lane 2m+1 token 2m's pair j+1 (crossed). The kernel
// loads them as they are, where it made them from the rows with two blends and a shuffle per
// pair of pairs, for every group of 8 weight rows again.
type ActN struct {
	N, K int // tokens, values per token
	Q    []int32
	SS   []float32
}

// NewActN returns an ActN with room for tokens tokens of k values (k whole blocks).
func NewActN(tokens, k int) *ActN {
	if tokens < 0 || k < 0 || k%ActBlock != 0 {
		panic(fmt.Sprintf("kernels: an ActN of %d tokens of %d values", tokens, k))
	}
	g := (tokens + ActNLanes - 1) / ActNLanes
	nb := k / ActBlock
	return &ActN{K: k, Q: make([]int32, g*k/2*ActNLanes), SS: make([]float32, 2*g*nb*ActNLanes)}
}

// Set lays out tokens tokens of k values each from a (token t's values at a.Q[t·k:], as a batch's
// Quantize writes them), zeros for the tokens past them in the last group. k may be less than
// the k x was made for (a narrower matrix pass), in whole blocks. It is Shape then SetBlocks of
// all k/32 blocks.
func (x *ActN) Set(a *Act, tokens, k int) {
	x.Shape(a, tokens, k)
	x.setBlocks(a, 0, k/ActBlock, littleEndian)
}

// Shape makes x hold tokens tokens of k values from a, for SetBlocks to fill; it panics when x or
// a has no room for them.
func (x *ActN) Shape(a *Act, tokens, k int) {
	g := (tokens + ActNLanes - 1) / ActNLanes
	nb := k / ActBlock
	if tokens < 0 || k <= 0 || k%ActBlock != 0 || a.Len() < tokens*k || len(x.Q) < g*k/2*ActNLanes || len(x.SS) < 2*g*nb*ActNLanes {
		panic(fmt.Sprintf("kernels: ActN.Set of %d tokens of %d values from an Act of %d into room for %d", tokens, k, a.Len(), len(x.Q)*2))
	}
	x.N, x.K = tokens, k
}

// SetBlocks lays out blocks [b0, b1) of every token from a, as Set does, into the x that Shape
// made: calls for disjoint runs of blocks write disjoint memory, so that several cores can
// share a Set.
func (x *ActN) SetBlocks(a *Act, b0, b1 int) {
	if b0 < 0 || b1 < b0 || b1 > x.K/ActBlock || a.Len() < x.N*x.K {
		panic(fmt.Sprintf("kernels: ActN.SetBlocks of blocks %d..%d of %d tokens of %d values from an Act of %d", b0, b1, x.N, x.K, a.Len()))
	}
	x.setBlocks(a, b0, b1, littleEndian)
}

// setBlocks lays out blocks [b0, b1) of every token of x (x.N and x.K set) from a, as Set does.
// A block of a group is a 16 x 16 transpose of int32 words: token l's values 2j and 2j+1 go to
// word j·16 + l, the first in its low half, moved as cross says in a crossed group. With words
// (only on a little-endian machine: littleEndian) that word is the pair as it lies in a.Q: a
// token's 16 words are read as one array and each stored where wordAt says, crossed or not, in
// 22-25 µs for 16 tokens of 3072 values against 32-41 µs when the rows were written one by one,
// the 16 tokens read side by side, and then crossed (BenchmarkActNSet, three runs each, AMD EPYC
// family 25 model 17, 2026-11-28). Without words each is put together from the values, row by
// row, and a crossed group's block is then crossed.
func (x *ActN) setBlocks(a *Act, b0, b1 int, words bool) {
	k, nb := x.K, x.K/ActBlock
	const size = ActBlock / 2 * ActNLanes // int32 words of one block of one group
	var src [ActNLanes]*[ActBlock]int16
	for gi := 0; gi*ActNLanes < x.N; gi++ {
		n := min(ActNLanes, x.N-gi*ActNLanes)
		crossed := x.crossed(gi)
		at := &wordAt[0]
		if crossed {
			at = &wordAt[1]
		}
		for b := b0; b < b1; b++ {
			q := (*[size]int32)(x.Q[(gi*nb+b)*size:][:size])
			ss := (*[2 * ActNLanes]float32)(x.SS[(gi*nb+b)*2*ActNLanes:][:2*ActNLanes])
			for l := range n {
				t := gi*ActNLanes + l
				src[l] = (*[ActBlock]int16)(a.Q[t*k+b*ActBlock:][:ActBlock])
				ss[l], ss[ActNLanes+l] = a.Scale[t*nb+b], a.Sum[t*nb+b]
			}
			if n < ActNLanes {
				clear(q[:])
				clear(ss[n:ActNLanes])
				clear(ss[ActNLanes+n:])
			}
			if words {
				for l, v := range src[:n] {
					w, to := (*[ActBlock / 2]int32)(unsafe.Pointer(v)), &at[l&(ActNLanes-1)]
					for j, p := range w {
						q[to[j]] = p
					}
				}
				continue
			}
			for j := range ActBlock / 2 {
				row := (*[ActNLanes]int32)(q[j*ActNLanes:])
				for l, v := range src[:n] {
					row[l] = int32(uint16(v[2*j])) | int32(v[2*j+1])<<16
				}
			}
			if crossed {
				cross(q)
			}
		}
	}
}

// wordAt[c][l][j] is the word of a block of a group that holds token lane l's pair j: laid out
// plainly (c = 0) or crossed (c = 1). It is pairAt's map, for setBlocks' stores where pairAt
// serves loads; computed once when the program starts and never written again.
var wordAt = func() (at [2][ActNLanes][ActBlock / 2]uint8) {
	words := make([]int32, ActBlock/2*ActNLanes) // each word its own index
	for i := range words {
		words[i] = int32(i)
	}
	for c := range at {
		for j := range ActBlock / 2 {
			for l := range ActNLanes {
				at[c][l][j] = uint8(pairAt(words, j, l, c == 1))
			}
		}
	}
	return at
}()

// crossed reports whether group g is laid out crossed (see ActN): the last of an odd number.
func (x *ActN) crossed(g int) bool {
	groups := (x.N + ActNLanes - 1) / ActNLanes
	return groups%2 == 1 && g == groups-1
}

// cross turns a block of a group from rows of pairs into the crossed layout of ActN: for each
// pair of rows j, j+1 (j even) and lanes 2m, 2m+1, word [j][2m+1] takes [j+1][2m+1], [j+1][2m]
// takes [j][2m+1], and [j+1][2m+1] takes [j+1][2m].
func cross(q *[ActBlock / 2 * ActNLanes]int32) {
	for j := 0; j < ActBlock/2; j += 2 {
		a, b := q[j*ActNLanes:][:ActNLanes], q[(j+1)*ActNLanes:][:ActNLanes]
		for m := 0; m < ActNLanes; m += 2 {
			a[m+1], b[m], b[m+1] = b[m+1], a[m+1], b[m]
		}
	}
}

// pairAt is token lane l's pair j in a block of a group (pairs: the block's words), laid out
// crossed or not.
func pairAt(pairs []int32, j, l int, crossed bool) int32 {
	switch {
	case !crossed || j%2 == 0 && l%2 == 0: // in place
		return pairs[j*ActNLanes+l]
	case j%2 == 0: // [j][2m+1] went to [j+1][2m]
		return pairs[(j+1)*ActNLanes+l-1]
	case l%2 == 0: // [j+1][2m] went to [j+1][2m+1]
		return pairs[j*ActNLanes+l+1]
	}
	return pairs[(j-1)*ActNLanes+l] // [j+1][2m+1] went to [j][2m+1]
}

// TileQN writes out[t*outStride+r] = row r · token t for r < rows and t < x.N, by the formula
// above: the rows are rowBytes apart in w, of kind's blocks, x.K values each.
func TileQN(kind QKind, out []float32, outStride, rows int, w []byte, rowBytes int, x *ActN) {
	bs := kind.blockSize()
	k := x.K
	if rows < 0 || k <= 0 || k%bs != 0 || rowBytes != k/bs*kind.blockBytes() || len(w) < rows*rowBytes ||
		(x.N > 0 && rows > 0 && (outStride < rows && x.N > 1 || len(out) < (x.N-1)*outStride+rows)) {
		panic(fmt.Sprintf("kernels: TileQN of %d rows of %d values (%d bytes each, %d given) for %d tokens into %d outputs (stride %d)",
			rows, k, rowBytes, len(w), x.N, len(out), outStride))
	}
	if rows == 0 || x.N == 0 {
		return
	}
	r := 0
	if kern, ok := tileQNOps[kind].get(); ok {
		r = kern(noEscape(&w[0]), rowBytes, rows, noEscape(x), noEscapeSlice(out), outStride)
	}
	if r < rows {
		tileQNGeneric(kind, out[r:], outStride, rows-r, w[r*rowBytes:], rowBytes, x)
	}
}

// TileQNFast reports whether TileQN of kind has an assembly form at the active level (without one
// it runs in plain Go, which only tests want).
func TileQNFast(kind QKind) bool { return tileQNOps[kind].cur != nil }

// blockBytes is the size of one block of the type (32 values; 256 for Q4_K and Q6_K).
func (k QKind) blockBytes() int {
	switch k {
	case QQ8_0:
		return Q8BlockBytes
	case QQ4_0:
		return Q4BlockBytes
	case QQ4_K:
		return Q4KBytes
	}
	return Q6KBytes
}

// tileQNGeneric is TileQN in plain Go: each block of a row decoded as a QPack decodes it
// (decodeQRow), then each token's sum by the formula, a scale block at a time, 16 tokens at once.
// It allocates nothing (the block and the tokens' sums are on the stack).
func tileQNGeneric(kind QKind, out []float32, outStride, rows int, w []byte, rowBytes int, x *ActN) {
	k, h, mins := x.K, kind.halves(), kind.hasMins() == 1
	nb, size, bs, bb := k/ActBlock, ActBlock/h, kind.blockSize(), kind.blockBytes()
	var q [QKSize]int16
	var s [QKSize / 16 * 64]float32 // a block's S and M, as decodeQRow writes them (stride 64)
	var o [ActNLanes]float32
	for r := range rows {
		row := w[r*rowBytes:][:rowBytes]
		for g := 0; g*ActNLanes < x.N; g++ {
			crossed := x.crossed(g)
			clear(o[:])
			for c0 := 0; c0 < k; c0 += bs {
				decodeQRow(kind, q[:bs], s[:], row[c0/bs*bb:][:bb])
				for f := range bs / size { // the block's scale blocks, in order
					b, half := (c0+f*size)/ActBlock, f%h
					pairs, wq := x.Q[(g*nb+b)*ActBlock/2*ActNLanes:], q[b*ActBlock-c0:]
					ss := x.SS[(g*nb+b)*2*ActNLanes:]
					for l := range ActNLanes {
						var sum int32
						for j := half * size / 2; j < (half+1)*size/2; j++ {
							p := pairAt(pairs, j, l, crossed)
							sum += int32(wq[2*j])*int32(int16(p)) + int32(wq[2*j+1])*(p>>16)
						}
						o[l] = fma32(float32(sum), s[f*64]*ss[l], o[l])
						if mins {
							o[l] = fma32(-s[f*64+32], ss[ActNLanes+l], o[l])
						}
					}
				}
			}
			for l := range min(ActNLanes, x.N-g*ActNLanes) {
				out[(g*ActNLanes+l)*outStride+r] = o[l]
			}
		}
	}
}

// fma32 is x·y + z rounded once to float32, as a fused multiply-add instruction computes it.
// x·y is exact in float64; the float64 sum is rounded to float32 a second time only when it is
// not a tie of float32, or when it is exact, so a tie that the float64 rounding made is broken by
// the sign of what that rounding dropped.
func fma32(x, y, z float32) float32 {
	p := float64(x) * float64(y)
	s := p + float64(z)
	r := float32(s)
	if math.IsInf(s, 0) || math.IsNaN(s) || s == 0 {
		return r
	}
	bb := s - p
	e := (p - (s - bb)) + (float64(z) - bb) // s + e = p + z exactly (TwoSum)
	if e == 0 {
		return r
	}
	// s is a tie of float32 when the 29 bits float32 drops hold exactly 1000...0 (normal float32
	// range; below it the dropped bits are more, and the same test on them applies).
	bits := math.Float64bits(s)
	drop := uint(29)
	if exp := int(bits>>52&0x7ff) - 1023; exp < -126 {
		drop += uint(-126 - exp)
	}
	if drop >= 53 || bits&(1<<drop-1) != 1<<(drop-1) {
		return r
	}
	if (e > 0) == (s > 0) {
		return float32(math.Nextafter(s, math.Inf(int(math.Copysign(1, s)))))
	}
	return float32(math.Nextafter(s, 0))
}
