#include "textflag.h"

// Kernels of attention and of the MLP's activation, NEON: e^x for softmax and SiLU, the largest
// value, scaling. (The attention tiles are tile16x6NEON and tile16x2NEON, tile_neon_arm64.s.)

// e^x follows Cephes' expf exactly as attn_avx2_amd64.s does: x = n·ln2 + r with |r| <= ln2/2 (ln2
// split in two so that n·ln2hi is exact), e^r by a degree-6 polynomial, 2^n put into the exponent
// bits, inputs clamped to [-87, 88] so that 2^n stays a normal float32. The constants, in the
// order EXPCONSTS loads them into V16-V28 (each replicated to four lanes):
DATA expc<>+0(SB)/4, $0x42b00000  // 88, the upper clamp
DATA expc<>+4(SB)/4, $0xc2ae0000  // -87, the lower clamp
DATA expc<>+8(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expc<>+12(SB)/4, $0x3f318000 // ln2, high part
DATA expc<>+16(SB)/4, $0xb95e8083 // ln2, low part
DATA expc<>+20(SB)/4, $0x39506967 // p0 .. p5
DATA expc<>+24(SB)/4, $0x3ab743ce
DATA expc<>+28(SB)/4, $0x3c088908
DATA expc<>+32(SB)/4, $0x3d2aa9c1
DATA expc<>+36(SB)/4, $0x3e2aaaaa
DATA expc<>+40(SB)/4, $0x3f000000
DATA expc<>+44(SB)/4, $0x3f800000 // 1
DATA expc<>+48(SB)/4, $0x0000007f // 127, the exponent bias (an integer)
GLOBL expc<>(SB), RODATA|NOPTR, $52

#define EXPCONSTS \
	MOVD    $expc<>(SB), R9 \
	VLD1R.P 4(R9), [V16.S4] \
	VLD1R.P 4(R9), [V17.S4] \
	VLD1R.P 4(R9), [V18.S4] \
	VLD1R.P 4(R9), [V19.S4] \
	VLD1R.P 4(R9), [V20.S4] \
	VLD1R.P 4(R9), [V21.S4] \
	VLD1R.P 4(R9), [V22.S4] \
	VLD1R.P 4(R9), [V23.S4] \
	VLD1R.P 4(R9), [V24.S4] \
	VLD1R.P 4(R9), [V25.S4] \
	VLD1R.P 4(R9), [V26.S4] \
	VLD1R.P 4(R9), [V27.S4] \
	VLD1R.P 4(R9), [V28.S4]

// EXP4 replaces V0 by e^V0 (four lanes, clamped as above); it uses V1, V2, V3. The polynomial
// runs in Horner's order, each step a copy of the next coefficient and one FMLA.
#define EXP4 \
	WORD  $0x4eb0f400 /* fmin v0.4s, v0.4s, v16.4s */ \
	WORD  $0x4e31f400 /* fmax v0.4s, v0.4s, v17.4s */ \
	WORD  $0x6e32dc01 /* fmul v1.4s, v0.4s, v18.4s */ \
	WORD  $0x4e218821 /* frintn v1.4s, v1.4s */ \
	VFMLS V19.S4, V1.S4, V0.S4 \
	VFMLS V20.S4, V1.S4, V0.S4 \
	VMOV  V22.B16, V2.B16 \
	VFMLA V21.S4, V0.S4, V2.S4 \
	VMOV  V23.B16, V3.B16 \
	VFMLA V2.S4, V0.S4, V3.S4 \
	VMOV  V24.B16, V2.B16 \
	VFMLA V3.S4, V0.S4, V2.S4 \
	VMOV  V25.B16, V3.B16 \
	VFMLA V2.S4, V0.S4, V3.S4 \
	VMOV  V26.B16, V2.B16 \
	VFMLA V3.S4, V0.S4, V2.S4 \
	WORD  $0x6e20dc03 /* fmul v3.4s, v0.4s, v0.4s */ \
	VFMLA V3.S4, V2.S4, V0.S4 \
	WORD  $0x4e3bd400 /* fadd v0.4s, v0.4s, v27.4s */ \
	WORD  $0x4ea1b821 /* fcvtzs v1.4s, v1.4s */ \
	VADD  V28.S4, V1.S4, V1.S4 \
	VSHL  $23, V1.S4, V1.S4 \
	WORD  $0x6e21dc00 /* fmul v0.4s, v0.4s, v1.4s */

// func expSubNEON(x *float32, n int, m float32) float32
// x[i] = e^(x[i]−m) for n a positive multiple of 4; returns the sum of the new values.
TEXT ·expSubNEON(SB), NOSPLIT, $0-28
	MOVD  x+0(FP), R0
	MOVD  n+8(FP), R1
	FMOVS m+16(FP), F4
	VDUP  V4.S[0], V4.S4
	EXPCONSTS
	VEOR  V5.B16, V5.B16, V5.B16

esloop:
	VLD1   (R0), [V0.S4]
	WORD   $0x4ea4d400 // fsub v0.4s, v0.4s, v4.4s
	EXP4
	VST1.P [V0.S4], 16(R0)
	WORD   $0x4e20d4a5 // fadd v5.4s, v5.4s, v0.4s
	SUBS   $4, R1
	BNE    esloop
	WORD   $0x6e25d4a5 // faddp v5.4s, v5.4s, v5.4s
	WORD   $0x7e30d8a5 // faddp s5, v5.2s
	FMOVS  F5, ret+24(FP)
	RET

// func siluMulNEON(dst, gate, u *float32, n int)
// dst[i] = gate[i] / (1 + e^−gate[i]) · u[i] for n a positive multiple of 4.
TEXT ·siluMulNEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD gate+8(FP), R1
	MOVD u+16(FP), R2
	MOVD n+24(FP), R3
	EXPCONSTS

smloop:
	VLD1.P 16(R1), [V5.S4]
	VLD1.P 16(R2), [V6.S4]
	WORD   $0x6ea0f8a0 // fneg v0.4s, v5.4s
	EXP4
	WORD   $0x4e3bd400 // fadd v0.4s, v0.4s, v27.4s
	WORD   $0x6e20fca5 // fdiv v5.4s, v5.4s, v0.4s
	WORD   $0x6e26dca5 // fmul v5.4s, v5.4s, v6.4s
	VST1.P [V5.S4], 16(R0)
	SUBS   $4, R3
	BNE    smloop
	RET

// func maxNEON(x *float32, n int) float32
// The largest of x[0..n), n a positive multiple of 4.
TEXT ·maxNEON(SB), NOSPLIT, $0-20
	MOVD   x+0(FP), R0
	MOVD   n+8(FP), R1
	VLD1.P 16(R0), [V0.S4]
	SUBS   $4, R1
	BEQ    mxdone

mxloop:
	VLD1.P 16(R0), [V1.S4]
	WORD   $0x4e21f400 // fmax v0.4s, v0.4s, v1.4s
	SUBS   $4, R1
	BNE    mxloop

mxdone:
	WORD  $0x6e30f800 // fmaxv s0, v0.4s
	FMOVS F0, ret+16(FP)
	RET

// func scaleNEON(dst, x *float32, a float32, n int)
// dst[i] = a·x[i] for n a positive multiple of 4.
TEXT ·scaleNEON(SB), NOSPLIT, $0-32
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	FMOVS a+16(FP), F1
	MOVD  n+24(FP), R2

scloop:
	VLD1.P 16(R1), [V0.S4]
	WORD   $0x4f819000 // fmul v0.4s, v0.4s, v1.s[0]
	VST1.P [V0.S4], 16(R0)
	SUBS   $4, R2
	BNE    scloop
	RET
