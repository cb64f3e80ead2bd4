package kernels

import (
	"fmt"
	"unsafe"
)

// Tile sizes of the prompt kernel: TileRows weight rows by TileTokens tokens.
const (
	TileRows   = 16
	TileTokens = 12
)

// Tile computes a TileTokens x TileRows block of a matrix product for prompt processing:
//
//	out[t*16+i] = Σ_j pack[j*16+i] · x[t*xStride+j]   t < 12 tokens, i < 16 rows, j < k
//
// pack is 16 weight rows transposed to k-major order (pack[j*16+i] = W[r0+i][j], see PackRow)
// and x holds twelve tokens' inputs, xStride apart. Reading each weight once for twelve tokens
// (six with AVX2, twice) and each input once for sixteen rows makes prompts compute-bound instead
// of bound by loads; decoding a token at a time uses the Dot kernels instead.
func Tile(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	if len(pack) < k*TileRows || k > xStride && TileTokens > 1 || len(x) < (TileTokens-1)*xStride+k {
		panic(fmt.Sprintf("kernels: Tile with %d packed weights, %d inputs of stride %d, k %d", len(pack), len(x), xStride, k))
	}
	switch {
	case k == 0:
		clear(out[:])
	case useAVX512:
		tile16x12AVX512(unsafe.SliceData(pack), unsafe.SliceData(x), xStride, k, &out[0])
	case useAVX2:
		tile16x6AVX2(unsafe.SliceData(pack), unsafe.SliceData(x), xStride, k, &out[0])
		tile16x6AVX2(unsafe.SliceData(pack), &x[6*xStride], xStride, k, &out[6*TileRows])
	default:
		tileGeneric(pack, x, xStride, k, out)
	}
}

// tile16x6 is the AVX2 kernel for six tokens, as a Go function for the tests.
func tile16x6(pack, x []float32, xStride, k int, out []float32) {
	tile16x6AVX2(unsafe.SliceData(pack), unsafe.SliceData(x), xStride, k, &out[0])
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

// PackRow writes row (k values) as row i (< 16) of a Tile pack: pack[j*16+i] = row[j].
// Rows of a pack that are not written must be zeros (or their outputs ignored).
func PackRow(pack []float32, i int, row []float32) {
	if i < 0 || i >= TileRows || len(pack) < len(row)*TileRows {
		panic(fmt.Sprintf("kernels: PackRow %d of %d values into %d", i, len(row), len(pack)))
	}
	for j, v := range row {
		pack[j*TileRows+i] = v
	}
}
