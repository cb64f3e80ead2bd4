#include "textflag.h"

// func tileQ8x6NEON(pack *int16, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)
//
// TileQ's inner kernel for 8 rows (of the pack's 32) and 6 tokens, NEON:
//
//	out[t*outStride+i] = Σ_f s[f*64+i]·xs[t*xsStride+b]·Σ_j q_ij·x_tj − s[f*64+32+i]·xsum[t*xsStride+b]
//
// over scale blocks f (halves of them per 32-value activation block b; j runs over f's values),
// as tileQ16x6AVX2. The pack stores each row's values in pairs of adjacent columns (for amd64's
// VPMADDWD); one k step here loads a pair for the eight rows (two registers) and UZP1/UZP2 split
// them into column j and column j+1 of the eight rows. SMLAL by element then multiplies four rows'
// int16 weights by one token's int16 input (a lane of V0-V5, each holding four pairs of a token's
// inputs) into four int32 lanes: per pair of columns 1 load, 1 pointer step, 2 UZP and 24
// SMLAL/SMLAL2 for 96 products, plus 6 input loads per four pairs. The int32 sums of a scale block
// (V8-V19, token t in V8+2t and V9+2t) are exact; at the block's end they are converted to
// float32, scaled, and added to out in memory (about 100 instructions per block).
TEXT ·tileQ8x6NEON(SB), NOSPLIT, $0-88
	MOVD pack+0(FP), R0
	MOVD x+8(FP), R10
	MOVD xstride+16(FP), R2
	LSL  $1, R2                  // input stride in bytes
	MOVD nb+24(FP), R3
	MOVD halves+32(FP), R4
	MOVD s+40(FP), R6
	MOVD xs+48(FP), R7
	MOVD xsum+56(FP), R8
	MOVD xsStride+64(FP), R9
	LSL  $2, R9
	MOVD out+72(FP), R16
	MOVD outStride+80(FP), R17
	LSL  $2, R17
	ADD  R2, R10, R11
	ADD  R2, R11, R12
	ADD  R2, R12, R13
	ADD  R2, R13, R14
	ADD  R2, R14, R15
	MOVD $4, R5                  // four-pair steps per scale block: 4, or 2 with two halves
	CMP  $1, R4
	BEQ  tqquads
	MOVD $2, R5

tqquads:
	VEOR   V8.B16, V8.B16, V8.B16
	VEOR   V9.B16, V9.B16, V9.B16
	VEOR   V10.B16, V10.B16, V10.B16
	VEOR   V11.B16, V11.B16, V11.B16
	VEOR   V12.B16, V12.B16, V12.B16
	VEOR   V13.B16, V13.B16, V13.B16
	VEOR   V14.B16, V14.B16, V14.B16
	VEOR   V15.B16, V15.B16, V15.B16
	VEOR   V16.B16, V16.B16, V16.B16
	VEOR   V17.B16, V17.B16, V17.B16
	VEOR   V18.B16, V18.B16, V18.B16
	VEOR   V19.B16, V19.B16, V19.B16
	VEOR   V24.B16, V24.B16, V24.B16
	VEOR   V25.B16, V25.B16, V25.B16
	MOVD   R16, R24
	VST1   [V24.S4, V25.S4], (R24)
	ADD    R17, R24
	VST1   [V24.S4, V25.S4], (R24)
	ADD    R17, R24
	VST1   [V24.S4, V25.S4], (R24)
	ADD    R17, R24
	VST1   [V24.S4, V25.S4], (R24)
	ADD    R17, R24
	VST1   [V24.S4, V25.S4], (R24)
	ADD    R17, R24
	VST1   [V24.S4, V25.S4], (R24)
	ADD    R17, R24
	CBZ    R3, tqdone

tqblock:
	MOVD R4, R20                 // halves left in this activation block

tqhalf:
	MOVD R5, R19

