package kernels

// The prototypes of dot_neon_arm64.s.

//go:noescape
func dotF32NEON(w *float32, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotBF16NEON(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotF16NEON(w *uint16, stride, rows int, x *float32, n int, out *float32)
