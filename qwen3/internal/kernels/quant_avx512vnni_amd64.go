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

// actArch is what an Act keeps for the VNNI byte-plane kernel (dotQ6_KActVNNI): its values split
// into bytes, 64 per block of 32 (the high bytes a>>8, signed, then the low bytes a&255,
// unsigned), the layout of arm64's DotProd planes. quantizeVNNI writes them with the values;
// Quantize at any other level, and MarkWritten for writes through views, clear n, so that planes
// never describe values written since: the dot reads them only when n covers its row.
type actArch struct {
	planes []byte
	n      int // values the planes hold
}

func (a *actArch) stale()           { a.n = 0 }
func (a *actArch) ready(n int) bool { return a.n >= n }
func (a *actArch) planesOf(q []int16) []byte {
	if len(a.planes) < 2*len(q) { // once per Act, for its whole length
		a.planes = make([]byte, 2*len(q))
	}
	return a.planes
}

// quantizeVNNI quantizes as the AVX2 level does and splits the values into the byte planes.
func quantizeVNNI(a *Act, x []float32) {
	quantizeAVX2(a, x)
	splitActVNNI(&a.Q[0], &a.arch.planesOf(a.Q)[0], len(x)/ActBlock)
	a.arch.n = len(x)
}

func dotQ8_0ActRowsVNNI(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ8_0ActVNNI(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb/8, out)
}

func dotQ4_0ActRowsVNNI(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_0ActVNNI(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb/8, out)
}

func dotQ4_KActRowsVNNI(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ4_KActVNNI(w, stride, rows, &a.Q[0], &a.Scale[0], &a.Sum[0], nb, out)
}

func dotQ6_KActRowsVNNI(w *byte, stride, rows int, a *Act, nb int, out *float32) {
	dotQ6_KActVNNI(w, stride, rows, &a.arch.planes[0], &a.Scale[0], &a.Sum16[0], nb, out)
}
