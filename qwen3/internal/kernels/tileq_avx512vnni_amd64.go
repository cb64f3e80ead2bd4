package kernels

// The prototypes of tileq_avx512vnni_amd64.s.

//go:noescape
func tileQ32x12VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x12NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x8VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x8NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)
