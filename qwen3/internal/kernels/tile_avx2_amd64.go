package kernels

// The prototypes of tile_avx2_amd64.s.

//go:noescape
func tile16x6AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func addRowsAVX2(y *float32, yStride int, x *float32, n int)

//go:noescape
func copyRowsAVX2(y *float32, yStride int, x *float32, n int)

// tileAVX2 is Tile's AVX2 form: the 32 x 12 tile in four 16-row, 6-token quarters.
func tileAVX2(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	for _, q := range tileQuarters {
		tile16x6AVX2(&pack[q.row], &x[q.token*xStride], xStride, k, &out[q.token*TileRows+q.row], TileRows, TileRows, 0)
	}
}
