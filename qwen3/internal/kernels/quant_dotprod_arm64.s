#include "textflag.h"

// The decoding dots of the block-quantized types at level DotProd: SDOT and UDOT (FEAT_DotProd)
// multiply sixteen 8-bit pairs and add them in fours into four 32-bit lanes, four times the
// products of an SMLAL. The activations are int16, so an Act quantized at this level also keeps
// each value a split into two bytes (quantizeActDot below): a = 256·hi + lo with hi = a>>8 signed
// (−128..127) and lo = a&255 unsigned (0..255). A weight q then meets a as
//
//	Σ q·a = 256·Σ q·hi + Σ q·lo        SDOT for the high bytes, UDOT for the low ones
//
// exactly, in int32 (|Σ q·hi| <= 32·128·128 per block). UDOT needs unsigned weights: the 4- and
// 6-bit quants are (0..15, 0..63, centred afterwards as in the NEON kernels), and Q8_0's int8
// weights are made unsigned by flipping their top bit (q+128), which adds 128·Σlo to each block's
// sum; the Act keeps that term per block (lo128) and it is subtracted. Each block's (or group's)
// accumulator is cleared, takes the SDOTs, is shifted left by 8, then takes the UDOTs, so it holds
// 256·Σq·hi + Σq·lo, the same integer the NEON and amd64 kernels compute.
//
// The kernels' shape is the NEON ones' (quant_neon_arm64.s): several rows per call, four blocks (or
// one super-block) per step, ADDP trees to four sums per vector, the float scaling unchanged:
//	func dotXActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *T, n int, out *float32)
// p is the Act's byte planes (64 bytes per 32 values: 32 high bytes, 32 low ones); sum is lo128
// (Q8_0), the Act's Sum16 (Q4_0's centring −8·Σa, Q6_K's −32·Σa) or its Sum (Q4_K's minimums).

#define ROWSTART(qoff) \
	ADD  $qoff, R0, R8 \
	MOVD R0, R10 \
	MOVD p+24(FP), R11 \
	MOVD scale+32(FP), R12 \
	MOVD sum+40(FP), R15 \
	MOVD n+48(FP), R13 \
	VEOR V31.B16, V31.B16, V31.B16

#define ROWEND(again) \
	WORD $0x6e3fd7ff /* faddp v31.4s, v31.4s, v31.4s */ \
	WORD $0x7e30dbff /* faddp s31, v31.2s */ \
	FMOVS F31, (R5)(R7<<2) \
	ADD  R1, R0 \
	ADD  $1, R7 \
	CMP  R2, R7 \
	BLT  again \
	RET

// TREE4 folds V20-V23 (block b's sums in V(20+b)) into V24: lane b is block b's sum. BLOCKF is
// quant_neon_arm64.s's: V24 as floats times the four blocks' d and the activations' scales, into V31.
#define TREE4 \
	VADDP V21.S4, V20.S4, V20.S4 \
	VADDP V23.S4, V22.S4, V22.S4 \
	VADDP V22.S4, V20.S4, V24.S4

#define BLOCKF \
	VLD1.P (R10)(R14), V25.H[0] \
	VLD1.P (R10)(R14), V25.H[1] \
	VLD1.P (R10)(R14), V25.H[2] \
	VLD1.P (R10)(R14), V25.H[3] \
	VLD1.P 16(R12), [V26.S4] \
	WORD $0x4e21db18 /* scvtf v24.4s, v24.4s */ \
	WORD $0x0e217b39 /* fcvtl v25.4s, v25.4h */ \
	WORD $0x6e3adf39 /* fmul v25.4s, v25.4s, v26.4s */ \
	VFMLA V25.S4, V24.S4, V31.S4

// Q8DOT(b): one Q8_0 block (32 int8 weights at R8, then R8 += 34; the activations' 64 plane bytes
// at R11) into V(20+b): 2 loads, 1 clear, 2 SDOT, 1 shift, 2 EOR (V30 = 0x80 per byte), 2 UDOT.
#define Q8DOT0 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VEOR   V20.B16, V20.B16, V20.B16 \
	WORD   $0x4e829414 /* sdot v20.4s, v0.16b, v2.16b */ \
	WORD   $0x4e839434 /* sdot v20.4s, v1.16b, v3.16b */ \
	VSHL   $8, V20.S4, V20.S4 \
	VEOR   V30.B16, V0.B16, V0.B16 \
	VEOR   V30.B16, V1.B16, V1.B16 \
	WORD   $0x6e849414 /* udot v20.4s, v0.16b, v4.16b */ \
	WORD   $0x6e859434 /* udot v20.4s, v1.16b, v5.16b */

