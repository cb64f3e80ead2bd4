package kernels

// The prototypes of quant_neon_arm64.s.

//go:noescape
func dotQ8_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActNEON(w *byte, stride, rows int, q *int16, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func quantizeActNEON(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)

// The forms of dispatch_arm64.go's tables: the Act's fields as the kernels take them, and the
// blocks as groups (four blocks for Q8_0 and Q4_0, a super-block for Q4_K and Q6_K).

func quantizeNEON(a *Act, x []float32) {
	quantizeActNEON(&a.Q[0], &a.Scale[0], &a.Sum[0], &a.Sum16[0], &x[0], len(x)/ActBlock)
}

func dotQ8_0ActRowsNEON(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ8_0ActNEON(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb/4, out)
}

func dotQ4_0ActRowsNEON(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_0ActNEON(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb/4, out)
}

func dotQ4_KActRowsNEON(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_KActNEON(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb, out)
}

func dotQ6_KActRowsNEON(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ6_KActNEON(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum16[0], nb, out)
}