tqquad:
	VLD1.P 16(R10), [V0.H8]
	VLD1.P 16(R11), [V1.H8]
	VLD1.P 16(R12), [V2.H8]
	VLD1.P 16(R13), [V3.H8]
	VLD1.P 16(R14), [V4.H8]
	VLD1.P 16(R15), [V5.H8]
	VLD1   (R0), [V24.H8, V25.H8]
	ADD    $128, R0
	VUZP1  V25.H8, V24.H8, V26.H8  // column j of rows 0-7
	VUZP2  V25.H8, V24.H8, V27.H8  // column j+1
	WORD   $0x0f402348 // smlal v8.4s, v26.4h, v0.h[0]
	WORD   $0x4f402349 // smlal2 v9.4s, v26.8h, v0.h[0]
	WORD   $0x0f502368 // smlal v8.4s, v27.4h, v0.h[1]
	WORD   $0x4f502369 // smlal2 v9.4s, v27.8h, v0.h[1]
	WORD   $0x0f41234a // smlal v10.4s, v26.4h, v1.h[0]
	WORD   $0x4f41234b // smlal2 v11.4s, v26.8h, v1.h[0]
	WORD   $0x0f51236a // smlal v10.4s, v27.4h, v1.h[1]
	WORD   $0x4f51236b // smlal2 v11.4s, v27.8h, v1.h[1]
	WORD   $0x0f42234c // smlal v12.4s, v26.4h, v2.h[0]
	WORD   $0x4f42234d // smlal2 v13.4s, v26.8h, v2.h[0]
	WORD   $0x0f52236c // smlal v12.4s, v27.4h, v2.h[1]
	WORD   $0x4f52236d // smlal2 v13.4s, v27.8h, v2.h[1]
	WORD   $0x0f43234e // smlal v14.4s, v26.4h, v3.h[0]
	WORD   $0x4f43234f // smlal2 v15.4s, v26.8h, v3.h[0]
	WORD   $0x0f53236e // smlal v14.4s, v27.4h, v3.h[1]
	WORD   $0x4f53236f // smlal2 v15.4s, v27.8h, v3.h[1]
	WORD   $0x0f442350 // smlal v16.4s, v26.4h, v4.h[0]
	WORD   $0x4f442351 // smlal2 v17.4s, v26.8h, v4.h[0]
	WORD   $0x0f542370 // smlal v16.4s, v27.4h, v4.h[1]
	WORD   $0x4f542371 // smlal2 v17.4s, v27.8h, v4.h[1]
	WORD   $0x0f452352 // smlal v18.4s, v26.4h, v5.h[0]
	WORD   $0x4f452353 // smlal2 v19.4s, v26.8h, v5.h[0]
	WORD   $0x0f552372 // smlal v18.4s, v27.4h, v5.h[1]
	WORD   $0x4f552373 // smlal2 v19.4s, v27.8h, v5.h[1]
	VLD1   (R0), [V24.H8, V25.H8]
	ADD    $128, R0
	VUZP1  V25.H8, V24.H8, V26.H8
	VUZP2  V25.H8, V24.H8, V27.H8
	WORD   $0x0f602348 // smlal v8.4s, v26.4h, v0.h[2]
	WORD   $0x4f602349 // smlal2 v9.4s, v26.8h, v0.h[2]
	WORD   $0x0f702368 // smlal v8.4s, v27.4h, v0.h[3]
	WORD   $0x4f702369 // smlal2 v9.4s, v27.8h, v0.h[3]
	WORD   $0x0f61234a // smlal v10.4s, v26.4h, v1.h[2]
	WORD   $0x4f61234b // smlal2 v11.4s, v26.8h, v1.h[2]
	WORD   $0x0f71236a // smlal v10.4s, v27.4h, v1.h[3]
	WORD   $0x4f71236b // smlal2 v11.4s, v27.8h, v1.h[3]
	WORD   $0x0f62234c // smlal v12.4s, v26.4h, v2.h[2]
	WORD   $0x4f62234d // smlal2 v13.4s, v26.8h, v2.h[2]
	WORD   $0x0f72236c // smlal v12.4s, v27.4h, v2.h[3]
	WORD   $0x4f72236d // smlal2 v13.4s, v27.8h, v2.h[3]
	WORD   $0x0f63234e // smlal v14.4s, v26.4h, v3.h[2]
	WORD   $0x4f63234f // smlal2 v15.4s, v26.8h, v3.h[2]
	WORD   $0x0f73236e // smlal v14.4s, v27.4h, v3.h[3]
	WORD   $0x4f73236f // smlal2 v15.4s, v27.8h, v3.h[3]
	WORD   $0x0f642350 // smlal v16.4s, v26.4h, v4.h[2]
	WORD   $0x4f642351 // smlal2 v17.4s, v26.8h, v4.h[2]
	WORD   $0x0f742370 // smlal v16.4s, v27.4h, v4.h[3]
	WORD   $0x4f742371 // smlal2 v17.4s, v27.8h, v4.h[3]
	WORD   $0x0f652352 // smlal v18.4s, v26.4h, v5.h[2]
	WORD   $0x4f652353 // smlal2 v19.4s, v26.8h, v5.h[2]
	WORD   $0x0f752372 // smlal v18.4s, v27.4h, v5.h[3]
	WORD   $0x4f752373 // smlal2 v19.4s, v27.8h, v5.h[3]
	VLD1   (R0), [V24.H8, V25.H8]
	ADD    $128, R0
	VUZP1  V25.H8, V24.H8, V26.H8
	VUZP2  V25.H8, V24.H8, V27.H8
	WORD   $0x0f402b48 // smlal v8.4s, v26.4h, v0.h[4]
	WORD   $0x4f402b49 // smlal2 v9.4s, v26.8h, v0.h[4]
	WORD   $0x0f502b68 // smlal v8.4s, v27.4h, v0.h[5]
	WORD   $0x4f502b69 // smlal2 v9.4s, v27.8h, v0.h[5]
	WORD   $0x0f412b4a // smlal v10.4s, v26.4h, v1.h[4]
	WORD   $0x4f412b4b // smlal2 v11.4s, v26.8h, v1.h[4]
	WORD   $0x0f512b6a // smlal v10.4s, v27.4h, v1.h[5]
	WORD   $0x4f512b6b // smlal2 v11.4s, v27.8h, v1.h[5]
	WORD   $0x0f422b4c // smlal v12.4s, v26.4h, v2.h[4]
	WORD   $0x4f422b4d // smlal2 v13.4s, v26.8h, v2.h[4]
	WORD   $0x0f522b6c // smlal v12.4s, v27.4h, v2.h[5]
	WORD   $0x4f522b6d // smlal2 v13.4s, v27.8h, v2.h[5]
	WORD   $0x0f432b4e // smlal v14.4s, v26.4h, v3.h[4]
	WORD   $0x4f432b4f // smlal2 v15.4s, v26.8h, v3.h[4]
	WORD   $0x0f532b6e // smlal v14.4s, v27.4h, v3.h[5]
	WORD   $0x4f532b6f // smlal2 v15.4s, v27.8h, v3.h[5]
	WORD   $0x0f442b50 // smlal v16.4s, v26.4h, v4.h[4]
	WORD   $0x4f442b51 // smlal2 v17.4s, v26.8h, v4.h[4]
	WORD   $0x0f542b70 // smlal v16.4s, v27.4h, v4.h[5]
	WORD   $0x4f542b71 // smlal2 v17.4s, v27.8h, v4.h[5]
	WORD   $0x0f452b52 // smlal v18.4s, v26.4h, v5.h[4]
	WORD   $0x4f452b53 // smlal2 v19.4s, v26.8h, v5.h[4]
	WORD   $0x0f552b72 // smlal v18.4s, v27.4h, v5.h[5]
	WORD   $0x4f552b73 // smlal2 v19.4s, v27.8h, v5.h[5]
	VLD1   (R0), [V24.H8, V25.H8]
	ADD    $128, R0
	VUZP1  V25.H8, V24.H8, V26.H8
	VUZP2  V25.H8, V24.H8, V27.H8
	WORD   $0x0f602b48 // smlal v8.4s, v26.4h, v0.h[6]
	WORD   $0x4f602b49 // smlal2 v9.4s, v26.8h, v0.h[6]
	WORD   $0x0f702b68 // smlal v8.4s, v27.4h, v0.h[7]
	WORD   $0x4f702b69 // smlal2 v9.4s, v27.8h, v0.h[7]
	WORD   $0x0f612b4a // smlal v10.4s, v26.4h, v1.h[6]
	WORD   $0x4f612b4b // smlal2 v11.4s, v26.8h, v1.h[6]
	WORD   $0x0f712b6a // smlal v10.4s, v27.4h, v1.h[7]
	WORD   $0x4f712b6b // smlal2 v11.4s, v27.8h, v1.h[7]
	WORD   $0x0f622b4c // smlal v12.4s, v26.4h, v2.h[6]
	WORD   $0x4f622b4d // smlal2 v13.4s, v26.8h, v2.h[6]
	WORD   $0x0f722b6c // smlal v12.4s, v27.4h, v2.h[7]
	WORD   $0x4f722b6d // smlal2 v13.4s, v27.8h, v2.h[7]
	WORD   $0x0f632b4e // smlal v14.4s, v26.4h, v3.h[6]
	WORD   $0x4f632b4f // smlal2 v15.4s, v26.8h, v3.h[6]
	WORD   $0x0f732b6e // smlal v14.4s, v27.4h, v3.h[7]
	WORD   $0x4f732b6f // smlal2 v15.4s, v27.8h, v3.h[7]
	WORD   $0x0f642b50 // smlal v16.4s, v26.4h, v4.h[6]
	WORD   $0x4f642b51 // smlal2 v17.4s, v26.8h, v4.h[6]
	WORD   $0x0f742b70 // smlal v16.4s, v27.4h, v4.h[7]
	WORD   $0x4f742b71 // smlal2 v17.4s, v27.8h, v4.h[7]
	WORD   $0x0f652b52 // smlal v18.4s, v26.4h, v5.h[6]
	WORD   $0x4f652b53 // smlal2 v19.4s, v26.8h, v5.h[6]
	WORD   $0x0f752b72 // smlal v18.4s, v27.4h, v5.h[7]
	WORD   $0x4f752b73 // smlal2 v19.4s, v27.8h, v5.h[7]
	SUBS $1, R19
	BNE  tqquad
	VLD1 (R6), [V20.S4, V21.S4]  // the rows' scales S of this block
	ADD  $128, R6, R21
	VLD1 (R21), [V22.S4, V23.S4] // and minimum terms M
	MOVD R7, R22
	MOVD R8, R23
	MOVD R16, R24
	FMOVS  (R22), F28           // token 0: the input block's scale
	FMOVS  (R23), F29           // and sum
	VLD1   (R24), [V24.S4, V25.S4]
	WORD   $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD   $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD   $0x4f9c929e // fmul v30.4s, v20.4s, v28.s[0]
	WORD   $0x4f9c92bf // fmul v31.4s, v21.4s, v28.s[0]
	WORD   $0x4e3ecd18 // fmla v24.4s, v8.4s, v30.4s
	WORD   $0x4e3fcd39 // fmla v25.4s, v9.4s, v31.4s
	WORD   $0x4f9d52d8 // fmls v24.4s, v22.4s, v29.s[0]
	WORD   $0x4f9d52f9 // fmls v25.4s, v23.4s, v29.s[0]
	VST1   [V24.S4, V25.S4], (R24)
	VEOR   V8.B16, V8.B16, V8.B16
	VEOR   V9.B16, V9.B16, V9.B16
	ADD    R9, R22
	ADD    R9, R23
	ADD    R17, R24
	FMOVS  (R22), F28
	FMOVS  (R23), F29
	VLD1   (R24), [V24.S4, V25.S4]
	WORD   $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD   $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD   $0x4f9c929e // fmul v30.4s, v20.4s, v28.s[0]
	WORD   $0x4f9c92bf // fmul v31.4s, v21.4s, v28.s[0]
	WORD   $0x4e3ecd58 // fmla v24.4s, v10.4s, v30.4s
	WORD   $0x4e3fcd79 // fmla v25.4s, v11.4s, v31.4s
	WORD   $0x4f9d52d8 // fmls v24.4s, v22.4s, v29.s[0]
	WORD   $0x4f9d52f9 // fmls v25.4s, v23.4s, v29.s[0]
	VST1   [V24.S4, V25.S4], (R24)
	VEOR   V10.B16, V10.B16, V10.B16
	VEOR   V11.B16, V11.B16, V11.B16
	ADD    R9, R22
	ADD    R9, R23
	ADD    R17, R24
	FMOVS  (R22), F28
	FMOVS  (R23), F29
	VLD1   (R24), [V24.S4, V25.S4]
	WORD   $0x4e21d98c // scvtf v12.4s, v12.4s
	WORD   $0x4e21d9ad // scvtf v13.4s, v13.4s
	WORD   $0x4f9c929e // fmul v30.4s, v20.4s, v28.s[0]
	WORD   $0x4f9c92bf // fmul v31.4s, v21.4s, v28.s[0]
	WORD   $0x4e3ecd98 // fmla v24.4s, v12.4s, v30.4s
	WORD   $0x4e3fcdb9 // fmla v25.4s, v13.4s, v31.4s
	WORD   $0x4f9d52d8 // fmls v24.4s, v22.4s, v29.s[0]
	WORD   $0x4f9d52f9 // fmls v25.4s, v23.4s, v29.s[0]
	VST1   [V24.S4, V25.S4], (R24)
	VEOR   V12.B16, V12.B16, V12.B16
	VEOR   V13.B16, V13.B16, V13.B16
	ADD    R9, R22
	ADD    R9, R23
	ADD    R17, R24
	FMOVS  (R22), F28
	FMOVS  (R23), F29
	VLD1   (R24), [V24.S4, V25.S4]
	WORD   $0x4e21d9ce // scvtf v14.4s, v14.4s
	WORD   $0x4e21d9ef // scvtf v15.4s, v15.4s
	WORD   $0x4f9c929e // fmul v30.4s, v20.4s, v28.s[0]
	WORD   $0x4f9c92bf // fmul v31.4s, v21.4s, v28.s[0]
	WORD   $0x4e3ecdd8 // fmla v24.4s, v14.4s, v30.4s
	WORD   $0x4e3fcdf9 // fmla v25.4s, v15.4s, v31.4s
	WORD   $0x4f9d52d8 // fmls v24.4s, v22.4s, v29.s[0]
	WORD   $0x4f9d52f9 // fmls v25.4s, v23.4s, v29.s[0]
	VST1   [V24.S4, V25.S4], (R24)
	VEOR   V14.B16, V14.B16, V14.B16
	VEOR   V15.B16, V15.B16, V15.B16
	ADD    R9, R22
	ADD    R9, R23
	ADD    R17, R24
	FMOVS  (R22), F28
	FMOVS  (R23), F29
	VLD1   (R24), [V24.S4, V25.S4]
	WORD   $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD   $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD   $0x4f9c929e // fmul v30.4s, v20.4s, v28.s[0]
	WORD   $0x4f9c92bf // fmul v31.4s, v21.4s, v28.s[0]
	WORD   $0x4e3ece18 // fmla v24.4s, v16.4s, v30.4s
	WORD   $0x4e3fce39 // fmla v25.4s, v17.4s, v31.4s
	WORD   $0x4f9d52d8 // fmls v24.4s, v22.4s, v29.s[0]
	WORD   $0x4f9d52f9 // fmls v25.4s, v23.4s, v29.s[0]
	VST1   [V24.S4, V25.S4], (R24)
	VEOR   V16.B16, V16.B16, V16.B16
	VEOR   V17.B16, V17.B16, V17.B16
	ADD    R9, R22
	ADD    R9, R23
	ADD    R17, R24
	FMOVS  (R22), F28
	FMOVS  (R23), F29
	VLD1   (R24), [V24.S4, V25.S4]
	WORD   $0x4e21da52 // scvtf v18.4s, v18.4s
	WORD   $0x4e21da73 // scvtf v19.4s, v19.4s
	WORD   $0x4f9c929e // fmul v30.4s, v20.4s, v28.s[0]
	WORD   $0x4f9c92bf // fmul v31.4s, v21.4s, v28.s[0]
	WORD   $0x4e3ece58 // fmla v24.4s, v18.4s, v30.4s
	WORD   $0x4e3fce79 // fmla v25.4s, v19.4s, v31.4s
	WORD   $0x4f9d52d8 // fmls v24.4s, v22.4s, v29.s[0]
	WORD   $0x4f9d52f9 // fmls v25.4s, v23.4s, v29.s[0]
	VST1   [V24.S4, V25.S4], (R24)
	VEOR   V18.B16, V18.B16, V18.B16
	VEOR   V19.B16, V19.B16, V19.B16
	ADD  $256, R6
	SUBS $1, R20
	BNE  tqhalf
	ADD  $4, R7
	ADD  $4, R8
	SUBS $1, R3
	BNE  tqblock

tqdone:
	RET
