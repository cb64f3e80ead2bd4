#include "textflag.h"

// The float tiles of prompts (Tile) and of attention (AttnTile), NEON.
//
// func tile16x6NEON(pack *float32, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
//
// out[t*outStride+i] = Σ_j pack[j*packStride+i] · x[t*xstride+j]   for t < 6, i < 16, j < k;
// with acc != 0 the sums are added to out instead of replacing it.
//
// As tile16x6AVX2: pack holds weight rows transposed (k-major), so one k step is an outer product
// of sixteen weights (four registers) with six inputs, 24 accumulators (V0-V23, token t in
// V4t..V4t+3) that stay in registers for the whole k loop. Each token's inputs are loaded four
// at a time (V24-V29) and FMLA by element takes one lane per k step, so a k step costs two
// 32-byte weight loads and 24 FMLAs; each weight loaded serves six tokens, each input sixteen
// rows. Per four k steps: 6 + 8 loads, 96 FMLA, 4 pointer steps and 2 for the loop.
TEXT ·tile16x6NEON(SB), NOSPLIT, $0-64
	MOVD pack+0(FP), R0
	MOVD x+8(FP), R10
	MOVD xstride+16(FP), R2
	LSL  $2, R2                  // input stride in bytes
	MOVD k+24(FP), R3
	MOVD out+32(FP), R4
	MOVD packStride+40(FP), R9
	LSL  $2, R9
	SUB  $32, R9                 // from the second half of a pack row to the next row
	MOVD outStride+48(FP), R5
	LSL  $2, R5
	ADD  R2, R10, R11            // the six tokens' inputs
	ADD  R2, R11, R12
	ADD  R2, R12, R13
	ADD  R2, R13, R14
	ADD  R2, R14, R15
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	LSR  $2, R3, R6              // four k steps at a time
	AND  $3, R3, R7              // then one at a time
	CBZ  R6, t6tail

