package kernels

// The attention tiles at the AVX512 level (attn_avx512_amd64.s): the AVX2 kernels' arithmetic,
// lane for lane, sixteen lanes to a register.

//go:noescape
func tile16x6AVX512(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2AVX512(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x6F16AVX512(pack *uint16, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2F16AVX512(pack *uint16, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile32x6AVX512(pack *float32, second int, x *float32, xstride, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)

//go:noescape
func tile32x2AVX512(pack *float32, second int, x *float32, xstride, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)

//go:noescape
func tile32x6F16AVX512(pack *uint16, second int, x *float32, xstride, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)

//go:noescape
func tile32x2F16AVX512(pack *uint16, second int, x *float32, xstride, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)