#define Q8DOT1 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VEOR   V21.B16, V21.B16, V21.B16 \
	WORD   $0x4e829415 /* sdot v21.4s, v0.16b, v2.16b */ \
	WORD   $0x4e839435 /* sdot v21.4s, v1.16b, v3.16b */ \
	VSHL   $8, V21.S4, V21.S4 \
	VEOR   V30.B16, V0.B16, V0.B16 \
	VEOR   V30.B16, V1.B16, V1.B16 \
	WORD   $0x6e849415 /* udot v21.4s, v0.16b, v4.16b */ \
	WORD   $0x6e859435 /* udot v21.4s, v1.16b, v5.16b */

#define Q8DOT2 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VEOR   V22.B16, V22.B16, V22.B16 \
	WORD   $0x4e829416 /* sdot v22.4s, v0.16b, v2.16b */ \
	WORD   $0x4e839436 /* sdot v22.4s, v1.16b, v3.16b */ \
	VSHL   $8, V22.S4, V22.S4 \
	VEOR   V30.B16, V0.B16, V0.B16 \
	VEOR   V30.B16, V1.B16, V1.B16 \
	WORD   $0x6e849416 /* udot v22.4s, v0.16b, v4.16b */ \
	WORD   $0x6e859436 /* udot v22.4s, v1.16b, v5.16b */

#define Q8DOT3 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VEOR   V23.B16, V23.B16, V23.B16 \
	WORD   $0x4e829417 /* sdot v23.4s, v0.16b, v2.16b */ \
	WORD   $0x4e839437 /* sdot v23.4s, v1.16b, v3.16b */ \
	VSHL   $8, V23.S4, V23.S4 \
	VEOR   V30.B16, V0.B16, V0.B16 \
	VEOR   V30.B16, V1.B16, V1.B16 \
	WORD   $0x6e849417 /* udot v23.4s, v0.16b, v4.16b */ \
	WORD   $0x6e859437 /* udot v23.4s, v1.16b, v5.16b */

// func dotQ8_0ActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)
// Four blocks per step: 4 x 10 + 3 ADDP + 2 for lo128 + 9 to scale + 2 for the loop: 56 per 128
// weights, 14 per block (18.5 with SMLAL).
TEXT ·dotQ8_0ActDot(SB), NOSPLIT, $0-64
	MOVD  w+0(FP), R0
	MOVD  stride+8(FP), R1
	MOVD  rows+16(FP), R2
	MOVD  out+56(FP), R5
	MOVD  $0, R7
	MOVD  $34, R14
	VMOVI $0x80, V30.B16

q8drow:
	ROWSTART(2)

q8dloop:
	Q8DOT0
	Q8DOT1
	Q8DOT2
	Q8DOT3
	TREE4
	VLD1.P 16(R15), [V25.S4]
	VSUB   V25.S4, V24.S4, V24.S4  // − 128·Σlo per block
	BLOCKF
	SUBS $1, R13
	BNE  q8dloop
	ROWEND(q8drow)

// Q40DOT(b): one Q4_0 block: 16 bytes (R8, then R8 += 18), weight j in the low nibble, j+16 in
// the high one, uncentred (0..15); 2 loads, 2 to split the nibbles, 1 clear, 2 SDOT, 1 shift, 2 UDOT.
#define Q40DOT0 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VEOR   V20.B16, V20.B16, V20.B16 \
	WORD   $0x4e829434 /* sdot v20.4s, v1.16b, v2.16b */ \
	WORD   $0x4e839414 /* sdot v20.4s, v0.16b, v3.16b */ \
	VSHL   $8, V20.S4, V20.S4 \
	WORD   $0x6e849434 /* udot v20.4s, v1.16b, v4.16b */ \
	WORD   $0x6e859414 /* udot v20.4s, v0.16b, v5.16b */

