#include "textflag.h"

// The float dot kernels of decoding, NEON (4 float32 lanes per register). Go's assembler has no
// mnemonic for most Advanced SIMD floating-point and widening instructions; those are written as
// WORD with the instruction in the comment (checked against an assembler by TestNEONWords).
//
// Each takes several rows at once (one call per chunk of a matrix pass):
//	func dotXNEON(w *T, stride, rows int, x *float32, n int, out *float32)
// out[r] = Σ_{i<n} w_r[i]·x[i] for each row r (stride bytes after the previous one), n a positive
// multiple of 16. One step takes 16 values into four accumulators (V0-V3), so that one FMLA's
// latency does not hold up the next; they are added at the row's end.

// ROWSUM adds the four accumulators V0-V3 into the low lane of V0 and stores it at out[R6].
#define ROWSUM \
	WORD $0x4e21d400 /* fadd v0.4s, v0.4s, v1.4s */ \
	WORD $0x4e23d442 /* fadd v2.4s, v2.4s, v3.4s */ \
	WORD $0x4e22d400 /* fadd v0.4s, v0.4s, v2.4s */ \
	WORD $0x6e20d400 /* faddp v0.4s, v0.4s, v0.4s */ \
	WORD $0x7e30d800 /* faddp s0, v0.2s */ \
	FMOVS F0, (R5)(R6<<2)

// func dotF32NEON(w *float32, stride, rows int, x *float32, n int, out *float32)
TEXT ·dotF32NEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD out+40(FP), R5
	MOVD $0, R6

f32row:
	MOVD R0, R7                  // this row's weights
	MOVD x+24(FP), R8
	MOVD n+32(FP), R9
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

f32loop:
	VLD1.P 64(R7), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	VFMLA  V16.S4, V4.S4, V0.S4
	VFMLA  V17.S4, V5.S4, V1.S4
	VFMLA  V18.S4, V6.S4, V2.S4
	VFMLA  V19.S4, V7.S4, V3.S4
	SUBS   $16, R9
	BNE    f32loop
	ROWSUM
	ADD    R1, R0
	ADD    $1, R6
	CMP    R2, R6
	BLT    f32row
	RET

// func dotBF16NEON(w *uint16, stride, rows int, x *float32, n int, out *float32)
// A bfloat16 is the top half of a float32: interleaving a zero half below each one (ZIP1/ZIP2
// with V31 = 0) widens eight of them to floats in two instructions.
TEXT ·dotBF16NEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD out+40(FP), R5
	MOVD $0, R6
	VEOR V31.B16, V31.B16, V31.B16

bf16row:
	MOVD R0, R7
	MOVD x+24(FP), R8
	MOVD n+32(FP), R9
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

bf16loop:
	VLD1.P 32(R7), [V20.H8, V21.H8]
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	VZIP1  V20.H8, V31.H8, V4.H8
	VZIP2  V20.H8, V31.H8, V5.H8
	VZIP1  V21.H8, V31.H8, V6.H8
	VZIP2  V21.H8, V31.H8, V7.H8
	VFMLA  V16.S4, V4.S4, V0.S4
	VFMLA  V17.S4, V5.S4, V1.S4
	VFMLA  V18.S4, V6.S4, V2.S4
	VFMLA  V19.S4, V7.S4, V3.S4
	SUBS   $16, R9
	BNE    bf16loop
	ROWSUM
	ADD    R1, R0
	ADD    $1, R6
	CMP    R2, R6
	BLT    bf16row
	RET

// func dotF16NEON(w *uint16, stride, rows int, x *float32, n int, out *float32)
// FCVTL/FCVTL2 widen four half-precision values each to float32, exactly (subnormals included).
TEXT ·dotF16NEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD out+40(FP), R5
	MOVD $0, R6

f16row:
	MOVD R0, R7
	MOVD x+24(FP), R8
	MOVD n+32(FP), R9
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

f16loop:
	VLD1.P 32(R7), [V20.H8, V21.H8]
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	WORD   $0x0e217a84 // fcvtl v4.4s, v20.4h
	WORD   $0x4e217a85 // fcvtl2 v5.4s, v20.8h
	WORD   $0x0e217aa6 // fcvtl v6.4s, v21.4h
	WORD   $0x4e217aa7 // fcvtl2 v7.4s, v21.8h
	VFMLA  V16.S4, V4.S4, V0.S4
	VFMLA  V17.S4, V5.S4, V1.S4
	VFMLA  V18.S4, V6.S4, V2.S4
	VFMLA  V19.S4, V7.S4, V3.S4
	SUBS   $16, R9
	BNE    f16loop
	ROWSUM
	ADD    R1, R0
	ADD    $1, R6
	CMP    R2, R6
	BLT    f16row
	RET
