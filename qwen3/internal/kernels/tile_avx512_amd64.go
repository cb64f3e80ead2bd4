package kernels

// The prototypes of tile_avx512_amd64.s.

//go:noescape
func tile32x12AVX512(pack, x *float32, xstride, k int, out *float32)

//go:noescape
func tile32x8AVX512(pack, x *float32, xstride, k int, out *float32)

func tileAVX512(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	tile32x12AVX512(&pack[0], &x[0], xStride, k, &out[0])
}

// tile8AVX512 writes out's first eight tokens' rows only.
func tile8AVX512(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	tile32x8AVX512(&pack[0], &x[0], xStride, k, &out[0])
}