#define Q40DOT1 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VEOR   V21.B16, V21.B16, V21.B16 \
	WORD   $0x4e829435 /* sdot v21.4s, v1.16b, v2.16b */ \
	WORD   $0x4e839415 /* sdot v21.4s, v0.16b, v3.16b */ \
	VSHL   $8, V21.S4, V21.S4 \
	WORD   $0x6e849435 /* udot v21.4s, v1.16b, v4.16b */ \
	WORD   $0x6e859415 /* udot v21.4s, v0.16b, v5.16b */

#define Q40DOT2 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VEOR   V22.B16, V22.B16, V22.B16 \
	WORD   $0x4e829436 /* sdot v22.4s, v1.16b, v2.16b */ \
	WORD   $0x4e839416 /* sdot v22.4s, v0.16b, v3.16b */ \
	VSHL   $8, V22.S4, V22.S4 \
	WORD   $0x6e849436 /* udot v22.4s, v1.16b, v4.16b */ \
	WORD   $0x6e859416 /* udot v22.4s, v0.16b, v5.16b */

#define Q40DOT3 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VEOR   V23.B16, V23.B16, V23.B16 \
	WORD   $0x4e829437 /* sdot v23.4s, v1.16b, v2.16b */ \
	WORD   $0x4e839417 /* sdot v23.4s, v0.16b, v3.16b */ \
	VSHL   $8, V23.S4, V23.S4 \
	WORD   $0x6e849437 /* udot v23.4s, v1.16b, v4.16b */ \
	WORD   $0x6e859417 /* udot v23.4s, v0.16b, v5.16b */

// func dotQ4_0ActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)
// As dotQ8_0ActDot; the centring is applied to the sums: Σ(q−8)·a = Σq·a − 8·Σa, Σa from the
// Act's Sum16. 4 x 10 + 3 + 4 + 9 + 2: 58 per 128 weights, 14.5 per block (22.5 with SMLAL).
TEXT ·dotQ4_0ActDot(SB), NOSPLIT, $0-64
	MOVD  w+0(FP), R0
	MOVD  stride+8(FP), R1
	MOVD  rows+16(FP), R2
	MOVD  out+56(FP), R5
	MOVD  $0, R7
	MOVD  $18, R14
	VMOVI $15, V28.B16

q40drow:
	ROWSTART(2)

q40dloop:
	Q40DOT0
	Q40DOT1
	Q40DOT2
	Q40DOT3
	TREE4
	VLD1.P 32(R15), [V25.S4, V26.S4]
	VADDP  V26.S4, V25.S4, V25.S4  // Σa per block
	VSHL   $3, V25.S4, V25.S4
	VSUB   V25.S4, V24.S4, V24.S4
	BLOCKF
	SUBS $1, R13
	BNE  q40dloop
	ROWEND(q40drow)

// func dotQ4_KActDot(w *byte, stride, rows int, p *byte, scale, sum *float32, n int, out *float32)
// dotQ4_KActNEON with each sub-block's Σq·a from 2 SDOT and 2 UDOT (7 instructions with its plane
// load, against 14): 130 instructions per 256 weights (186 with SMLAL).
TEXT ·dotQ4_KActDot(SB), NOSPLIT, $0-64
	MOVD  w+0(FP), R0
	MOVD  stride+8(FP), R1
	MOVD  rows+16(FP), R2
	MOVD  out+56(FP), R5
	MOVD  $0, R7
	VMOVI $15, V28.B16

q4kdrow:
	MOVD R0, R8
	MOVD p+24(FP), R11
	MOVD scale+32(FP), R12
	MOVD sum+40(FP), R15
	MOVD n+48(FP), R13
	VEOR V31.B16, V31.B16, V31.B16

