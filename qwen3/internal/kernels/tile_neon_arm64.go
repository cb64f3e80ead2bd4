package kernels

// The prototypes of tile_neon_arm64.s.

//go:noescape
func tile16x6NEON(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2NEON(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)
