package kernels

// The prototypes of attn_neon_arm64.s.

//go:noescape
func expSubNEON(x *float32, n int, m float32) float32

//go:noescape
func siluMulNEON(dst, gate, u *float32, n int)

//go:noescape
func maxNEON(x *float32, n int) float32

//go:noescape
func scaleNEON(dst, x *float32, a float32, n int)