q4kdloop:
	ADD  $16, R8, R16
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 0 in the low nibbles, 1 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V8.B16, V8.B16, V8.B16
	WORD   $0x4e909448 // sdot v8.4s, v2.16b, v16.16b
	WORD   $0x4e919468 // sdot v8.4s, v3.16b, v17.16b
	VSHL   $8, V8.S4, V8.S4
	WORD   $0x6e929448 // udot v8.4s, v2.16b, v18.16b
	WORD   $0x6e939468 // udot v8.4s, v3.16b, v19.16b
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V9.B16, V9.B16, V9.B16
	WORD   $0x4e909489 // sdot v9.4s, v4.16b, v16.16b
	WORD   $0x4e9194a9 // sdot v9.4s, v5.16b, v17.16b
	VSHL   $8, V9.S4, V9.S4
	WORD   $0x6e929489 // udot v9.4s, v4.16b, v18.16b
	WORD   $0x6e9394a9 // udot v9.4s, v5.16b, v19.16b
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 2 in the low nibbles, 3 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V10.B16, V10.B16, V10.B16
	WORD   $0x4e90944a // sdot v10.4s, v2.16b, v16.16b
	WORD   $0x4e91946a // sdot v10.4s, v3.16b, v17.16b
	VSHL   $8, V10.S4, V10.S4
	WORD   $0x6e92944a // udot v10.4s, v2.16b, v18.16b
	WORD   $0x6e93946a // udot v10.4s, v3.16b, v19.16b
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V11.B16, V11.B16, V11.B16
	WORD   $0x4e90948b // sdot v11.4s, v4.16b, v16.16b
	WORD   $0x4e9194ab // sdot v11.4s, v5.16b, v17.16b
	VSHL   $8, V11.S4, V11.S4
	WORD   $0x6e92948b // udot v11.4s, v4.16b, v18.16b
	WORD   $0x6e9394ab // udot v11.4s, v5.16b, v19.16b
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 4 in the low nibbles, 5 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V12.B16, V12.B16, V12.B16
	WORD   $0x4e90944c // sdot v12.4s, v2.16b, v16.16b
	WORD   $0x4e91946c // sdot v12.4s, v3.16b, v17.16b
	VSHL   $8, V12.S4, V12.S4
	WORD   $0x6e92944c // udot v12.4s, v2.16b, v18.16b
	WORD   $0x6e93946c // udot v12.4s, v3.16b, v19.16b
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V13.B16, V13.B16, V13.B16
	WORD   $0x4e90948d // sdot v13.4s, v4.16b, v16.16b
	WORD   $0x4e9194ad // sdot v13.4s, v5.16b, v17.16b
	VSHL   $8, V13.S4, V13.S4
	WORD   $0x6e92948d // udot v13.4s, v4.16b, v18.16b
	WORD   $0x6e9394ad // udot v13.4s, v5.16b, v19.16b
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 6 in the low nibbles, 7 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V14.B16, V14.B16, V14.B16
	WORD   $0x4e90944e // sdot v14.4s, v2.16b, v16.16b
	WORD   $0x4e91946e // sdot v14.4s, v3.16b, v17.16b
	VSHL   $8, V14.S4, V14.S4
	WORD   $0x6e92944e // udot v14.4s, v2.16b, v18.16b
	WORD   $0x6e93946e // udot v14.4s, v3.16b, v19.16b
	VLD1.P 64(R11), [V16.B16, V17.B16, V18.B16, V19.B16]
	VEOR   V15.B16, V15.B16, V15.B16
	WORD   $0x4e90948f // sdot v15.4s, v4.16b, v16.16b
	WORD   $0x4e9194af // sdot v15.4s, v5.16b, v17.16b
	VSHL   $8, V15.S4, V15.S4
	WORD   $0x6e92948f // udot v15.4s, v4.16b, v18.16b
	WORD   $0x6e9394af // udot v15.4s, v5.16b, v19.16b
	VADDP V9.S4, V8.S4, V8.S4
	VADDP V11.S4, V10.S4, V10.S4
	VADDP V13.S4, V12.S4, V12.S4
	VADDP V15.S4, V14.S4, V14.S4
	VADDP V10.S4, V8.S4, V8.S4   // Σq·a of sub-blocks 0-3
	VADDP V14.S4, V12.S4, V12.S4 // 4-7
	MOVWU 4(R8), R19             // the scales and minimums, as dotQ4_KActNEON
	MOVWU 8(R8), R20
	MOVWU 12(R8), R21
	ANDW  $0x3f3f3f3f, R19, R22
	LSRW  $6, R19, R23
	ANDW  $0x03030303, R23, R23
	ANDW  $0x0f0f0f0f, R21, R24
	ORRW  R23<<4, R24, R24
	ORR   R24<<32, R22, R22
	ANDW  $0x3f3f3f3f, R20, R25
	LSRW  $6, R20, R23
	ANDW  $0x03030303, R23, R23
	LSRW  $4, R21, R24
	ANDW  $0x0f0f0f0f, R24, R24
	ORRW  R23<<4, R24, R24
	ORR   R24<<32, R25, R25
	VMOV  R22, V0.D[0]
	VMOV  R25, V0.D[1]
	VUXTL  V0.B8, V1.H8
	VUXTL2 V0.B16, V2.H8
	VUXTL  V1.H4, V3.S4
	VUXTL2 V1.H8, V4.S4
	VUXTL  V2.H4, V5.S4
	VUXTL2 V2.H8, V6.S4
	VLD1   (R8), V7.S[0]
	WORD   $0x0e2178e7 // fcvtl v7.4s, v7.4h
	WORD   $0x4e21d863 // scvtf v3.4s, v3.4s
	WORD   $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD   $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD   $0x4e21d8c6 // scvtf v6.4s, v6.4s
	WORD   $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD   $0x4e21d98c // scvtf v12.4s, v12.4s
	WORD   $0x6e23dd08 // fmul v8.4s, v8.4s, v3.4s
	WORD   $0x6e24dd8c // fmul v12.4s, v12.4s, v4.4s
	VLD1.P 32(R12), [V16.S4, V17.S4]
	WORD   $0x6e30dd08 // fmul v8.4s, v8.4s, v16.4s
	WORD   $0x6e31dd8c // fmul v12.4s, v12.4s, v17.4s
	WORD   $0x4f87111f // fmla v31.4s, v8.4s, v7.s[0]
	WORD   $0x4f87119f // fmla v31.4s, v12.4s, v7.s[0]
	VLD1.P 32(R15), [V18.S4, V19.S4]
	WORD   $0x6e32dca5 // fmul v5.4s, v5.4s, v18.4s
	WORD   $0x6e33dcc6 // fmul v6.4s, v6.4s, v19.4s
	WORD   $0x4fa750bf // fmls v31.4s, v5.4s, v7.s[1]
	WORD   $0x4fa750df // fmls v31.4s, v6.4s, v7.s[1]
	ADD  $144, R8
	SUBS $1, R13
	BNE  q4kdloop
	ROWEND(q4kdrow)

