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

// actArch is what an Act keeps for the DotProd kernels: its values split into bytes, 64 per
// block of 32 (the high bytes a>>8, signed, then the low bytes a&255, unsigned), and 128·Σ of each
// block's low bytes. quantizeDot writes them with the values; Quantize at any other level, and
// MarkWritten for writes through views, clear n, so that planes never describe values written
// since: the DotProd dots read them only when n covers the row, and the NEON ones run otherwise.
type actArch struct {
	planes []byte
	lo128  []int32
	n      int // values the planes hold
}

func (a *actArch) stale()           { a.n = 0 }
func (a *actArch) ready(n int) bool { return a.n >= n }

func quantizeDot(a *Act, x []float32) {
	if len(a.arch.planes) < 2*len(a.Q) { // once per Act, for its whole length
		a.arch.planes, a.arch.lo128 = make([]byte, 2*len(a.Q)), make([]int32, len(a.Q)/ActBlock)
	}
	quantizeActDot(&a.Q[0], &a.Scale[0], &a.Sum[0], &a.Sum16[0], &x[0], len(x)/ActBlock, &a.arch.planes[0], &a.arch.lo128[0])
	a.arch.n = len(x)
}

func dotQ8_0ActRowsDot(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ8_0ActDot(w, stride, rows, &a.arch.planes[0], &a.Scale[0], &a.arch.lo128[0], nb/4, out)
}

func dotQ4_0ActRowsDot(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_0ActDot(w, stride, rows, &a.arch.planes[0], &a.Scale[0], &a.Sum16[0], nb/4, out)
}

func dotQ4_KActRowsDot(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_KActDot(w, stride, rows, &a.arch.planes[0], &a.Scale[0], &a.Sum[0], nb, out)
}

func dotQ6_KActRowsDot(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ6_KActDot(w, stride, rows, &a.arch.planes[0], &a.Scale[0], &a.Sum16[0], nb, out)
}
