package kernels

// The prototypes of tile_avx512_amd64.s.

//go:noescape
func tile32x12AVX512(pack, x *float32, xstride, k int, out *float32)

//go:noescape
func tile32x8AVX512(pack, x *float32, xstride, k int, out *float32)