// Q6KDHALF is quant_neon_arm64.s's Q6KHALF with each 16-value group's Σq·a from one SDOT and one UDOT
// (4 instructions with the clear and the shift, against 6): 95 per half, 196 per super-block
// with the loop (228 with SMLAL).
#define Q6KDHALF(qoff, hoff, soff) \
	ADD    $qoff, R8, R16 \
	ADD    $hoff, R8, R17 \
	ADD    $soff, R8, R19 \
	VLD1   (R16), [V0.B16, V1.B16, V2.B16, V3.B16] \
	VLD1   (R17), [V4.B16, V5.B16] \
	VAND   V29.B16, V0.B16, V6.B16 \
	VSLI   $4, V4.B16, V6.B16 \
	VAND   V30.B16, V6.B16, V6.B16 \
	VAND   V29.B16, V1.B16, V7.B16 \
	VSLI   $4, V5.B16, V7.B16 \
	VAND   V30.B16, V7.B16, V7.B16 \
	VUSHR  $2, V4.B16, V14.B16 \
	VUSHR  $2, V5.B16, V24.B16 \
	VAND   V29.B16, V2.B16, V8.B16 \
	VSLI   $4, V14.B16, V8.B16 \
	VAND   V30.B16, V8.B16, V8.B16 \
	VAND   V29.B16, V3.B16, V9.B16 \
	VSLI   $4, V24.B16, V9.B16 \
	VAND   V30.B16, V9.B16, V9.B16 \
	VUSHR  $4, V0.B16, V10.B16 \
	VAND   V28.B16, V4.B16, V25.B16 \
	VORR   V25.B16, V10.B16, V10.B16 \
	VUSHR  $4, V1.B16, V11.B16 \
	VAND   V28.B16, V5.B16, V25.B16 \
	VORR   V25.B16, V11.B16, V11.B16 \
	VUSHR  $4, V2.B16, V12.B16 \
	VAND   V28.B16, V14.B16, V25.B16 \
	VORR   V25.B16, V12.B16, V12.B16 \
	VUSHR  $4, V3.B16, V13.B16 \
	VAND   V28.B16, V24.B16, V25.B16 \
	VORR   V25.B16, V13.B16, V13.B16 \
	VLD1.P 64(R11), [V24.B16, V25.B16, V26.B16, V27.B16] \
	VEOR   V16.B16, V16.B16, V16.B16 \
	WORD   $0x4e9894d0 /* sdot v16.4s, v6.16b, v24.16b */ \
	VSHL   $8, V16.S4, V16.S4 \
	WORD   $0x6e9a94d0 /* udot v16.4s, v6.16b, v26.16b */ \
	VEOR   V17.B16, V17.B16, V17.B16 \
	WORD   $0x4e9994f1 /* sdot v17.4s, v7.16b, v25.16b */ \
	VSHL   $8, V17.S4, V17.S4 \
	WORD   $0x6e9b94f1 /* udot v17.4s, v7.16b, v27.16b */ \
	VLD1.P 64(R11), [V24.B16, V25.B16, V26.B16, V27.B16] \
	VEOR   V18.B16, V18.B16, V18.B16 \
	WORD   $0x4e989512 /* sdot v18.4s, v8.16b, v24.16b */ \
	VSHL   $8, V18.S4, V18.S4 \
	WORD   $0x6e9a9512 /* udot v18.4s, v8.16b, v26.16b */ \
	VEOR   V19.B16, V19.B16, V19.B16 \
	WORD   $0x4e999533 /* sdot v19.4s, v9.16b, v25.16b */ \
	VSHL   $8, V19.S4, V19.S4 \
	WORD   $0x6e9b9533 /* udot v19.4s, v9.16b, v27.16b */ \
	VLD1.P 64(R11), [V24.B16, V25.B16, V26.B16, V27.B16] \
	VEOR   V20.B16, V20.B16, V20.B16 \
	WORD   $0x4e989554 /* sdot v20.4s, v10.16b, v24.16b */ \
	VSHL   $8, V20.S4, V20.S4 \
	WORD   $0x6e9a9554 /* udot v20.4s, v10.16b, v26.16b */ \
	VEOR   V21.B16, V21.B16, V21.B16 \
	WORD   $0x4e999575 /* sdot v21.4s, v11.16b, v25.16b */ \
	VSHL   $8, V21.S4, V21.S4 \
	WORD   $0x6e9b9575 /* udot v21.4s, v11.16b, v27.16b */ \
	VLD1.P 64(R11), [V24.B16, V25.B16, V26.B16, V27.B16] \
	VEOR   V22.B16, V22.B16, V22.B16 \
	WORD   $0x4e989596 /* sdot v22.4s, v12.16b, v24.16b */ \
	VSHL   $8, V22.S4, V22.S4 \
	WORD   $0x6e9a9596 /* udot v22.4s, v12.16b, v26.16b */ \
	VEOR   V23.B16, V23.B16, V23.B16 \
	WORD   $0x4e9995b7 /* sdot v23.4s, v13.16b, v25.16b */ \
	VSHL   $8, V23.S4, V23.S4 \
	WORD   $0x6e9b95b7 /* udot v23.4s, v13.16b, v27.16b */ \
	VADDP  V17.S4, V16.S4, V16.S4 \
	VADDP  V19.S4, V18.S4, V18.S4 \
	VADDP  V21.S4, V20.S4, V20.S4 \
	VADDP  V23.S4, V22.S4, V22.S4 \
	VADDP  V18.S4, V16.S4, V16.S4 \
	VADDP  V22.S4, V20.S4, V20.S4 \
	VLD1.P 32(R15), [V0.S4, V1.S4] \
	VSHL   $5, V0.S4, V0.S4 \
	VSHL   $5, V1.S4, V1.S4 \
	VSUB   V0.S4, V16.S4, V16.S4 \
	VSUB   V1.S4, V20.S4, V20.S4 \
	VLD1   (R19), [V2.B8] \
	VLD1.P 16(R12), [V3.S4] \
	WORD   $0x0f08a442 /* sxtl v2.8h, v2.8b */ \
	WORD   $0x0f10a444 /* sxtl v4.4s, v2.4h */ \
	WORD   $0x4f10a445 /* sxtl2 v5.4s, v2.8h */ \
	WORD   $0x4e21d884 /* scvtf v4.4s, v4.4s */ \
	WORD   $0x4e21d8a5 /* scvtf v5.4s, v5.4s */ \
	WORD   $0x4e21da10 /* scvtf v16.4s, v16.4s */ \
	WORD   $0x4e21da94 /* scvtf v20.4s, v20.4s */ \
	WORD   $0x4e833866 /* zip1 v6.4s, v3.4s, v3.4s */ \
	WORD   $0x4e837867 /* zip2 v7.4s, v3.4s, v3.4s */ \
	WORD   $0x6e24de10 /* fmul v16.4s, v16.4s, v4.4s */ \
	WORD   $0x6e25de94 /* fmul v20.4s, v20.4s, v5.4s */ \
	WORD   $0x6e26de10 /* fmul v16.4s, v16.4s, v6.4s */ \
	WORD   $0x6e27de94 /* fmul v20.4s, v20.4s, v7.4s */ \
	WORD   $0x4f8f121f /* fmla v31.4s, v16.4s, v15.s[0] */ \
	WORD   $0x4f8f129f /* fmla v31.4s, v20.4s, v15.s[0] */

