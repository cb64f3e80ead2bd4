package kernels

// The prototypes of tile_avx2_amd64.s.

//go:noescape
func tile16x6AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func addRowsAVX2(y *float32, yStride int, x *float32, n int)

//go:noescape
func copyRowsAVX2(y *float32, yStride int, x *float32, n int)