t6loop:
	VLD1.P 16(R10), [V24.S4]
	VLD1.P 16(R11), [V25.S4]
	VLD1.P 16(R12), [V26.S4]
	VLD1.P 16(R13), [V27.S4]
	VLD1.P 16(R14), [V28.S4]
	VLD1.P 16(R15), [V29.S4]
	VLD1.P 32(R0), [V30.S4, V31.S4]
	WORD   $0x4f9813c0 // fmla v0.4s, v30.4s, v24.s[0]
	WORD   $0x4f9813e1 // fmla v1.4s, v31.4s, v24.s[0]
	WORD   $0x4f9913c4 // fmla v4.4s, v30.4s, v25.s[0]
	WORD   $0x4f9913e5 // fmla v5.4s, v31.4s, v25.s[0]
	WORD   $0x4f9a13c8 // fmla v8.4s, v30.4s, v26.s[0]
	WORD   $0x4f9a13e9 // fmla v9.4s, v31.4s, v26.s[0]
	WORD   $0x4f9b13cc // fmla v12.4s, v30.4s, v27.s[0]
	WORD   $0x4f9b13ed // fmla v13.4s, v31.4s, v27.s[0]
	WORD   $0x4f9c13d0 // fmla v16.4s, v30.4s, v28.s[0]
	WORD   $0x4f9c13f1 // fmla v17.4s, v31.4s, v28.s[0]
	WORD   $0x4f9d13d4 // fmla v20.4s, v30.4s, v29.s[0]
	WORD   $0x4f9d13f5 // fmla v21.4s, v31.4s, v29.s[0]
	VLD1   (R0), [V30.S4, V31.S4]
	WORD   $0x4f9813c2 // fmla v2.4s, v30.4s, v24.s[0]
	WORD   $0x4f9813e3 // fmla v3.4s, v31.4s, v24.s[0]
	WORD   $0x4f9913c6 // fmla v6.4s, v30.4s, v25.s[0]
	WORD   $0x4f9913e7 // fmla v7.4s, v31.4s, v25.s[0]
	WORD   $0x4f9a13ca // fmla v10.4s, v30.4s, v26.s[0]
	WORD   $0x4f9a13eb // fmla v11.4s, v31.4s, v26.s[0]
	WORD   $0x4f9b13ce // fmla v14.4s, v30.4s, v27.s[0]
	WORD   $0x4f9b13ef // fmla v15.4s, v31.4s, v27.s[0]
	WORD   $0x4f9c13d2 // fmla v18.4s, v30.4s, v28.s[0]
	WORD   $0x4f9c13f3 // fmla v19.4s, v31.4s, v28.s[0]
	WORD   $0x4f9d13d6 // fmla v22.4s, v30.4s, v29.s[0]
	WORD   $0x4f9d13f7 // fmla v23.4s, v31.4s, v29.s[0]
	ADD    R9, R0
	VLD1.P 32(R0), [V30.S4, V31.S4]
	WORD   $0x4fb813c0 // fmla v0.4s, v30.4s, v24.s[1]
	WORD   $0x4fb813e1 // fmla v1.4s, v31.4s, v24.s[1]
	WORD   $0x4fb913c4 // fmla v4.4s, v30.4s, v25.s[1]
	WORD   $0x4fb913e5 // fmla v5.4s, v31.4s, v25.s[1]
	WORD   $0x4fba13c8 // fmla v8.4s, v30.4s, v26.s[1]
	WORD   $0x4fba13e9 // fmla v9.4s, v31.4s, v26.s[1]
	WORD   $0x4fbb13cc // fmla v12.4s, v30.4s, v27.s[1]
	WORD   $0x4fbb13ed // fmla v13.4s, v31.4s, v27.s[1]
	WORD   $0x4fbc13d0 // fmla v16.4s, v30.4s, v28.s[1]
	WORD   $0x4fbc13f1 // fmla v17.4s, v31.4s, v28.s[1]
	WORD   $0x4fbd13d4 // fmla v20.4s, v30.4s, v29.s[1]
	WORD   $0x4fbd13f5 // fmla v21.4s, v31.4s, v29.s[1]
	VLD1   (R0), [V30.S4, V31.S4]
	WORD   $0x4fb813c2 // fmla v2.4s, v30.4s, v24.s[1]
	WORD   $0x4fb813e3 // fmla v3.4s, v31.4s, v24.s[1]
	WORD   $0x4fb913c6 // fmla v6.4s, v30.4s, v25.s[1]
	WORD   $0x4fb913e7 // fmla v7.4s, v31.4s, v25.s[1]
	WORD   $0x4fba13ca // fmla v10.4s, v30.4s, v26.s[1]
	WORD   $0x4fba13eb // fmla v11.4s, v31.4s, v26.s[1]
	WORD   $0x4fbb13ce // fmla v14.4s, v30.4s, v27.s[1]
	WORD   $0x4fbb13ef // fmla v15.4s, v31.4s, v27.s[1]
	WORD   $0x4fbc13d2 // fmla v18.4s, v30.4s, v28.s[1]
	WORD   $0x4fbc13f3 // fmla v19.4s, v31.4s, v28.s[1]
	WORD   $0x4fbd13d6 // fmla v22.4s, v30.4s, v29.s[1]
	WORD   $0x4fbd13f7 // fmla v23.4s, v31.4s, v29.s[1]
	ADD    R9, R0
	VLD1.P 32(R0), [V30.S4, V31.S4]
	WORD   $0x4f981bc0 // fmla v0.4s, v30.4s, v24.s[2]
	WORD   $0x4f981be1 // fmla v1.4s, v31.4s, v24.s[2]
	WORD   $0x4f991bc4 // fmla v4.4s, v30.4s, v25.s[2]
	WORD   $0x4f991be5 // fmla v5.4s, v31.4s, v25.s[2]
	WORD   $0x4f9a1bc8 // fmla v8.4s, v30.4s, v26.s[2]
	WORD   $0x4f9a1be9 // fmla v9.4s, v31.4s, v26.s[2]
	WORD   $0x4f9b1bcc // fmla v12.4s, v30.4s, v27.s[2]
	WORD   $0x4f9b1bed // fmla v13.4s, v31.4s, v27.s[2]
	WORD   $0x4f9c1bd0 // fmla v16.4s, v30.4s, v28.s[2]
	WORD   $0x4f9c1bf1 // fmla v17.4s, v31.4s, v28.s[2]
	WORD   $0x4f9d1bd4 // fmla v20.4s, v30.4s, v29.s[2]
	WORD   $0x4f9d1bf5 // fmla v21.4s, v31.4s, v29.s[2]
	VLD1   (R0), [V30.S4, V31.S4]
	WORD   $0x4f981bc2 // fmla v2.4s, v30.4s, v24.s[2]
	WORD   $0x4f981be3 // fmla v3.4s, v31.4s, v24.s[2]
	WORD   $0x4f991bc6 // fmla v6.4s, v30.4s, v25.s[2]
	WORD   $0x4f991be7 // fmla v7.4s, v31.4s, v25.s[2]
	WORD   $0x4f9a1bca // fmla v10.4s, v30.4s, v26.s[2]
	WORD   $0x4f9a1beb // fmla v11.4s, v31.4s, v26.s[2]
	WORD   $0x4f9b1bce // fmla v14.4s, v30.4s, v27.s[2]
	WORD   $0x4f9b1bef // fmla v15.4s, v31.4s, v27.s[2]
	WORD   $0x4f9c1bd2 // fmla v18.4s, v30.4s, v28.s[2]
	WORD   $0x4f9c1bf3 // fmla v19.4s, v31.4s, v28.s[2]
	WORD   $0x4f9d1bd6 // fmla v22.4s, v30.4s, v29.s[2]
	WORD   $0x4f9d1bf7 // fmla v23.4s, v31.4s, v29.s[2]
	ADD    R9, R0
	VLD1.P 32(R0), [V30.S4, V31.S4]
	WORD   $0x4fb81bc0 // fmla v0.4s, v30.4s, v24.s[3]
	WORD   $0x4fb81be1 // fmla v1.4s, v31.4s, v24.s[3]
	WORD   $0x4fb91bc4 // fmla v4.4s, v30.4s, v25.s[3]
	WORD   $0x4fb91be5 // fmla v5.4s, v31.4s, v25.s[3]
	WORD   $0x4fba1bc8 // fmla v8.4s, v30.4s, v26.s[3]
	WORD   $0x4fba1be9 // fmla v9.4s, v31.4s, v26.s[3]
	WORD   $0x4fbb1bcc // fmla v12.4s, v30.4s, v27.s[3]
	WORD   $0x4fbb1bed // fmla v13.4s, v31.4s, v27.s[3]
	WORD   $0x4fbc1bd0 // fmla v16.4s, v30.4s, v28.s[3]
	WORD   $0x4fbc1bf1 // fmla v17.4s, v31.4s, v28.s[3]
	WORD   $0x4fbd1bd4 // fmla v20.4s, v30.4s, v29.s[3]
	WORD   $0x4fbd1bf5 // fmla v21.4s, v31.4s, v29.s[3]
	VLD1   (R0), [V30.S4, V31.S4]
	WORD   $0x4fb81bc2 // fmla v2.4s, v30.4s, v24.s[3]
	WORD   $0x4fb81be3 // fmla v3.4s, v31.4s, v24.s[3]
	WORD   $0x4fb91bc6 // fmla v6.4s, v30.4s, v25.s[3]
	WORD   $0x4fb91be7 // fmla v7.4s, v31.4s, v25.s[3]
	WORD   $0x4fba1bca // fmla v10.4s, v30.4s, v26.s[3]
	WORD   $0x4fba1beb // fmla v11.4s, v31.4s, v26.s[3]
	WORD   $0x4fbb1bce // fmla v14.4s, v30.4s, v27.s[3]
	WORD   $0x4fbb1bef // fmla v15.4s, v31.4s, v27.s[3]
	WORD   $0x4fbc1bd2 // fmla v18.4s, v30.4s, v28.s[3]
	WORD   $0x4fbc1bf3 // fmla v19.4s, v31.4s, v28.s[3]
	WORD   $0x4fbd1bd6 // fmla v22.4s, v30.4s, v29.s[3]
	WORD   $0x4fbd1bf7 // fmla v23.4s, v31.4s, v29.s[3]
	ADD    R9, R0
	SUBS $1, R6
	BNE  t6loop

