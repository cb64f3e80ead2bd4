package kernels

// The prototypes of convert_neon_arm64.s.

//go:noescape
func transpose8NEON(dst *float32, dstStride int, src *float32, srcStride, k int)

//go:noescape
func widenBF16NEON(dst *float32, src *uint16, n int)

//go:noescape
func widenF16NEON(dst *float32, src *uint16, n int)
