package kernels

import "unsafe"

// The amd64 side of the dispatch: each portable kernel (dot.go, quant.go, ...) checks its
// arguments, then asks its hook here whether an assembly form takes the work. A hook returns
// false (or 0 values done) when the active level has no form for the case, and the portable code
// runs the plain Go form. Every architecture has one file of hooks with the same signatures
// (dispatch_other.go: none taken).

func dotF32RowsArch(out, w []float32, cols int, x []float32) bool {
	if !useAVX2 || len(out) == 0 || cols < 8 {
		return false
	}
	if four := len(out) &^ 3; four > 0 && cols%16 == 0 {
		dotF32x4AVX2(unsafe.SliceData(w), 4*cols, four, unsafe.SliceData(x), cols, unsafe.SliceData(out))
		if four == len(out) {
			return true
		}
		out, w = out[four:], w[four*cols:]
	}
	n := cols &^ 7
	dotF32AVX2(unsafe.SliceData(w), 4*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotF32Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

func dotBF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool {
	if !useAVX2 || len(out) == 0 || cols < 8 {
		return false
	}
	n := cols &^ 7
	dotBF16AVX2(unsafe.SliceData(w), 2*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotBF16Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

func dotF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool {
	if !useAVX2 || len(out) == 0 || cols < 8 {
		return false
	}
	n := cols &^ 7
	dotF16AVX2(unsafe.SliceData(w), 2*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotF16Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

func dotQ8_0Arch(w []byte, x []float32, nb int) (float32, bool) {
	switch {
	case nb == 0:
		return 0, false
	case useAVX512:
		return dotQ8_0AVX512(unsafe.SliceData(w), unsafe.SliceData(x), nb, &f16Table), true
	case useAVX2:
		return dotQ8_0AVX2(unsafe.SliceData(w), unsafe.SliceData(x), nb, &f16Table), true
	}
	return 0, false
}

func axpyArch(y []float32, a float32, x []float32) (done int) {
	if !useAVX2 || len(y) < 8 {
		return 0
	}
	n := len(y) &^ 7
	axpyAVX2(unsafe.SliceData(y), a, unsafe.SliceData(x), n)
	return n
}

func quantizeActArch(a *Act, x []float32) bool {
	if !useAVX2 || len(x) == 0 {
		return false
	}
	quantizeActAVX2(unsafe.SliceData(a.Q), unsafe.SliceData(a.Scale), unsafe.SliceData(a.Sum), unsafe.SliceData(a.Sum16), unsafe.SliceData(x), len(x)/ActBlock)
	return true
}

// dotActRowsArch returns the blocks of every row it did (the portable code does the rest).
func dotActRowsArch(k actKind, out []float32, w []byte, rowBytes, nb int, a *Act) (done int) {
	kk := actKinds[k]
	if !useAVX2 || nb < kk.group {
		return 0
	}
	n := nb / kk.group
	w0, q, sc, sum, o := unsafe.SliceData(w), unsafe.SliceData(a.Q), unsafe.SliceData(a.Scale), unsafe.SliceData(a.Sum), unsafe.SliceData(out)
	rows := len(out)
	switch k {
	case q8_0:
		dotQ8_0ActAVX2(w0, rowBytes, rows, q, sc, sum, n, o)
	case q4_0:
		dotQ4_0ActAVX2(w0, rowBytes, rows, q, sc, sum, n, o)
	case q4_K:
		dotQ4_KActAVX2(w0, rowBytes, rows, q, sc, sum, n, o)
	case q6_K:
		dotQ6_KActAVX2(w0, rowBytes, rows, q, sc, (*float32)(unsafe.Pointer(unsafe.SliceData(a.Sum16))), n, o)
	}
	return n * kk.group
}

func decodeQ4_0Arch(dst []float32, src []byte, nb int) bool {
	if !useAVX2 || nb == 0 {
		return false
	}
	decodeQ4_0AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), nb, &f16Table)
	return true
}

func decodeQ4_KArch(dst []float32, src []byte, nb int) bool {
	if !useAVX2 || nb == 0 {
		return false
	}
	decodeQ4_KAVX2(unsafe.SliceData(dst), unsafe.SliceData(src), nb, &f16Table)
	return true
}

func decodeQ6_KArch(dst []float32, src []byte, nb int) bool {
	if !useAVX2 || nb == 0 {
		return false
	}
	decodeQ6_KAVX2(unsafe.SliceData(dst), unsafe.SliceData(src), nb, &f16Table)
	return true
}

func decodeQ8_0Arch(dst []float32, src []byte, nb int) bool {
	if !useAVX2 || nb == 0 {
		return false
	}
	decodeQ8_0AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), nb, &f16Table)
	return true
}

// transpose8Arch returns the columns it did.
func transpose8Arch(dst []float32, dstStride int, src []float32, srcStride, k int) (done int) {
	if !useAVX2 || k < 8 {
		return 0
	}
	n := k &^ 7
	transpose8AVX2(unsafe.SliceData(dst), dstStride, unsafe.SliceData(src), srcStride, n)
	return n
}

func widenBF16Arch(dst []float32, src []uint16) (done int) {
	n := len(src) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	widenBF16AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), n)
	return n
}

