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
	case tileArch(pack, x, xStride, k, out):
	default:
		tileGeneric(pack, x, xStride, k, out)
	}
}

func tileGeneric(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	for t := 0; t < TileTokens; t++ {
		xt := x[t*xStride : t*xStride+k]
		for i := 0; i < TileRows; i++ {
			var s float32
			for j, v := range xt {
				s += pack[j*TileRows+i] * v
			}
			out[t*TileRows+i] = s
		}
	}
}

// PackRow writes row (k values) as row i (< 32) of a Tile pack: pack[j*32+i] = row[j].
// Rows of a pack that are not written must be zeros (or their outputs ignored).
func PackRow(pack []float32, i int, row []float32) {
	if i < 0 || i >= TileRows || len(pack) < len(row)*TileRows {
		panic(fmt.Sprintf("kernels: PackRow %d of %d values into %d", i, len(row), len(pack)))
	}
	for j, v := range row {
		pack[j*TileRows+i] = v
	}
}
