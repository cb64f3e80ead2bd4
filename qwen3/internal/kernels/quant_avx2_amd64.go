package kernels

// The prototypes of quant_avx2_amd64.s.

//go:noescape
func quantizeActAVX2(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)

//go:noescape
func dotQ8_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func decodeQ4_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)

//go:noescape
func decodeQ4_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)

//go:noescape
func decodeQ6_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)

//go:noescape
func decodeQ8_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)