t6tail:
	CBZ R7, t6store

t6one:
	VLD1.P 4(R10), V24.S[0]
	VLD1.P 4(R11), V25.S[0]
	VLD1.P 4(R12), V26.S[0]
	VLD1.P 4(R13), V27.S[0]
	VLD1.P 4(R14), V28.S[0]
	VLD1.P 4(R15), V29.S[0]
	VLD1.P 32(R0), [V30.S4, V31.S4]
	WORD   $0x4f9813c0 // fmla v0.4s, v30.4s, v24.s[0]
	WORD   $0x4f9813e1 // fmla v1.4s, v31.4s, v24.s[0]
	WORD   $0x4f9913c4 // fmla v4.4s, v30.4s, v25.s[0]
	WORD   $0x4f9913e5 // fmla v5.4s, v31.4s, v25.s[0]
	WORD   $0x4f9a13c8 // fmla v8.4s, v30.4s, v26.s[0]
	WORD   $0x4f9a13e9 // fmla v9.4s, v31.4s, v26.s[0]
	WORD   $0x4f9b13cc // fmla v12.4s, v30.4s, v27.s[0]
	WORD   $0x4f9b13ed // fmla v13.4s, v31.4s, v27.s[0]
	WORD   $0x4f9c13d0 // fmla v16.4s, v30.4s, v28.s[0]
	WORD   $0x4f9c13f1 // fmla v17.4s, v31.4s, v28.s[0]
	WORD   $0x4f9d13d4 // fmla v20.4s, v30.4s, v29.s[0]
	WORD   $0x4f9d13f5 // fmla v21.4s, v31.4s, v29.s[0]
	VLD1   (R0), [V30.S4, V31.S4]
	WORD   $0x4f9813c2 // fmla v2.4s, v30.4s, v24.s[0]
	WORD   $0x4f9813e3 // fmla v3.4s, v31.4s, v24.s[0]
	WORD   $0x4f9913c6 // fmla v6.4s, v30.4s, v25.s[0]
	WORD   $0x4f9913e7 // fmla v7.4s, v31.4s, v25.s[0]
	WORD   $0x4f9a13ca // fmla v10.4s, v30.4s, v26.s[0]
	WORD   $0x4f9a13eb // fmla v11.4s, v31.4s, v26.s[0]
	WORD   $0x4f9b13ce // fmla v14.4s, v30.4s, v27.s[0]
	WORD   $0x4f9b13ef // fmla v15.4s, v31.4s, v27.s[0]
	WORD   $0x4f9c13d2 // fmla v18.4s, v30.4s, v28.s[0]
	WORD   $0x4f9c13f3 // fmla v19.4s, v31.4s, v28.s[0]
	WORD   $0x4f9d13d6 // fmla v22.4s, v30.4s, v29.s[0]
	WORD   $0x4f9d13f7 // fmla v23.4s, v31.4s, v29.s[0]
	ADD    R9, R0
	SUBS $1, R7
	BNE  t6one

