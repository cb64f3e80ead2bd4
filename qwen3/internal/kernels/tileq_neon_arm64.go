package kernels

// The prototypes of tileq_neon_arm64.s.

//go:noescape
func tileQ8x6NEON(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)
