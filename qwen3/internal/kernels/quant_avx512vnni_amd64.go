package kernels

// The prototypes of quant_avx512vnni_amd64.s.

//go:noescape
func dotQ4_KActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActVNNI(w *byte, stride, rows int, p *byte, scale *float32, sum16 *int32, n int, out *float32)

//go:noescape
func splitActVNNI(q *int16, p *byte, nblocks int)

//go:noescape
func dotQ4_0ActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ8_0ActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
