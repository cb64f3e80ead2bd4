package kernels

// The prototypes of tileq_avx2_amd64.s.

//go:noescape
func tileQ16x6AVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

//go:noescape
func tileQ16x6NoMinAVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)