// func dotQ6_KActDot(w *byte, stride, rows int, p *byte, scale *float32, sum *int32, n int, out *float32)
// dotQ6_KActNEON with Q6KDHALF; sum is the Act's Sum16.
TEXT ·dotQ6_KActDot(SB), NOSPLIT, $0-64
	MOVD  w+0(FP), R0
	MOVD  stride+8(FP), R1
	MOVD  rows+16(FP), R2
	MOVD  out+56(FP), R5
	MOVD  $0, R7
	VMOVI $0x30, V28.B16
	VMOVI $0x0f, V29.B16
	VMOVI $0x3f, V30.B16

q6kdrow:
	MOVD R0, R8
	MOVD p+24(FP), R11
	MOVD scale+32(FP), R12
	MOVD sum+40(FP), R15
	MOVD n+48(FP), R13
	VEOR V31.B16, V31.B16, V31.B16

q6kdloop:
	ADD    $208, R8, R16
	VLD1   (R16), V15.H[0]
	WORD   $0x0e2179ef // fcvtl v15.4s, v15.4h
	Q6KDHALF(0, 128, 192)
	Q6KDHALF(64, 160, 200)
	ADD  $210, R8
	SUBS $1, R13
	BNE  q6kdloop
	ROWEND(q6kdrow)

