package kernels

// The prototypes of tile_neon_arm64.s.

//go:noescape
func tile16x6NEON(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2NEON(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

// tileNEON is Tile's NEON form: the 32 x 12 tile in four 16-row, 6-token quarters.
func tileNEON(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) {
	for _, q := range tileQuarters {
		tile16x6NEON(&pack[q.row], &x[q.token*xStride], xStride, k, &out[q.token*TileRows+q.row], TileRows, TileRows, 0)
	}
}
