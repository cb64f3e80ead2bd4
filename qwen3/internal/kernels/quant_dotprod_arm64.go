package kernels

// The prototypes of quant_dotprod_arm64.s.

//go:noescape
func dotQ8_0ActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func dotQ4_0ActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func dotQ4_KActDot(w *byte, stride, rows int, p *byte, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func quantizeActDot(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int, planes *byte, lo128 *int32)
