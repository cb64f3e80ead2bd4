package kernels

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// The levels of arm64, above Generic.
//
// NEON (Advanced SIMD, 4 float32 or 8 int16 lanes) is part of every arm64 CPU. DotProd adds the
// dot-product instructions SDOT and UDOT (FEAT_DotProd, Armv8.2+; every Apple M-series chip,
// AWS Graviton2 and later, Ampere Altra, Raspberry Pi 5's Cortex-A76; not the Pi 4's Cortex-A72):
// sixteen 8-bit products summed in fours into 32-bit lanes per instruction. Only the decoding dots
// of the block-quantized types (quant_arm64.s) have a DotProd form; every other kernel runs its
// NEON form at DotProd.
const (
	NEON    Level = 1 // Advanced SIMD: every arm64 CPU
	DotProd Level = 2 // Advanced SIMD with SDOT/UDOT (FEAT_DotProd)
)

var levelNames = []string{"generic", "neon", "dotprod"}

// cpuLevel is what this CPU runs. golang.org/x/sys/cpu reads the dot product from the kernel's
// hardware capabilities on Linux (HWCAP_ASIMDDP), from sysctl hw.optional.arm.FEAT_DotProd on
// macOS and from IsProcessorFeaturePresent on Windows. Where it cannot tell, it answers no and
// the kernels stay at NEON, which is always safe. The one exception is macOS: every Mac that runs
// arm64 code is an M-series chip (Armv8.5 and later, all with the dot product), but macOS 11 has
// no FEAT_DotProd sysctl, so there the answer would be a wrong no.
var cpuLevel = func() Level {
	switch {
	case !cpu.ARM64.HasASIMD:
		return Generic
	case cpu.ARM64.HasASIMDDP || runtime.GOOS == "darwin":
		return DotProd
	}
	return NEON
}()

// useNEON and useDot select the assembly kernels (set once at start; Limit changes them in tests).
var useNEON, useDot bool

func archSetLevel(l Level) { useNEON, useDot = l >= NEON, l >= DotProd }

// The assembly kernels (NEON unless named Dot). Their contracts are in the comments of the
// *_arm64.s files; dispatch_arm64.go calls them.

//go:noescape
func dotF32NEON(w *float32, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotBF16NEON(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotF16NEON(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func tile16x6NEON(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func tile16x2NEON(pack, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)

//go:noescape
func transpose8NEON(dst *float32, dstStride int, src *float32, srcStride, k int)

//go:noescape
func widenBF16NEON(dst *float32, src *uint16, n int)

//go:noescape
func widenF16NEON(dst *float32, src *uint16, n int)

//go:noescape
func expSubNEON(x *float32, n int, m float32) float32

//go:noescape
func siluMulNEON(dst, gate, u *float32, n int)

//go:noescape
func maxNEON(x *float32, n int) float32

//go:noescape
func scaleNEON(dst, x *float32, a float32, n int)

//go:noescape
func quantizeActNEON(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)

//go:noescape
func dotQ8_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ4_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)

//go:noescape
func tileQ8x6NEON(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

//go:noescape
func widenNibblesNEON(lo, hi *int16, src *byte, n, bias int)

//go:noescape
func widenBytesNEON(dst *int16, src *byte, n int)

//go:noescape
func widenQ6NEON(dst *int16, ql, qh *byte)

// The DotProd kernels (quantdot_arm64.s).

//go:noescape
func quantizeActDot(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int, planes *byte, lo128 *int32)

//go:noescape
func dotQ8_0ActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func dotQ4_0ActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)

//go:noescape
func dotQ4_KActDot(w *byte, stride, rows int, p *byte, scale, sum *float32, n int, out *float32)

//go:noescape
func dotQ6_KActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)
