package kernels

// The prototypes of attn_avx2_amd64.s.

//go:noescape
func expSubAVX2(x *float32, n int, m float32) float32

//go:noescape
func siluMulAVX2(dst, gate, u *float32, n int)

//go:noescape
func tile16x2AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func maxAVX2(x *float32, n int) float32

//go:noescape
func scaleAVX2(dst, x *float32, a float32, n int)

//go:noescape
func tile16x6F16AVX2(pack *uint16, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2F16AVX2(pack *uint16, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func narrowF16AVX2(dst *uint16, src *float32, n int)
