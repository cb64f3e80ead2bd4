package kernels

// The 8-token tiles (tileq_vnni_amd64.s, tile8_avx512_amd64.s): a chunk's last, short tile.

//go:noescape
func tileQ32x8VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x8NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tile32x8AVX512(pack, x *float32, xstride, k int, out *float32)
