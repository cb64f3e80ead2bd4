//go:build !amd64

package kernels

// Off amd64 only the plain Go kernels exist.
const cpuLevel = Generic

var useAVX2, useAVX512 bool

func setLevel(Level) {}

func dotF32AVX2(w *float32, stride, rows int, x *float32, n int, out *float32) {
	panic("unreachable")
}
func dotBF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32) {
	panic("unreachable")
}
func dotF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32) {
	panic("unreachable")
}
func dotQ8_0AVX2(w *byte, x *float32, n int, f16 *[65536]float32) float32 { panic("unreachable") }
func dotQ8_0AVX512(w *byte, x *float32, n int, f16 *[65536]float32) float32 {
	panic("unreachable")
}

func tile16x6AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int) {
	panic("unreachable")
}

func axpyAVX2(y *float32, a float32, x *float32, n int) { panic("unreachable") }

func tile32x12AVX512(pack, x *float32, xstride, k int, out *float32) { panic("unreachable") }

func transpose8AVX2(dst *float32, dstStride int, src *float32, srcStride, k int) {
	panic("unreachable")
}
func widenBF16AVX2(dst *float32, src *uint16, n int) { panic("unreachable") }
func widenF16AVX2(dst *float32, src *uint16, n int)  { panic("unreachable") }
func decodeQ8_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32) {
	panic("unreachable")
}

func quantizeActAVX2(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int) {
	panic("unreachable")
}
func dotQ8_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32) {
	panic("unreachable")
}
func dotQ4_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32) {
	panic("unreachable")
}
func dotQ4_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32) {
	panic("unreachable")
}
func dotQ6_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32) {
	panic("unreachable")
}
func decodeQ4_0AVX2(dst *float32, src *byte, n int, f16 *[65536]float32)  { panic("unreachable") }
func decodeQ4_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32) { panic("unreachable") }
func decodeQ6_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32) { panic("unreachable") }

func tile16x2AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int) {
	panic("unreachable")
}
func expSubAVX2(x *float32, n int, m float32) float32 { panic("unreachable") }
func siluMulAVX2(dst, gate, u *float32, n int)        { panic("unreachable") }
func maxAVX2(x *float32, n int) float32               { panic("unreachable") }
func scaleAVX2(dst, x *float32, a float32, n int)     { panic("unreachable") }

func dotF32x4AVX2(w *float32, stride, rows int, x *float32, n int, out *float32) {
	panic("unreachable")
}

func tileQ16x6AVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int) {
	panic("unreachable")
}
func widenNibblesAVX2(lo, hi *int16, src *byte, n, bias int) { panic("unreachable") }
func widenBytesAVX2(dst *int16, src *byte, n int)            { panic("unreachable") }
func widenQ6AVX2(dst *int16, ql, qh *byte)                   { panic("unreachable") }
