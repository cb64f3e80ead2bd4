package kernels

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// cpuLevel is what this CPU runs: AVX2 needs AVX2 (8-lane integer widening), FMA and F16C
// (half-precision conversion); AVX512 needs AVX-512 F and BW on top.
var cpuLevel = func() Level {
	switch {
	case !(cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX && x86HasF16C()):
		return Generic
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW:
		return AVX512
	}
	return AVX2
}()

// The levels of amd64, above Generic.
const (
	AVX2   Level = 1 // 8 lanes: AVX2 with FMA and F16C (x86-64 since 2013-2015)
	AVX512 Level = 2 // 16 lanes: AVX-512 F and BW; kernels without an AVX-512 form run their AVX2 form
)

var levelNames = []string{"generic", "avx2", "avx512"}

// useAVX2 and useAVX512 select the assembly kernels (set once at start; Limit changes them in
// tests). useVNNI adds, at the AVX512 level, the kernels that need AVX-512 VNNI (VPDPWSSD: Intel
// since Ice Lake, AMD since Zen 4); without it those kernels run their AVX2 form.
var useAVX2, useAVX512, useVNNI bool

func archSetLevel(l Level) {
	useAVX2, useAVX512 = l >= AVX2, l >= AVX512
	useVNNI = useAVX512 && cpu.X86.HasAVX512VNNI
}

// x86HasF16C reports F16C (CPUID.1:ECX bit 29), which x/sys/cpu does not expose.
func x86HasF16C() bool {
	_, _, ecx, _ := cpuid(1, 0)
	return ecx&(1<<29) != 0
}

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

//go:noescape
func dotF32AVX2(w *float32, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotBF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotBF16AVX512(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotQ8_0AVX2(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32

//go:noescape
func dotQ8_0AVX512(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32

//go:noescape
func tile16x6AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func axpyAVX2(y *float32, a float32, x *float32, n int)

//go:noescape
func tile32x12AVX512(pack, x *float32, xstride, k int, out *float32)

//go:noescape
func transpose8AVX2(dst *float32, dstStride int, src *float32, srcStride, k int)

//go:noescape
func widenBF16AVX2(dst *float32, src *uint16, n int)

//go:noescape
func widenF16AVX2(dst *float32, src *uint16, n int)

//go:noescape
func decodeQ8_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)

//go:noescape
func quantizeActAVX2(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)

//go:noescape
func dotQ8_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_0ActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ8_0ActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActVNNI(w *byte, stride, rows int, p *byte, scale *float32, sum16 *int32, n int, out *float32)

//go:noescape
func splitActVNNI(q *int16, p *byte, nblocks int)

//go:noescape
func dotQ4_KActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func decodeQ4_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)

//go:noescape
func decodeQ4_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)

//go:noescape
func decodeQ6_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)

//go:noescape
func tile16x2AVX2(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2F16AVX2(pack *uint16, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x6F16AVX2(pack *uint16, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func narrowF16AVX2(dst *uint16, src *float32, n int)

//go:noescape
func expSubAVX2(x *float32, n int, m float32) float32

//go:noescape
func siluMulAVX2(dst, gate, u *float32, n int)

//go:noescape
func maxAVX2(x *float32, n int) float32

//go:noescape
func scaleAVX2(dst, x *float32, a float32, n int)

//go:noescape
func tileQ16x6AVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

//go:noescape
func tileQ32x12VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x12NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ16x6NoMinAVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

//go:noescape
func widenNibblesAVX2(lo, hi *int16, src *byte, n, bias int)

//go:noescape
func widenBytesAVX2(dst *int16, src *byte, n int)

//go:noescape
func widenQ6AVX2(dst *int16, ql, qh *byte)

//go:noescape
func dotQ8_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ8_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ8_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ6_KActNAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols, tokens int)

//go:noescape
func dotF32N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N8AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N4AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N2AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N8AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N4AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N2AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N8AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N4AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N2AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
