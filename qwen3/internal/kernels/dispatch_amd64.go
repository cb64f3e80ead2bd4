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
	n := cols &^ 7
	dotF32AVX2(unsafe.SliceData(w), 4*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	finishRows(out, cols, n, func(r int) float32 { return dotF32Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
	return true
}

func dotBF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool {
	if !useAVX2 || len(out) == 0 || cols < 8 {
		return false
	}
	if r8 := len(out) &^ 7; useAVX512 && r8 > 0 && cols%32 == 0 { // eight rows at a time, the rest below
		dotBF16AVX512(unsafe.SliceData(w), 2*cols, r8, unsafe.SliceData(x), cols, unsafe.SliceData(out))
		if r8 == len(out) {
			return true
		}
		out, w = out[r8:], w[r8*cols:]
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

// actArch is what an Act keeps for the VNNI byte-plane kernels (dotQ6_KActVNNI): its values split
// into bytes, 64 per block of 32 (the high bytes a>>8, signed, then the low bytes a&255,
// unsigned), the layout of dispatch_arm64.go's planes. quantizeActArch writes them with the values
// when the VNNI kernels are on and clears n otherwise (MarkWritten clears it for writes through
// views), so that planes never describe values written since: the dots read them only when n
// covers the row.
type actArch struct {
	planes []byte
	n      int // values the planes hold
}

func (a *actArch) stale() { a.n = 0 }

func quantizeActArch(a *Act, x []float32) bool {
	a.arch.n = 0
	if !useAVX2 || len(x) == 0 {
		return false
	}
	q, nb := unsafe.SliceData(a.Q), len(x)/ActBlock
	quantizeActAVX2(q, unsafe.SliceData(a.Scale), unsafe.SliceData(a.Sum), unsafe.SliceData(a.Sum16), unsafe.SliceData(x), nb)
	if useVNNI {
		if len(a.arch.planes) < 2*len(a.Q) { // once per Act, for its whole length
			a.arch.planes = make([]byte, 2*len(a.Q))
		}
		splitActVNNI(q, unsafe.SliceData(a.arch.planes), nb)
		a.arch.n = len(x)
	}
	return true
}

// actRowsKernel is a one-token dot kernel of quant_avx2_amd64.s or quant_avx512vnni_amd64.s.
type actRowsKernel func(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

// wideThenAVX2 runs the 512-bit kernel wide (with VNNI) on the rows in whole steps of step rows
// and the AVX2 kernel on the rest; the two give the same bits, so where a row falls does not
// matter.
func wideThenAVX2(wide, avx2 actRowsKernel, step int, w []byte, rowBytes int, out []float32, q *int16, sc, sum *float32, n int) {
	r := 0
	if useVNNI {
		r = len(out) / step * step
	}
	if r > 0 {
		wide(&w[0], rowBytes, r, q, sc, sum, n, &out[0])
	}
	if r < len(out) {
		avx2(&w[r*rowBytes], rowBytes, len(out)-r, q, sc, sum, n, &out[r])
	}
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
		wideThenAVX2(dotQ8_0ActVNNI, dotQ8_0ActAVX2, 4, w, rowBytes, out, q, sc, sum, n)
	case q4_0:
		wideThenAVX2(dotQ4_0ActVNNI, dotQ4_0ActAVX2, 4, w, rowBytes, out, q, sc, sum, n)
	case q4_K:
		wideThenAVX2(dotQ4_KActVNNI, dotQ4_KActAVX2, 4, w, rowBytes, out, q, sc, sum, n)
	case q6_K:
		s16 := unsafe.SliceData(a.Sum16)
		r := 0
		if useVNNI && a.arch.n >= n*kk.size { // two rows at a time on the byte planes, the rest below
			r = rows &^ 1
		}
		if r > 0 {
			dotQ6_KActVNNI(w0, rowBytes, r, unsafe.SliceData(a.arch.planes), sc, s16, n, o)
		}
		if r < rows {
			dotQ6_KActAVX2(&w[r*rowBytes], rowBytes, rows-r, q, sc, (*float32)(unsafe.Pointer(s16)), n, &out[r])
		}
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

// packBF16Arch returns the columns it packed: a multiple of 16, at the AVX512 level.
func packBF16Arch(pack []float32, w []uint16, k int) (done int) {
	n := k &^ 15
	if !useAVX512 || n == 0 {
		return 0
	}
	for h := 0; h < TileRows; h += 16 { // rows h..h+15: lanes h.. of each column
		packBF16AVX512(&pack[h], &w[h*k], 2*k, n)
	}
	return n
}

// prefetchArch asks for b's lines into the level-2 cache (plain x86-64, at every assembly level).
func prefetchArch(b []byte) {
	if useAVX2 {
		prefetchL2(&b[0], len(b))
	}
}

func addRowsArch(y []float32, yStride int, x []float32, n int) bool {
	if !useAVX2 || n == 0 {
		return false
	}
	addRowsAVX2(&y[0], yStride, &x[0], n)
	return true
}

func copyRowsArch(y []float32, yStride int, x []float32, n int) bool {
	if !useAVX2 || n == 0 {
		return false
	}
	copyRowsAVX2(&y[0], yStride, &x[0], n)
	return true
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

// packQArch fills a QPack from 32 whole rows at the AVX512 level: 16 rows per call, each call
// writing TileQ's layout directly (the values decodeQRow and the pairing give, bit for bit).
// Fewer rows (a matrix's last block) take the portable path with its zero rows.
func packQArch(p *QPack, kind QKind, k int, raw []byte, rowBytes, rows int) bool {
	if !useAVX512 || rows != TileRows {
		return false
	}
	kernel, nb := qPackersAVX512[kind], k/kind.blockSize()
	for h := 0; h < TileRows; h += 16 { // rows h..h+15: words 2h.. of each column pair, S from h
		kernel(&p.Q[2*h], &p.S[h], &raw[h*rowBytes], rowBytes, nb, &f16Table)
	}
	return true
}

var qPackersAVX512 = [...]func(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32){
	QQ8_0: packQ8_0AVX512, QQ4_0: packQ4_0AVX512, QQ4_K: packQ4_KAVX512, QQ6_K: packQ6_KAVX512,
}

func tileQArch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	if !useAVX2 {
		return false
	}
	if useVNNI { // the whole tile in one call: 32 rows x 12 tokens
		kernel := tileQ32x12NoMinVNNI
		if p.Kind == QQ4_K {
			kernel = tileQ32x12VNNI
		}
		kernel(&p.Q[0], &x[0], k, nb, p.Kind.halves(), &p.S[0], &xs[0], &xsum[0], nb, &out[0])
		return true
	}
	h, kernel := p.Kind.halves(), tileQ16x6NoMinAVX2
	if p.Kind == QQ4_K {
		kernel = tileQ16x6AVX2
	}
	for _, q := range [4][2]int{{0, 0}, {16, 0}, {0, 6}, {16, 6}} { // rows from q[0], tokens from q[1]
		kernel(&p.Q[2*q[0]], &x[q[1]*k], k, nb, h, &p.S[q[0]], &xs[q[1]*nb], &xsum[q[1]*nb], nb, &out[q[1]*TileRows+q[0]], TileRows)
	}
	return true
}

// tile8Arch runs the 8-token float tile (out rows 8-11 are not written).
func tile8Arch(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) bool {
	if !useAVX512 {
		return false
	}
	tile32x8AVX512(&pack[0], &x[0], xStride, k, &out[0])
	return true
}

// tileQ8Arch runs the 8-token VNNI TileQ (out rows 8-11 are not written).
func tileQ8Arch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	if !useVNNI {
		return false
	}
	kernel := tileQ32x8NoMinVNNI
	if p.Kind == QQ4_K {
		kernel = tileQ32x8VNNI
	}
	kernel(&p.Q[0], &x[0], k, nb, p.Kind.halves(), &p.S[0], &xs[0], &xsum[0], nb, &out[0])
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
	switch {
	case useAVX512 && rows == 2: // the AVX2 kernels' bits in 512-bit registers
		tile16x2AVX512(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	case useAVX512:
		tile16x6AVX512(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	case rows == 2:
		tile16x2AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	default:
		tile16x6AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	}
	return true
}

// attnTile32Arch runs AttnTile32 at the AVX512 level (below it, two AttnTiles do).
func attnTile32Arch(rows int, pack []float32, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	if !useAVX512 || k == 0 {
		return false
	}
	a := 0
	if acc {
		a = 1
	}
	if rows == 2 {
		tile32x2AVX512(&pack[0], second, &x[0], xStride, k, &out[0], packStride, outStride, a)
	} else {
		tile32x6AVX512(&pack[0], second, &x[0], xStride, k, &out[0], packStride, outStride, a)
	}
	return true
}

func attnTile32F16Arch(rows int, pack []uint16, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	if !useAVX512 || k == 0 {
		return false
	}
	a := 0
	if acc {
		a = 1
	}
	if rows == 2 {
		tile32x2F16AVX512(&pack[0], second, &x[0], xStride, k, &out[0], packStride, outStride, a)
	} else {
		tile32x6F16AVX512(&pack[0], second, &x[0], xStride, k, &out[0], packStride, outStride, a)
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
	switch {
	case useAVX512 && rows == 2: // the AVX2 kernels' bits in 512-bit registers
		tile16x2F16AVX512(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	case useAVX512:
		tile16x6F16AVX512(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	case rows == 2:
		tile16x2F16AVX2(&pack[0], &x[0], xStride, k, &out[0], packStride, outStride, a)
	default:
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

// The batched kernels (multi.go) return the number of tokens, from the first, they did; the
// portable code does the others one token at a time.

func dotF32RowsNArch(out []float32, outStride, rows int, w []float32, cols int, x []float32, xStride, tokens int) int {
	if !useAVX2 || rows == 0 || cols == 0 || cols%8 != 0 {
		return 0
	}
	return floatRowsNArch(unsafe.Pointer(unsafe.SliceData(w)), 4*cols, rows, cols, out, outStride, x, xStride, tokens, &f32KernelsN, &f32KernelsN512)
}

func dotBF16RowsNArch(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) int {
	if !useAVX2 || rows == 0 || cols == 0 || cols%8 != 0 {
		return 0
	}
	return floatRowsNArch(unsafe.Pointer(unsafe.SliceData(w)), 2*cols, rows, cols, out, outStride, x, xStride, tokens, &bf16KernelsN, &bf16KernelsN512)
}

func dotF16RowsNArch(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) int {
	if !useAVX2 || rows == 0 || cols == 0 || cols%8 != 0 {
		return 0
	}
	return floatRowsNArch(unsafe.Pointer(unsafe.SliceData(w)), 2*cols, rows, cols, out, outStride, x, xStride, tokens, &f16KernelsN, &f16KernelsN512)
}

// floatKernelsN are a float type's batched kernels for 8, 4 and 2 tokens (their weights' type
// is the kernel's, hence the untyped pointer).
type floatKernelsN [3]func(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

var (
	f32KernelsN  = floatKernelsN{dotF32N8AVX2, dotF32N4AVX2, dotF32N2AVX2}
	bf16KernelsN = floatKernelsN{dotBF16N8AVX2, dotBF16N4AVX2, dotBF16N2AVX2}
	f16KernelsN  = floatKernelsN{dotF16N8AVX2, dotF16N4AVX2, dotF16N2AVX2}

	// the AVX512 level's (multi_avx512_amd64.s): four rows at a time, 16 columns per step
	f32KernelsN512  = floatKernelsN{dotF32N8AVX512, dotF32N4AVX512, dotF32N2AVX512}
	bf16KernelsN512 = floatKernelsN{dotBF16N8AVX512, dotBF16N4AVX512, dotBF16N2AVX512}
	f16KernelsN512  = floatKernelsN{dotF16N8AVX512, dotF16N4AVX512, dotF16N2AVX512}
)

// floatRowsNArch runs the AVX512 level's kernels (k512) on the rows in whole groups of four when
// the columns are whole steps of 16, and the AVX2 kernels (k) on the rest: both do every lane's
// operations in the same order, so which rows each takes changes no bit.
func floatRowsNArch(w unsafe.Pointer, stride, rows, cols int, out []float32, outStride int, x []float32, xStride, tokens int, k, k512 *floatKernelsN) int {
	if r4 := rows &^ 3; useAVX512 && r4 > 0 && cols%16 == 0 {
		t := floatRowsN(w, stride, r4, cols, out, outStride, x, xStride, tokens, k512)
		if r4 == rows {
			return t
		}
		w, rows, out = unsafe.Add(w, r4*stride), rows-r4, out[r4:]
	}
	return floatRowsN(w, stride, rows, cols, out, outStride, x, xStride, tokens, k)
}

// floatRowsN runs a float type's batched kernels over the tokens, eight, four or two at a time,
// and returns how many tokens they did.
func floatRowsN(w unsafe.Pointer, stride, rows, cols int, out []float32, outStride int, x []float32, xStride, tokens int, kn *floatKernelsN) int {
	t := 0
	for tokens-t >= 2 {
		xt, o := &x[t*xStride], &out[t*outStride]
		switch {
		case tokens-t >= 8:
			kn[0](w, stride, rows, xt, xStride, cols, o, outStride)
			t += 8
		case tokens-t >= 4:
			kn[1](w, stride, rows, xt, xStride, cols, o, outStride)
			t += 4
		default:
			kn[2](w, stride, rows, xt, xStride, cols, o, outStride)
			t += 2
		}
	}
	return t
}

// actKernelsN are the batched assembly kernels of each type for 8, 4 and 2 tokens (nil: none yet).
var actKernelsN = [len(actKinds)][3]func(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int){
	q8_0: {dotQ8_0ActN8AVX2, dotQ8_0ActN4AVX2, dotQ8_0ActN2AVX2},
	q4_0: {dotQ4_0ActN8AVX2, dotQ4_0ActN4AVX2, dotQ4_0ActN2AVX2},
	q4_K: {dotQ4_KActN8AVX2, dotQ4_KActN4AVX2, dotQ4_KActN2AVX2},
}

func dotActRowsNArch(k actKind, out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, cols, tokens int) int {
	kk, kn := actKinds[k], actKernelsN[k]
	nb := rowBytes / kk.blockBytes
	if !useAVX2 || rows == 0 || nb == 0 || nb%kk.group != 0 {
		return 0
	}
	n, w0 := nb/kk.group, unsafe.SliceData(w)
	if useVNNI && vnniKernelsN[k][0] != nil { // two tokens to a 512-bit register
		return dotActRowsNVNNI(k, out, outStride, rows, w, rowBytes, a, cols, tokens, n)
	}
	t := 0
	if k == q6_K { // one kernel for 2..8 tokens
		for ; tokens-t >= 2; t += 8 {
			tt := min(8, tokens-t)
			sum16 := (*float32)(unsafe.Pointer(&a.Sum16[t*cols/16]))
			dotQ6_KActNAVX2(w0, rowBytes, rows, &a.Q[t*cols], &a.Scale[t*cols/ActBlock], sum16, n, &out[t*outStride], outStride, cols, tt)
			if tt < 8 {
				return t + tt
			}
		}
		return t
	}
	if kn[0] == nil {
		return 0
	}
	for tokens-t >= 2 {
		q, sc, sum, o := &a.Q[t*cols], &a.Scale[t*cols/ActBlock], &a.Sum[t*cols/ActBlock], &out[t*outStride]
		switch {
		case tokens-t >= 8:
			kn[0](w0, rowBytes, rows, q, sc, sum, n, o, outStride, cols)
			t += 8
		case tokens-t >= 4:
			kn[1](w0, rowBytes, rows, q, sc, sum, n, o, outStride, cols)
			t += 4
		default:
			kn[2](w0, rowBytes, rows, q, sc, sum, n, o, outStride, cols)
			t += 2
		}
	}
	return t
}
