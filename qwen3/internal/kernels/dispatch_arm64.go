package kernels

import "unsafe"

// The arm64 side of the dispatch (see dispatch_amd64.go for the hooks' contracts): NEON forms at
// level NEON, and at DotProd the block-quantized decoding dots in their SDOT/UDOT forms.

func dotF32RowsArch(out, w []float32, cols int, x []float32) bool {
	if !useNEON || len(out) == 0 || cols < 16 {
		return false
	}
	n := cols &^ 15
	dotF32NEON(unsafe.SliceData(w), 4*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotF32Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

func dotBF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool {
	if !useNEON || len(out) == 0 || cols < 16 {
		return false
	}
	n := cols &^ 15
	dotBF16NEON(unsafe.SliceData(w), 2*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotBF16Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

func dotF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool {
	if !useNEON || len(out) == 0 || cols < 16 {
		return false
	}
	n := cols &^ 15
	dotF16NEON(unsafe.SliceData(w), 2*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotF16Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

// DotQ8_0 on float inputs is the engine's exact reference (Matrix.Dot), not a decoding path.
func dotQ8_0Arch(w []byte, x []float32, nb int) (float32, bool) { return 0, false }

// Axpy is not called by the engine.
func axpyArch(y []float32, a float32, x []float32) (done int) { return 0 }

// actArch is what an Act keeps for the DotProd kernels: its values split into bytes, 64 per
// block of 32 (the high bytes a>>8, signed, then the low bytes a&255, unsigned), and 128·Σ of each
// block's low bytes. quantizeActArch writes them with the values at level DotProd and clears n
// otherwise, so that planes never describe values written since: the DotProd dots read them only
// when n covers the row, and take the NEON path otherwise.
type actArch struct {
	planes []byte
	lo128  []int32
	n      int // values the planes hold
}

func (a *actArch) stale() { a.n = 0 }

func quantizeActArch(a *Act, x []float32) bool {
	a.arch.n = 0
	if !useNEON || len(x) == 0 {
		return false
	}
	q, sc, sum, s16, nb := unsafe.SliceData(a.Q), unsafe.SliceData(a.Scale), unsafe.SliceData(a.Sum), unsafe.SliceData(a.Sum16), len(x)/ActBlock
	if !useDot {
		quantizeActNEON(q, sc, sum, s16, unsafe.SliceData(x), nb)
		return true
	}
	if len(a.arch.planes) < 2*len(a.Q) { // once per Act, for its whole length
		a.arch.planes, a.arch.lo128 = make([]byte, 2*len(a.Q)), make([]int32, len(a.Q)/ActBlock)
	}
	quantizeActDot(q, sc, sum, s16, unsafe.SliceData(x), nb, unsafe.SliceData(a.arch.planes), unsafe.SliceData(a.arch.lo128))
	a.arch.n = len(x)
	return true
}

// dotActRowsArch returns the blocks of every row it did (the portable code does the rest). Q8_0
// and Q4_0 go four blocks at a time, Q4_K and Q6_K a super-block at a time; at DotProd with the
// Act's byte planes, otherwise with the NEON kernels.
func dotActRowsArch(k actKind, out []float32, w []byte, rowBytes, nb int, a *Act) (done int) {
	kk := actKinds[k]
	group := 1
	if k == q8_0 || k == q4_0 {
		group = 4
	}
	n := nb / group
	if !useNEON || n == 0 {
		return 0
	}
	w0, sc, o, rows := unsafe.SliceData(w), unsafe.SliceData(a.Scale), unsafe.SliceData(out), len(out)
	s16 := unsafe.SliceData(a.Sum16)
	if useDot && a.arch.n >= n*group*kk.size {
		p := unsafe.SliceData(a.arch.planes)
		switch k {
		case q8_0:
			dotQ8_0ActDot(w0, rowBytes, rows, p, sc, unsafe.SliceData(a.arch.lo128), n, o)
		case q4_0:
			dotQ4_0ActDot(w0, rowBytes, rows, p, sc, s16, n, o)
		case q4_K:
			dotQ4_KActDot(w0, rowBytes, rows, p, sc, unsafe.SliceData(a.Sum), n, o)
		case q6_K:
			dotQ6_KActDot(w0, rowBytes, rows, p, sc, s16, n, o)
		}
		return n * group
	}
	q, sum := unsafe.SliceData(a.Q), unsafe.SliceData(a.Sum)
	switch k {
	case q8_0:
		dotQ8_0ActNEON(w0, rowBytes, rows, q, sc, sum, n, o)
	case q4_0:
		dotQ4_0ActNEON(w0, rowBytes, rows, q, sc, sum, n, o)
	case q4_K:
		dotQ4_KActNEON(w0, rowBytes, rows, q, sc, sum, n, o)
	case q6_K:
		dotQ6_KActNEON(w0, rowBytes, rows, q, sc, (*float32)(unsafe.Pointer(s16)), n, o)
	}
	return n * group
}

// The row decoders serve the embedding lookup (one row per token) and tests; prompts of the
// quantized types decode their rows through QPack's widening hooks below.
func decodeQ4_0Arch(dst []float32, src []byte, nb int) bool { return false }
func decodeQ4_KArch(dst []float32, src []byte, nb int) bool { return false }
func decodeQ6_KArch(dst []float32, src []byte, nb int) bool { return false }
func decodeQ8_0Arch(dst []float32, src []byte, nb int) bool { return false }

// transpose8Arch returns the columns it did.
func transpose8Arch(dst []float32, dstStride int, src []float32, srcStride, k int) (done int) {
	n := k &^ 3
	if !useNEON || n == 0 {
		return 0
	}
	transpose8NEON(unsafe.SliceData(dst), dstStride, unsafe.SliceData(src), srcStride, n)
	return n
}

func widenBF16Arch(dst []float32, src []uint16) (done int) {
	n := len(src) &^ 7
	if !useNEON || n == 0 {
		return 0
	}
	widenBF16NEON(unsafe.SliceData(dst), unsafe.SliceData(src), n)
	return n
}

func widenF16Arch(dst []float32, src []uint16) (done int) {
	n := len(src) &^ 7
	if !useNEON || n == 0 {
		return 0
	}
	widenF16NEON(unsafe.SliceData(dst), unsafe.SliceData(src), n)
	return n
}

// addRowsArch and copyRowsArch: arm64 runs the portable loops.
func addRowsArch(y []float32, yStride int, x []float32, n int) bool  { return false }
func copyRowsArch(y []float32, yStride int, x []float32, n int) bool { return false }

// prefetchArch: arm64 has no prefetching form yet.
func prefetchArch(b []byte) {}

// packBF16Arch: arm64 packs bfloat16 rows by widening and transposing (PackBF16's portable form,
// with its NEON kernels).
func packBF16Arch(pack []float32, w []uint16, k int) (done int) { return 0 }

// tileArch covers the 32 x 12 tile in four 16-row, 6-token quarters.
func tileArch(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) bool {
	if !useNEON {
		return false
	}
	for _, q := range [4][2]int{{0, 0}, {16, 0}, {0, 6}, {16, 6}} { // rows from q[0], tokens from q[1]
		tile16x6NEON(&pack[q[0]], &x[q[1]*xStride], xStride, k, &out[q[1]*TileRows+q[0]], TileRows, TileRows, 0)
	}
	return true
}

// widenBytesArch writes dst[j] = int8(src[j]) for j < len(dst) (32 values).
func widenBytesArch(dst []int16, src []byte) bool {
	if !useNEON {
		return false
	}
	widenBytesNEON(&dst[0], &src[0], len(dst))
	return true
}

// widenNibblesArch writes lo[j] = src[j]&15 − bias, hi[j] = src[j]>>4 − bias for j < len(lo).
func widenNibblesArch(lo, hi []int16, src []byte, bias int) bool {
	if !useNEON {
		return false
	}
	widenNibblesNEON(&lo[0], &hi[0], &src[0], len(lo), bias)
	return true
}

// widenQ6Arch writes the 128 centred 6-bit quants of one half of a Q6_K block.
func widenQ6Arch(y []int16, ql, qh []byte) bool {
	if !useNEON {
		return false
	}
	widenQ6NEON(&y[0], &ql[0], &qh[0])
	return true
}

// packQArch: arm64 decodes a QPack's rows with the portable code (and its widening hooks).
func packQArch(p *QPack, kind QKind, k int, raw []byte, rowBytes, rows int) bool { return false }

// tile8Arch and tileQ8Arch: arm64 has no 8-token tiles; TilePart and TileQPart run the 12-token
// ones.
func tile8Arch(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) bool {
	return false
}

func tileQ8Arch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	return false
}

// tileQArch covers the 32 x 12 tile in eight 8-row, 6-token parts.
func tileQArch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	if !useNEON {
		return false
	}
	h := p.Kind.halves()
	for t := 0; t < TileTokens; t += 6 {
		for r := 0; r < TileRows; r += 8 {
			tileQ8x6NEON(&p.Q[2*r], &x[t*k], k, nb, h, &p.S[r], &xs[t*nb], &xsum[t*nb], nb, &out[t*TileRows+r], TileRows)
		}
	}
	return true
}

// attnTile32Arch and attnTile32F16Arch: arm64 runs two AttnTiles (its NEON kernels).
func attnTile32Arch(rows int, pack []float32, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}

func attnTile32F16Arch(rows int, pack []uint16, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}

func attnTileArch(rows int, pack []float32, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	if !useNEON || k == 0 {
		return false
	}
	a := 0
	if acc {
		a = 1
	}
	if rows == 2 {
		tile16x2NEON(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	} else {
		tile16x6NEON(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	}
	return true
}
func expSubArch(x []float32, m float32) (sum float32, done int) {
	n := len(x) &^ 3
	if !useNEON || n == 0 {
		return 0, 0
	}
	return expSubNEON(unsafe.SliceData(x), n, m), n
}

func maxArch(x []float32) (m float32, done int) {
	n := len(x) &^ 3
	if !useNEON || n == 0 {
		return 0, 0
	}
	return maxNEON(unsafe.SliceData(x), n), n
}

func scaleArch(dst, x []float32, a float32) (done int) {
	n := len(dst) &^ 3
	if !useNEON || n == 0 {
		return 0
	}
	scaleNEON(unsafe.SliceData(dst), unsafe.SliceData(x), a, n)
	return n
}

func siluMulArch(dst, gate, up []float32) (done int) {
	n := len(dst) &^ 3
	if !useNEON || n == 0 {
		return 0
	}
	siluMulNEON(unsafe.SliceData(dst), unsafe.SliceData(gate), unsafe.SliceData(up), n)
	return n
}

// The float16 KV cache's kernels have no arm64 form yet: they run their plain Go forms.
func attnTileF16Arch(rows int, pack []uint16, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}
func narrowF16Arch(dst []uint16, src []float32) (done int) { return 0 }

// The batched kernels have no arm64 form yet: each token goes through the one-token kernels.
func dotF32RowsNArch(out []float32, outStride, rows int, w []float32, cols int, x []float32, xStride, tokens int) int {
	return 0
}
func dotBF16RowsNArch(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) int {
	return 0
}
func dotF16RowsNArch(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) int {
	return 0
}
func dotActRowsNArch(k actKind, out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, cols, tokens int) int {
	return 0
}