func widenF16Arch(dst []float32, src []uint16) (done int) {
	n := len(src) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	widenF16AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), n)
	return n
}

func tileArch(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) bool {
	switch {
	case useAVX512:
		tile32x12AVX512(unsafe.SliceData(pack), unsafe.SliceData(x), xStride, k, &out[0])
	case useAVX2:
		for _, q := range [4][2]int{{0, 0}, {16, 0}, {0, 6}, {16, 6}} { // rows from q[0], tokens from q[1]
			tile16x6AVX2(&pack[q[0]], &x[q[1]*xStride], xStride, k, &out[q[1]*TileRows+q[0]], TileRows, TileRows, 0)
		}
	default:
		return false
	}
	return true
}

// widenBytesArch writes dst[j] = int8(src[j]) for j < len(dst) (32 values).
func widenBytesArch(dst []int16, src []byte) bool {
	if !useAVX2 {
		return false
	}
	widenBytesAVX2(&dst[0], &src[0], len(dst))
	return true
}

// widenNibblesArch writes lo[j] = src[j]&15 − bias, hi[j] = src[j]>>4 − bias for j < len(lo).
func widenNibblesArch(lo, hi []int16, src []byte, bias int) bool {
	if !useAVX2 {
		return false
	}
	widenNibblesAVX2(&lo[0], &hi[0], &src[0], len(lo), bias)
	return true
}

// widenQ6Arch writes the 128 centred 6-bit quants of one half of a Q6_K block.
func widenQ6Arch(y []int16, ql, qh []byte) bool {
	if !useAVX2 {
		return false
	}
	widenQ6AVX2(&y[0], &ql[0], &qh[0])
	return true
}

func tileQArch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	if !useAVX2 {
		return false
	}
	h := p.Kind.halves()
	for _, q := range [4][2]int{{0, 0}, {16, 0}, {0, 6}, {16, 6}} { // rows from q[0], tokens from q[1]
		tileQ16x6AVX2(&p.Q[2*q[0]], &x[q[1]*k], k, nb, h, &p.S[q[0]], &xs[q[1]*nb], &xsum[q[1]*nb], nb, &out[q[1]*TileRows+q[0]], TileRows)
	}
	return true
}

func attnTileArch(rows int, pack []float32, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	if !useAVX2 || k == 0 {
		return false
	}
	a := 0
	if acc {
		a = 1
	}
	if rows == 2 {
		tile16x2AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	} else {
		tile16x6AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	}
	return true
}

func attnTileF16Arch(rows int, pack []uint16, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	if !useAVX2 || k == 0 {
		return false
	}
	a := 0
	if acc {
		a = 1
	}
	if rows == 2 {
		tile16x2F16AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	} else {
		tile16x6F16AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	}
	return true
}

func narrowF16Arch(dst []uint16, src []float32) (done int) {
	n := len(src) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	narrowF16AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), n)
	return n
}

func expSubArch(x []float32, m float32) (sum float32, done int) {
	n := len(x) &^ 7
	if !useAVX2 || n == 0 {
		return 0, 0
	}
	return expSubAVX2(unsafe.SliceData(x), n, m), n
}

func maxArch(x []float32) (m float32, done int) {
	n := len(x) &^ 7
	if !useAVX2 || n == 0 {
		return 0, 0
	}
	return maxAVX2(unsafe.SliceData(x), n), n
}

func scaleArch(dst, x []float32, a float32) (done int) {
	n := len(dst) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	scaleAVX2(unsafe.SliceData(dst), unsafe.SliceData(x), a, n)
	return n
}

func siluMulArch(dst, gate, up []float32) (done int) {
	n := len(dst) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	siluMulAVX2(unsafe.SliceData(dst), unsafe.SliceData(gate), unsafe.SliceData(up), n)
	return n
}
