#include "textflag.h"

// Conversions for prompt processing (convert.go), NEON.

// func transpose8NEON(dst *float32, dstStride int, src *float32, srcStride int, k int)
//
// dst[j*dstStride+i] = src[i*srcStride+j] for i < 8, j < k (a positive multiple of 4). Four
// columns of the eight rows per step: two 4x4 transposes, each TRN1/TRN2 on 32-bit lanes
// (neighbouring rows' pairs) and then on 64-bit halves; per step 8 loads, 16 TRN, 4 stores.
TEXT ·transpose8NEON(SB), NOSPLIT, $0-40
	MOVD dst+0(FP), R0
	MOVD dstStride+8(FP), R1
	LSL  $2, R1
	MOVD src+16(FP), R10
	MOVD srcStride+24(FP), R2
	LSL  $2, R2
	MOVD k+32(FP), R3
	ADD  R2, R10, R11            // the eight source rows
	ADD  R2, R11, R12
	ADD  R2, R12, R13
	ADD  R2, R13, R14
	ADD  R2, R14, R15
	ADD  R2, R15, R16
	ADD  R2, R16, R17

tr8loop:
	VLD1.P 16(R10), [V0.S4]
	VLD1.P 16(R11), [V1.S4]
	VLD1.P 16(R12), [V2.S4]
	VLD1.P 16(R13), [V3.S4]
	VLD1.P 16(R14), [V4.S4]
	VLD1.P 16(R15), [V5.S4]
	VLD1.P 16(R16), [V6.S4]
	VLD1.P 16(R17), [V7.S4]
	VTRN1  V1.S4, V0.S4, V16.S4  // r0c0 r1c0 r0c2 r1c2
	VTRN2  V1.S4, V0.S4, V17.S4  // r0c1 r1c1 r0c3 r1c3
	VTRN1  V3.S4, V2.S4, V18.S4  // r2c0 r3c0 r2c2 r3c2
	VTRN2  V3.S4, V2.S4, V19.S4
	VTRN1  V5.S4, V4.S4, V20.S4
	VTRN2  V5.S4, V4.S4, V21.S4
	VTRN1  V7.S4, V6.S4, V22.S4
	VTRN2  V7.S4, V6.S4, V23.S4
	VTRN1  V18.D2, V16.D2, V24.D2 // column 0, rows 0-3
	VTRN1  V22.D2, V20.D2, V25.D2 // column 0, rows 4-7
	VTRN1  V19.D2, V17.D2, V26.D2 // column 1
	VTRN1  V23.D2, V21.D2, V27.D2
	VTRN2  V18.D2, V16.D2, V28.D2 // column 2
	VTRN2  V22.D2, V20.D2, V29.D2
	VTRN2  V19.D2, V17.D2, V30.D2 // column 3
	VTRN2  V23.D2, V21.D2, V31.D2
	VST1   [V24.S4, V25.S4], (R0)
	ADD    R1, R0
	VST1   [V26.S4, V27.S4], (R0)
	ADD    R1, R0
	VST1   [V28.S4, V29.S4], (R0)
	ADD    R1, R0
	VST1   [V30.S4, V31.S4], (R0)
	ADD    R1, R0
	SUBS   $4, R3
	BNE    tr8loop
	RET

// func widenBF16NEON(dst *float32, src *uint16, n int)
// dst[i] = bf16(src[i]) for n a positive multiple of 8: a zero half below each value (ZIP1/ZIP2
// with V31 = 0), as dotBF16NEON.
TEXT ·widenBF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V31.B16, V31.B16, V31.B16

wbloop:
	VLD1.P 16(R1), [V0.H8]
	VZIP1  V0.H8, V31.H8, V1.H8
	VZIP2  V0.H8, V31.H8, V2.H8
	VST1.P [V1.S4, V2.S4], 32(R0)
	SUBS   $8, R2
	BNE    wbloop
	RET

// func widenF16NEON(dst *float32, src *uint16, n int)
// dst[i] = f16(src[i]) for n a positive multiple of 8 (FCVTL, FCVTL2: exact).
TEXT ·widenF16NEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

wfloop:
	VLD1.P 16(R1), [V0.H8]
	WORD   $0x0e217801 // fcvtl v1.4s, v0.4h
	WORD   $0x4e217802 // fcvtl2 v2.4s, v0.8h
	VST1.P [V1.S4, V2.S4], 32(R0)
	SUBS   $8, R2
	BNE    wfloop
	RET
