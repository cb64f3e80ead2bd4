package kernels

// The prototypes of quant_neon_arm64.s.

//go:noescape
func dotQ8_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func quantizeActNEON(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)