t6store:
	MOVD acc+56(FP), R8
	CBZ  R8, t6put
	MOVD R4, R8
	VLD1   (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	WORD   $0x4e38d400 // fadd v0.4s, v0.4s, v24.4s
	WORD   $0x4e39d421 // fadd v1.4s, v1.4s, v25.4s
	WORD   $0x4e3ad442 // fadd v2.4s, v2.4s, v26.4s
	WORD   $0x4e3bd463 // fadd v3.4s, v3.4s, v27.4s
	ADD    R5, R8
	VLD1   (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	WORD   $0x4e38d484 // fadd v4.4s, v4.4s, v24.4s
	WORD   $0x4e39d4a5 // fadd v5.4s, v5.4s, v25.4s
	WORD   $0x4e3ad4c6 // fadd v6.4s, v6.4s, v26.4s
	WORD   $0x4e3bd4e7 // fadd v7.4s, v7.4s, v27.4s
	ADD    R5, R8
	VLD1   (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	WORD   $0x4e38d508 // fadd v8.4s, v8.4s, v24.4s
	WORD   $0x4e39d529 // fadd v9.4s, v9.4s, v25.4s
	WORD   $0x4e3ad54a // fadd v10.4s, v10.4s, v26.4s
	WORD   $0x4e3bd56b // fadd v11.4s, v11.4s, v27.4s
	ADD    R5, R8
	VLD1   (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	WORD   $0x4e38d58c // fadd v12.4s, v12.4s, v24.4s
	WORD   $0x4e39d5ad // fadd v13.4s, v13.4s, v25.4s
	WORD   $0x4e3ad5ce // fadd v14.4s, v14.4s, v26.4s
	WORD   $0x4e3bd5ef // fadd v15.4s, v15.4s, v27.4s
	ADD    R5, R8
	VLD1   (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	WORD   $0x4e38d610 // fadd v16.4s, v16.4s, v24.4s
	WORD   $0x4e39d631 // fadd v17.4s, v17.4s, v25.4s
	WORD   $0x4e3ad652 // fadd v18.4s, v18.4s, v26.4s
	WORD   $0x4e3bd673 // fadd v19.4s, v19.4s, v27.4s
	ADD    R5, R8
	VLD1   (R8), [V24.S4, V25.S4, V26.S4, V27.S4]
	WORD   $0x4e38d694 // fadd v20.4s, v20.4s, v24.4s
	WORD   $0x4e39d6b5 // fadd v21.4s, v21.4s, v25.4s
	WORD   $0x4e3ad6d6 // fadd v22.4s, v22.4s, v26.4s
	WORD   $0x4e3bd6f7 // fadd v23.4s, v23.4s, v27.4s
	ADD    R5, R8

t6put:
	VST1   [V0.S4, V1.S4, V2.S4, V3.S4], (R4)
	ADD    R5, R4
	VST1   [V4.S4, V5.S4, V6.S4, V7.S4], (R4)
	ADD    R5, R4
	VST1   [V8.S4, V9.S4, V10.S4, V11.S4], (R4)
	ADD    R5, R4
	VST1   [V12.S4, V13.S4, V14.S4, V15.S4], (R4)
	ADD    R5, R4
	VST1   [V16.S4, V17.S4, V18.S4, V19.S4], (R4)
	ADD    R5, R4
	VST1   [V20.S4, V21.S4, V22.S4, V23.S4], (R4)
	ADD    R5, R4
	RET

// func tile16x2NEON(pack *float32, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
//
// tile16x6NEON for two rows (one token's two query heads of a key/value head when decoding).
// Even k steps go to V0-V7, odd ones to V8-V15, so that one accumulator's FMLA latency does not
// set the pace; the two sets are added at the end.
TEXT ·tile16x2NEON(SB), NOSPLIT, $0-64
	MOVD pack+0(FP), R0
	MOVD x+8(FP), R10
	MOVD xstride+16(FP), R2
	LSL  $2, R2
	MOVD k+24(FP), R3
	MOVD out+32(FP), R4
	MOVD packStride+40(FP), R9
	LSL  $2, R9
	MOVD outStride+48(FP), R5
	LSL  $2, R5
	ADD  R2, R10, R11
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	LSR  $2, R3, R6
	AND  $3, R3, R7
	CBZ  R6, t2tail

t2loop:
	VLD1.P 16(R10), [V16.S4]
	VLD1.P 16(R11), [V17.S4]
	VLD1   (R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD    R9, R0
	WORD   $0x4f901280 // fmla v0.4s, v20.4s, v16.s[0]
	WORD   $0x4f9012a1 // fmla v1.4s, v21.4s, v16.s[0]
	WORD   $0x4f9012c2 // fmla v2.4s, v22.4s, v16.s[0]
	WORD   $0x4f9012e3 // fmla v3.4s, v23.4s, v16.s[0]
	WORD   $0x4f911284 // fmla v4.4s, v20.4s, v17.s[0]
	WORD   $0x4f9112a5 // fmla v5.4s, v21.4s, v17.s[0]
	WORD   $0x4f9112c6 // fmla v6.4s, v22.4s, v17.s[0]
	WORD   $0x4f9112e7 // fmla v7.4s, v23.4s, v17.s[0]
	VLD1   (R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD    R9, R0
	WORD   $0x4fb01288 // fmla v8.4s, v20.4s, v16.s[1]
	WORD   $0x4fb012a9 // fmla v9.4s, v21.4s, v16.s[1]
	WORD   $0x4fb012ca // fmla v10.4s, v22.4s, v16.s[1]
	WORD   $0x4fb012eb // fmla v11.4s, v23.4s, v16.s[1]
	WORD   $0x4fb1128c // fmla v12.4s, v20.4s, v17.s[1]
	WORD   $0x4fb112ad // fmla v13.4s, v21.4s, v17.s[1]
	WORD   $0x4fb112ce // fmla v14.4s, v22.4s, v17.s[1]
	WORD   $0x4fb112ef // fmla v15.4s, v23.4s, v17.s[1]
	VLD1   (R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD    R9, R0
	WORD   $0x4f901a80 // fmla v0.4s, v20.4s, v16.s[2]
	WORD   $0x4f901aa1 // fmla v1.4s, v21.4s, v16.s[2]
	WORD   $0x4f901ac2 // fmla v2.4s, v22.4s, v16.s[2]
	WORD   $0x4f901ae3 // fmla v3.4s, v23.4s, v16.s[2]
	WORD   $0x4f911a84 // fmla v4.4s, v20.4s, v17.s[2]
	WORD   $0x4f911aa5 // fmla v5.4s, v21.4s, v17.s[2]
	WORD   $0x4f911ac6 // fmla v6.4s, v22.4s, v17.s[2]
	WORD   $0x4f911ae7 // fmla v7.4s, v23.4s, v17.s[2]
	VLD1   (R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD    R9, R0
	WORD   $0x4fb01a88 // fmla v8.4s, v20.4s, v16.s[3]
	WORD   $0x4fb01aa9 // fmla v9.4s, v21.4s, v16.s[3]
	WORD   $0x4fb01aca // fmla v10.4s, v22.4s, v16.s[3]
	WORD   $0x4fb01aeb // fmla v11.4s, v23.4s, v16.s[3]
	WORD   $0x4fb11a8c // fmla v12.4s, v20.4s, v17.s[3]
	WORD   $0x4fb11aad // fmla v13.4s, v21.4s, v17.s[3]
	WORD   $0x4fb11ace // fmla v14.4s, v22.4s, v17.s[3]
	WORD   $0x4fb11aef // fmla v15.4s, v23.4s, v17.s[3]
	SUBS $1, R6
	BNE  t2loop

t2tail:
	CBZ R7, t2sum

t2one:
	VLD1.P 4(R10), V16.S[0]
	VLD1.P 4(R11), V17.S[0]
	VLD1   (R0), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD    R9, R0
	WORD   $0x4f901280 // fmla v0.4s, v20.4s, v16.s[0]
	WORD   $0x4f9012a1 // fmla v1.4s, v21.4s, v16.s[0]
	WORD   $0x4f9012c2 // fmla v2.4s, v22.4s, v16.s[0]
	WORD   $0x4f9012e3 // fmla v3.4s, v23.4s, v16.s[0]
	WORD   $0x4f911284 // fmla v4.4s, v20.4s, v17.s[0]
	WORD   $0x4f9112a5 // fmla v5.4s, v21.4s, v17.s[0]
	WORD   $0x4f9112c6 // fmla v6.4s, v22.4s, v17.s[0]
	WORD   $0x4f9112e7 // fmla v7.4s, v23.4s, v17.s[0]
	SUBS $1, R7
	BNE  t2one

t2sum:
	WORD $0x4e28d400 // fadd v0.4s, v0.4s, v8.4s
	WORD $0x4e29d421 // fadd v1.4s, v1.4s, v9.4s
	WORD $0x4e2ad442 // fadd v2.4s, v2.4s, v10.4s
	WORD $0x4e2bd463 // fadd v3.4s, v3.4s, v11.4s
	WORD $0x4e2cd484 // fadd v4.4s, v4.4s, v12.4s
	WORD $0x4e2dd4a5 // fadd v5.4s, v5.4s, v13.4s
	WORD $0x4e2ed4c6 // fadd v6.4s, v6.4s, v14.4s
	WORD $0x4e2fd4e7 // fadd v7.4s, v7.4s, v15.4s
	ADD  R5, R4, R6              // the second row's outputs
	MOVD acc+56(FP), R8
	CBZ  R8, t2put
	VLD1 (R4), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1 (R6), [V20.S4, V21.S4, V22.S4, V23.S4]
	WORD $0x4e30d400 // fadd v0.4s, v0.4s, v16.4s
	WORD $0x4e31d421 // fadd v1.4s, v1.4s, v17.4s
	WORD $0x4e32d442 // fadd v2.4s, v2.4s, v18.4s
	WORD $0x4e33d463 // fadd v3.4s, v3.4s, v19.4s
	WORD $0x4e34d484 // fadd v4.4s, v4.4s, v20.4s
	WORD $0x4e35d4a5 // fadd v5.4s, v5.4s, v21.4s
	WORD $0x4e36d4c6 // fadd v6.4s, v6.4s, v22.4s
	WORD $0x4e37d4e7 // fadd v7.4s, v7.4s, v23.4s

t2put:
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R4)
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R6)
	RET
