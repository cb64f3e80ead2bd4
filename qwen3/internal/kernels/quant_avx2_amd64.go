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
func dotQ6_KActAVX2(w *byte, stride, rows int, q *int16, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func decodeQ4_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)

//go:noescape
func decodeQ4_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)

//go:noescape
func decodeQ6_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)

//go:noescape
func decodeQ8_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)

// The forms of dispatch_amd64.go's tables: the Act's fields as the kernels take them, and the
// blocks as groups (eight blocks for Q8_0 and Q4_0, a super-block for Q4_K and Q6_K).

func quantizeAVX2(a *Act, x []float32) {
	quantizeActAVX2(&a.Q[0], &a.Scale[0], &a.Sum[0], &a.Sum16[0], &x[0], len(x)/ActBlock)
}

func dotQ8_0ActRowsAVX2(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ8_0ActAVX2(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb/8, out)
}

func dotQ4_0ActRowsAVX2(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_0ActAVX2(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb/8, out)
}

func dotQ4_KActRowsAVX2(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_KActAVX2(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb, out)
}

func dotQ6_KActRowsAVX2(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ6_KActAVX2(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum16[0], nb, out)
}