DATA q32767d<>+0(SB)/4, $32767.0
GLOBL q32767d<>(SB), RODATA|NOPTR, $4

// func quantizeActDot(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int, planes *byte, lo128 *int32)
// quantizeActNEON, and each block's values split into bytes for SDOT/UDOT (64 bytes per block at
// planes: the 32 high bytes, signed, a>>8; then the 32 low bytes, unsigned, a&255; so that
// a = 256·hi + lo) with lo128 = 128·Σlo per block. UZP1/UZP2 pick the bytes from the int16
// values still in registers: 4 UZP, 1 store and 7 for the sum on top of quantizeActNEON.
TEXT ·quantizeActDot(SB), NOSPLIT, $0-64
	MOVD  q+0(FP), R0
	MOVD  scale+8(FP), R1
	MOVD  sum+16(FP), R2
	MOVD  sum16+24(FP), R3
	MOVD  x+32(FP), R4
	MOVD  nblocks+40(FP), R5
	MOVD  planes+48(FP), R8
	MOVD  lo128+56(FP), R9
	MOVD  $q32767d<>(SB), R6
	FMOVS (R6), F30

qdloop:
	VLD1.P 64(R4), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R4), [V4.S4, V5.S4, V6.S4, V7.S4]
	WORD   $0x4ea0f810 // fabs v16.4s, v0.4s
	WORD   $0x4ea0f831 // fabs v17.4s, v1.4s
	WORD   $0x4ea0f852 // fabs v18.4s, v2.4s
	WORD   $0x4ea0f873 // fabs v19.4s, v3.4s
	WORD   $0x4ea0f894 // fabs v20.4s, v4.4s
	WORD   $0x4ea0f8b5 // fabs v21.4s, v5.4s
	WORD   $0x4ea0f8d6 // fabs v22.4s, v6.4s
	WORD   $0x4ea0f8f7 // fabs v23.4s, v7.4s
	WORD   $0x4e31f610 // fmax v16.4s, v16.4s, v17.4s
	WORD   $0x4e33f652 // fmax v18.4s, v18.4s, v19.4s
	WORD   $0x4e35f694 // fmax v20.4s, v20.4s, v21.4s
	WORD   $0x4e37f6d6 // fmax v22.4s, v22.4s, v23.4s
	WORD   $0x4e32f610 // fmax v16.4s, v16.4s, v18.4s
	WORD   $0x4e36f694 // fmax v20.4s, v20.4s, v22.4s
	WORD   $0x4e34f610 // fmax v16.4s, v16.4s, v20.4s
	WORD   $0x6e30fa19 // fmaxv s25, v16.4s
	FDIVS  F30, F25, F26            // scale = amax / 32767
	FDIVS  F25, F30, F27            // inv = 32767 / amax
	FMOVS  F25, R7
	CBNZW  R7, qdnonzero
	FMOVS  ZR, F27                  // an all-zero block: inv 0 (scale is 0 already)

