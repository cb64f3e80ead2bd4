package kernels

// The prototypes of convert_avx2_amd64.s.

//go:noescape
func transpose8AVX2(dst *float32, dstStride int, src *float32, srcStride, k int)

//go:noescape
func widenBF16AVX2(dst *float32, src *uint16, n int)

//go:noescape
func widenF16AVX2(dst *float32, src *uint16, n int)
