package kernels

import "fmt"

// Tile sizes of the prompt kernel: TileRows weight rows by TileTokens tokens.
const (
	TileRows   = 32
	TileTokens = 12
)

// Tile computes a TileTokens x TileRows block of a matrix product for prompt processing:
//
//	out[t*32+i] = Σ_j pack[j*32+i] · x[t*xStride+j]   t < 12 tokens, i < 32 rows, j < k
//
// pack is 32 weight rows transposed to k-major order (pack[j*32+i] = W[r0+i][j], see PackRow and
// Transpose8) and x holds twelve tokens' inputs, xStride apart. Reading each weight once for
// twelve tokens (six at a time with AVX2) and each input once for 32 rows (16 with AVX2) makes
// prompts compute-bound instead of bound by loads; decoding a token at a time uses the Dot
// kernels instead.
func Tile(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	if len(pack) < k*TileRows || k > xStride && TileTokens > 1 || len(x) < (TileTokens-1)*xStride+k {
		panic(fmt.Sprintf("kernels: Tile with %d packed weights, %d inputs of stride %d, k %d", len(pack), len(x), xStride, k))
	}
	switch {
	case k == 0:
		clear(out[:])
	default:
		if kern, ok := tileOp.get(); ok {
			kern(noEscapeSlice(pack), noEscapeSlice(x), xStride, k, noEscape(out))
			return
		}
		tileGeneric(pack, x, xStride, k, out)
	}
}

// tileQuarters are the four quarters of a 32 x 12 tile that kernels of 16 rows by 6 tokens
// compute: rows from row, tokens from token.
var tileQuarters = [4]struct{ row, token int }{{0, 0}, {16, 0}, {0, 6}, {16, 6}}

// TilePart is Tile for a tile whose tokens past the first n (0 < n <= 12) are not wanted, as in a
// chunk's last tile: out[t*32+i] for t < n are Tile's values, bit for bit, and the rows t >= n
// hold anything. x needs room for twelve tokens, as for Tile. At the AVX512 level n <= 8 takes
// an 8-token kernel, so that 128 tokens are ten tiles and one of 8, not eleven of 12.
func TilePart(pack, x []float32, xStride, k, n int, out *[TileTokens * TileRows]float32) {
	if n <= 0 || n > TileTokens {
		panic(fmt.Sprintf("kernels: TilePart of %d tokens", n))
	}
	if n <= 8 && k > 0 && len(pack) >= k*TileRows && k <= xStride && len(x) >= (TileTokens-1)*xStride+k {
		if kern, ok := tile8Op.get(); ok {
			kern(noEscapeSlice(pack), noEscapeSlice(x), xStride, k, noEscape(out))
			return
		}
	}
	Tile(pack, x, xStride, k, out)
}

// tileGeneric is Tile in plain Go, blocked for registers: six sums, 2 rows by 3 tokens, stay in
// registers while j walks the columns, so each step loads 2 packed weights (adjacent: pack[j*32+i],
// pack[j*32+i+1]) and 3 inputs for 6 multiply-adds, where one sum at a time loads 2 values per
// multiply-add (2.7 against 1.0 multiply-adds per ns on one AMD EPYC core, k = 1024). Larger
// blocks need more than the 15 float registers Go has on amd64 and measured slower there.
func tileGeneric(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	if k == 0 {
		clear(out[:])
		return
	}
	for t := 0; t < TileTokens; t += 3 {
		x0 := x[t*xStride : t*xStride+k]
		x1 := x[(t+1)*xStride : (t+1)*xStride+k]
		x2 := x[(t+2)*xStride : (t+2)*xStride+k]
		o0, o1, o2 := out[t*TileRows:], out[(t+1)*TileRows:], out[(t+2)*TileRows:]
		for i := 0; i < TileRows; i += 2 {
			// p[j*32], p[j*32+1]: rows i and i+1 of column j
			p := pack[i:]
			var s00, s01, s02, s10, s11, s12 float32 // s<row><token>
			// The loop's condition names every length, so the compiler drops the index checks.
			for j := 0; j < len(x0) && j < len(x1) && j < len(x2) && j*TileRows+2 <= len(p); j++ {
				w := p[j*TileRows : j*TileRows+2]
				v0, v1, v2 := x0[j], x1[j], x2[j]
				s00 += w[0] * v0
				s01 += w[0] * v1
				s02 += w[0] * v2
				s10 += w[1] * v0
				s11 += w[1] * v1
				s12 += w[1] * v2
			}
			o0[i], o1[i], o2[i] = s00, s01, s02
			o0[i+1], o1[i+1], o2[i+1] = s10, s11, s12
		}
	}
}

// AddRows adds n rows of 32 values, x[t*32+i] (a block's results, as Tile and TileQ write them),
// into rows of y yStride apart: y[t*yStride+i] += x[t*32+i] for t < n, i < 32. CopyRows writes
// them instead: y[t*yStride+i] = x[t*32+i]. A prompt chunk's matrix passes put every block's
// results into the residual stream or an output this way; one call per block, not per token, as
// a call per 32 values costs more than its additions.
func AddRows(y []float32, yStride int, x []float32, n int) {
	checkBlockRows("AddRows", y, yStride, x, n)
	if n > 0 {
		if k, ok := addRowsOp.get(); ok {
			k(noEscape(&y[0]), yStride, noEscape(&x[0]), n)
			return
		}
	}
	for t := range n {
		dst, src := y[t*yStride:t*yStride+TileRows], x[t*TileRows:(t+1)*TileRows]
		for i, v := range src {
			dst[i] += v
		}
	}
}

// CopyRows is AddRows without the addition: y[t*yStride+i] = x[t*32+i].
func CopyRows(y []float32, yStride int, x []float32, n int) {
	checkBlockRows("CopyRows", y, yStride, x, n)
	if n > 0 {
		if k, ok := copyRowsOp.get(); ok {
			k(noEscape(&y[0]), yStride, noEscape(&x[0]), n)
			return
		}
	}
	for t := range n {
		copy(y[t*yStride:t*yStride+TileRows], x[t*TileRows:(t+1)*TileRows])
	}
}

func checkBlockRows(name string, y []float32, yStride int, x []float32, n int) {
	if n < 0 || yStride < TileRows || n > 0 && (len(y) < (n-1)*yStride+TileRows || len(x) < n*TileRows) {
		panic(fmt.Sprintf("kernels: %s of %d rows of 32 from %d values into %d (stride %d)", name, n, len(x), len(y), yStride))
	}
}