qdnonzero:
	FMOVS.P F26, 4(R1)
	WORD   $0x4f9b9000 // fmul v0.4s, v0.4s, v27.s[0]
	WORD   $0x4f9b9021 // fmul v1.4s, v1.4s, v27.s[0]
	WORD   $0x4f9b9042 // fmul v2.4s, v2.4s, v27.s[0]
	WORD   $0x4f9b9063 // fmul v3.4s, v3.4s, v27.s[0]
	WORD   $0x4f9b9084 // fmul v4.4s, v4.4s, v27.s[0]
	WORD   $0x4f9b90a5 // fmul v5.4s, v5.4s, v27.s[0]
	WORD   $0x4f9b90c6 // fmul v6.4s, v6.4s, v27.s[0]
	WORD   $0x4f9b90e7 // fmul v7.4s, v7.4s, v27.s[0]
	WORD   $0x4e21a800 // fcvtns v0.4s, v0.4s
	WORD   $0x4e21a821 // fcvtns v1.4s, v1.4s
	WORD   $0x4e21a842 // fcvtns v2.4s, v2.4s
	WORD   $0x4e21a863 // fcvtns v3.4s, v3.4s
	WORD   $0x4e21a884 // fcvtns v4.4s, v4.4s
	WORD   $0x4e21a8a5 // fcvtns v5.4s, v5.4s
	WORD   $0x4e21a8c6 // fcvtns v6.4s, v6.4s
	WORD   $0x4e21a8e7 // fcvtns v7.4s, v7.4s
	WORD   $0x0e612810 // xtn v16.4h, v0.4s
	WORD   $0x4e612830 // xtn2 v16.8h, v1.4s
	WORD   $0x0e612851 // xtn v17.4h, v2.4s
	WORD   $0x4e612871 // xtn2 v17.8h, v3.4s
	WORD   $0x0e612892 // xtn v18.4h, v4.4s
	WORD   $0x4e6128b2 // xtn2 v18.8h, v5.4s
	WORD   $0x0e6128d3 // xtn v19.4h, v6.4s
	WORD   $0x4e6128f3 // xtn2 v19.8h, v7.4s
	VST1.P [V16.H8, V17.H8, V18.H8, V19.H8], 64(R0)
	VUZP2  V17.B16, V16.B16, V20.B16 // high bytes of values 0-15
	VUZP2  V19.B16, V18.B16, V21.B16 // of 16-31
	VUZP1  V17.B16, V16.B16, V22.B16 // low bytes
	VUZP1  V19.B16, V18.B16, V23.B16
	VST1.P [V20.B16, V21.B16, V22.B16, V23.B16], 64(R8)
	VUADDLV V22.B16, V24
	VUADDLV V23.B16, V25
	VMOV   V24.H[0], R10
	VMOV   V25.H[0], R11
	ADD    R11, R10
	LSL    $7, R10
	MOVW.P R10, 4(R9)
	VADD   V1.S4, V0.S4, V0.S4
	VADD   V3.S4, V2.S4, V2.S4
	VADD   V2.S4, V0.S4, V0.S4      // first half, in four lanes
	VADD   V5.S4, V4.S4, V4.S4
	VADD   V7.S4, V6.S4, V6.S4
	VADD   V6.S4, V4.S4, V4.S4      // second half
	VADDP  V4.S4, V0.S4, V0.S4
	VADDP  V0.S4, V0.S4, V0.S4      // Σ first half, Σ second half, twice
	FMOVD.P F0, 8(R3)
	VADDP  V0.S4, V0.S4, V0.S4      // Σ of the block in every lane
	WORD   $0x5e21d800 // scvtf s0, s0
	FMULS  F26, F0, F0
	FMOVS.P F0, 4(R2)
	SUBS   $1, R5
	BNE    qdloop
	RET

