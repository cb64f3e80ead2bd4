#include "textflag.h"

// Kernels of quant.go, NEON: activations rounded to int16 blocks (an Act), and the dot products
// of quantized weight rows with an Act. The integer products are SMULL/SMLAL (four int16 x int16
// products added into four int32 lanes; SMLAL2 takes the upper four int16 lanes), the same exact
// integer sums as VPMADDWD on amd64 and as the plain Go code. Go's assembler has no mnemonic for
// these (nor for FCVTL, SCVTF, FCVTNS, SXTL, XTN, ...): they are WORDs with the instruction in the
// comment, checked by TestNEONWords.


// The dot kernels take several rows at once (one call per chunk of a matrix pass) and the same
// activations for each:
//	func dotXActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// out[r] = row r (stride bytes from the previous one) · the activations; n counts groups of four
// blocks (Q8_0, Q4_0) or super-blocks (Q4_K, Q6_K) per row; sum is read by Q4_K (the Act's Sum)
// and Q6_K (its Sum16) only. Each block's integer sum is built in two accumulators (two chains
// of four SMLALs rather than one of eight), and ADDP trees fold four blocks' accumulators into
// one vector of four block sums, converted to float once and scaled in four lanes.

// ROWSTART begins row R7 (from 0): R8 at the row's first quants, R10 at its first scale, R11 at
// the activations, R12 at their scales, R13 counting groups, V31 the row's float sums.
#define ROWSTART(qoff) \
	ADD  $qoff, R0, R8 \
	MOVD R0, R10 \
	MOVD q+24(FP), R11 \
	MOVD scale+32(FP), R12 \
	MOVD n+48(FP), R13 \
	VEOR V31.B16, V31.B16, V31.B16

// ROWEND stores the sum of V31's lanes in out[R7] and moves to the next row until rows are done.
#define ROWEND(again) \
	WORD $0x6e3fd7ff /* faddp v31.4s, v31.4s, v31.4s */ \
	WORD $0x7e30dbff /* faddp s31, v31.2s */ \
	FMOVS F31, (R5)(R7<<2) \
	ADD  R1, R0 \
	ADD  $1, R7 \
	CMP  R2, R7 \
	BLT  again \
	RET

// TREE8 folds the eight int32 vectors V20-V27 (block b in V(20+2b), V(21+2b)) into V24: lane b is
// block b's sum. BLOCKF then scales them: V24 as floats, times the four blocks' d (V25, four
// float16 gathered from R10 by post-increment R14 and widened by FCVTL) and the activations'
// scales (from R12), added to V31.
#define TREE8 \
	VADDP V21.S4, V20.S4, V20.S4 \
	VADDP V23.S4, V22.S4, V22.S4 \
	VADDP V25.S4, V24.S4, V24.S4 \
	VADDP V27.S4, V26.S4, V26.S4 \
	VADDP V22.S4, V20.S4, V20.S4 \
	VADDP V26.S4, V24.S4, V24.S4 \
	VADDP V24.S4, V20.S4, V24.S4

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

// Q8BLK(b): one Q8_0 block: 32 int8 weights (R8, then R8 += 34) sign-extended to int16 (SXTL),
// times 32 int16 activations (R11), into V(20+2b) and V(21+2b). 2 loads, 4 SXTL, 8 SMULL/SMLAL.
#define Q8BLK0 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	WORD $0x0f08a406 /* sxtl v6.8h, v0.8b */ \
	WORD $0x4f08a407 /* sxtl2 v7.8h, v0.16b */ \
	WORD $0x0f08a430 /* sxtl v16.8h, v1.8b */ \
	WORD $0x4f08a431 /* sxtl2 v17.8h, v1.16b */ \
	WORD $0x0e62c0d4 /* smull v20.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280d4 /* smlal2 v20.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0f5 /* smull v21.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380f5 /* smlal2 v21.4s, v7.8h, v3.8h */ \
	WORD $0x0e648214 /* smlal v20.4s, v16.4h, v4.4h */ \
	WORD $0x4e648214 /* smlal2 v20.4s, v16.8h, v4.8h */ \
	WORD $0x0e658235 /* smlal v21.4s, v17.4h, v5.4h */ \
	WORD $0x4e658235 /* smlal2 v21.4s, v17.8h, v5.8h */

#define Q8BLK1 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	WORD $0x0f08a406 /* sxtl v6.8h, v0.8b */ \
	WORD $0x4f08a407 /* sxtl2 v7.8h, v0.16b */ \
	WORD $0x0f08a430 /* sxtl v16.8h, v1.8b */ \
	WORD $0x4f08a431 /* sxtl2 v17.8h, v1.16b */ \
	WORD $0x0e62c0d6 /* smull v22.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280d6 /* smlal2 v22.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0f7 /* smull v23.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380f7 /* smlal2 v23.4s, v7.8h, v3.8h */ \
	WORD $0x0e648216 /* smlal v22.4s, v16.4h, v4.4h */ \
	WORD $0x4e648216 /* smlal2 v22.4s, v16.8h, v4.8h */ \
	WORD $0x0e658237 /* smlal v23.4s, v17.4h, v5.4h */ \
	WORD $0x4e658237 /* smlal2 v23.4s, v17.8h, v5.8h */

#define Q8BLK2 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	WORD $0x0f08a406 /* sxtl v6.8h, v0.8b */ \
	WORD $0x4f08a407 /* sxtl2 v7.8h, v0.16b */ \
	WORD $0x0f08a430 /* sxtl v16.8h, v1.8b */ \
	WORD $0x4f08a431 /* sxtl2 v17.8h, v1.16b */ \
	WORD $0x0e62c0d8 /* smull v24.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280d8 /* smlal2 v24.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0f9 /* smull v25.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380f9 /* smlal2 v25.4s, v7.8h, v3.8h */ \
	WORD $0x0e648218 /* smlal v24.4s, v16.4h, v4.4h */ \
	WORD $0x4e648218 /* smlal2 v24.4s, v16.8h, v4.8h */ \
	WORD $0x0e658239 /* smlal v25.4s, v17.4h, v5.4h */ \
	WORD $0x4e658239 /* smlal2 v25.4s, v17.8h, v5.8h */

#define Q8BLK3 \
	VLD1.P (R8)(R14), [V0.B16, V1.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	WORD $0x0f08a406 /* sxtl v6.8h, v0.8b */ \
	WORD $0x4f08a407 /* sxtl2 v7.8h, v0.16b */ \
	WORD $0x0f08a430 /* sxtl v16.8h, v1.8b */ \
	WORD $0x4f08a431 /* sxtl2 v17.8h, v1.16b */ \
	WORD $0x0e62c0da /* smull v26.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280da /* smlal2 v26.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0fb /* smull v27.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380fb /* smlal2 v27.4s, v7.8h, v3.8h */ \
	WORD $0x0e64821a /* smlal v26.4s, v16.4h, v4.4h */ \
	WORD $0x4e64821a /* smlal2 v26.4s, v16.8h, v4.8h */ \
	WORD $0x0e65823b /* smlal v27.4s, v17.4h, v5.4h */ \
	WORD $0x4e65823b /* smlal2 v27.4s, v17.8h, v5.8h */

// func dotQ8_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// Four 34-byte blocks per step: 4 x 14 instructions for the integer sums, 7 ADDP, 9 to scale and
// add, 2 for the loop: 74 per 128 weights, 18.5 per block.
TEXT ·dotQ8_0ActNEON(SB), NOSPLIT, $0-64
	MOVD w+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD out+56(FP), R5
	MOVD $0, R7
	MOVD $34, R14

q8row:
	ROWSTART(2)

q8loop:
	Q8BLK0
	Q8BLK1
	Q8BLK2
	Q8BLK3
	TREE8
	BLOCKF
	SUBS $1, R13
	BNE  q8loop
	ROWEND(q8row)

// Q40BLK(b): one Q4_0 block: 16 bytes (R8, then R8 += 18) hold weight j in the low nibble and
// weight j+16 in the high one; both are centred (− 8, V29) as bytes, then widened and multiplied
// as Q8BLK does (V28 holds 0x0F per byte). 2 loads, 4 to unpack, 4 SXTL, 8 SMULL/SMLAL.
#define Q40BLK0 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VSUB   V29.B16, V1.B16, V1.B16 \
	VSUB   V29.B16, V0.B16, V0.B16 \
	WORD $0x0f08a426 /* sxtl v6.8h, v1.8b */ \
	WORD $0x4f08a427 /* sxtl2 v7.8h, v1.16b */ \
	WORD $0x0f08a410 /* sxtl v16.8h, v0.8b */ \
	WORD $0x4f08a411 /* sxtl2 v17.8h, v0.16b */ \
	WORD $0x0e62c0d4 /* smull v20.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280d4 /* smlal2 v20.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0f5 /* smull v21.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380f5 /* smlal2 v21.4s, v7.8h, v3.8h */ \
	WORD $0x0e648214 /* smlal v20.4s, v16.4h, v4.4h */ \
	WORD $0x4e648214 /* smlal2 v20.4s, v16.8h, v4.8h */ \
	WORD $0x0e658235 /* smlal v21.4s, v17.4h, v5.4h */ \
	WORD $0x4e658235 /* smlal2 v21.4s, v17.8h, v5.8h */

#define Q40BLK1 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VSUB   V29.B16, V1.B16, V1.B16 \
	VSUB   V29.B16, V0.B16, V0.B16 \
	WORD $0x0f08a426 /* sxtl v6.8h, v1.8b */ \
	WORD $0x4f08a427 /* sxtl2 v7.8h, v1.16b */ \
	WORD $0x0f08a410 /* sxtl v16.8h, v0.8b */ \
	WORD $0x4f08a411 /* sxtl2 v17.8h, v0.16b */ \
	WORD $0x0e62c0d6 /* smull v22.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280d6 /* smlal2 v22.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0f7 /* smull v23.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380f7 /* smlal2 v23.4s, v7.8h, v3.8h */ \
	WORD $0x0e648216 /* smlal v22.4s, v16.4h, v4.4h */ \
	WORD $0x4e648216 /* smlal2 v22.4s, v16.8h, v4.8h */ \
	WORD $0x0e658237 /* smlal v23.4s, v17.4h, v5.4h */ \
	WORD $0x4e658237 /* smlal2 v23.4s, v17.8h, v5.8h */

#define Q40BLK2 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VSUB   V29.B16, V1.B16, V1.B16 \
	VSUB   V29.B16, V0.B16, V0.B16 \
	WORD $0x0f08a426 /* sxtl v6.8h, v1.8b */ \
	WORD $0x4f08a427 /* sxtl2 v7.8h, v1.16b */ \
	WORD $0x0f08a410 /* sxtl v16.8h, v0.8b */ \
	WORD $0x4f08a411 /* sxtl2 v17.8h, v0.16b */ \
	WORD $0x0e62c0d8 /* smull v24.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280d8 /* smlal2 v24.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0f9 /* smull v25.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380f9 /* smlal2 v25.4s, v7.8h, v3.8h */ \
	WORD $0x0e648218 /* smlal v24.4s, v16.4h, v4.4h */ \
	WORD $0x4e648218 /* smlal2 v24.4s, v16.8h, v4.8h */ \
	WORD $0x0e658239 /* smlal v25.4s, v17.4h, v5.4h */ \
	WORD $0x4e658239 /* smlal2 v25.4s, v17.8h, v5.8h */

#define Q40BLK3 \
	VLD1.P (R8)(R14), [V0.B16] \
	VLD1.P 64(R11), [V2.H8, V3.H8, V4.H8, V5.H8] \
	VAND   V28.B16, V0.B16, V1.B16 \
	VUSHR  $4, V0.B16, V0.B16 \
	VSUB   V29.B16, V1.B16, V1.B16 \
	VSUB   V29.B16, V0.B16, V0.B16 \
	WORD $0x0f08a426 /* sxtl v6.8h, v1.8b */ \
	WORD $0x4f08a427 /* sxtl2 v7.8h, v1.16b */ \
	WORD $0x0f08a410 /* sxtl v16.8h, v0.8b */ \
	WORD $0x4f08a411 /* sxtl2 v17.8h, v0.16b */ \
	WORD $0x0e62c0da /* smull v26.4s, v6.4h, v2.4h */ \
	WORD $0x4e6280da /* smlal2 v26.4s, v6.8h, v2.8h */ \
	WORD $0x0e63c0fb /* smull v27.4s, v7.4h, v3.4h */ \
	WORD $0x4e6380fb /* smlal2 v27.4s, v7.8h, v3.8h */ \
	WORD $0x0e64821a /* smlal v26.4s, v16.4h, v4.4h */ \
	WORD $0x4e64821a /* smlal2 v26.4s, v16.8h, v4.8h */ \
	WORD $0x0e65823b /* smlal v27.4s, v17.4h, v5.4h */ \
	WORD $0x4e65823b /* smlal2 v27.4s, v17.8h, v5.8h */

// func dotQ4_0ActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// Four 18-byte blocks per step, as dotQ8_0ActNEON: 4 x 18 + 7 + 9 + 2 = 90 per 128 weights.
TEXT ·dotQ4_0ActNEON(SB), NOSPLIT, $0-64
	MOVD w+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD out+56(FP), R5
	MOVD $0, R7
	MOVD $18, R14
	VMOVI $15, V28.B16
	VMOVI $8, V29.B16

q40row:
	ROWSTART(2)

q40loop:
	Q40BLK0
	Q40BLK1
	Q40BLK2
	Q40BLK3
	TREE8
	BLOCKF
	SUBS $1, R13
	BNE  q40loop
	ROWEND(q40row)

// func dotQ4_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// Per 256-value super-block: eight sub-block integer sums Σq·a (q the 4-bit quants, 0..15), each
// folded from two accumulators into one vector (V8-V15) and by an ADDP tree into two vectors of
// four sums (V8, V12); then in float, four lanes at a time:
// acc += d · (Σq·a · scale_j · s_j) − dmin · (min_j · Sum_j), as dotQ4_KActAVX2. The 6-bit scales
// and minimums are unpacked in general registers as there (Q4KSCALES' formulas). Per
// super-block: 4 x 5 to load and split the nibbles, 8 x 14 for the sums, 6 ADDP, about 30 for
// the scales and minimums, 14 to scale and add, 4 for the loop: 186 per 256 weights.
TEXT ·dotQ4_KActNEON(SB), NOSPLIT, $0-64
	MOVD  w+0(FP), R0
	MOVD  stride+8(FP), R1
	MOVD  rows+16(FP), R2
	MOVD  out+56(FP), R5
	MOVD  $0, R7
	VMOVI $15, V28.B16

q4krow:
	MOVD R0, R8
	MOVD q+24(FP), R11
	MOVD scale+32(FP), R12
	MOVD sum+40(FP), R15
	MOVD n+48(FP), R13
	VEOR V31.B16, V31.B16, V31.B16

q4kloop:
	ADD  $16, R8, R16            // the quants
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 0 in the low nibbles, 1 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V2.B8, V6.H8
	VUXTL2 V2.B16, V7.H8
	VUXTL  V3.B8, V20.H8
	VUXTL2 V3.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V8.S4
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V4.B8, V6.H8
	VUXTL2 V4.B16, V7.H8
	VUXTL  V5.B8, V20.H8
	VUXTL2 V5.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V9.S4
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 2 in the low nibbles, 3 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V2.B8, V6.H8
	VUXTL2 V2.B16, V7.H8
	VUXTL  V3.B8, V20.H8
	VUXTL2 V3.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V10.S4
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V4.B8, V6.H8
	VUXTL2 V4.B16, V7.H8
	VUXTL  V5.B8, V20.H8
	VUXTL2 V5.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V11.S4
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 4 in the low nibbles, 5 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V2.B8, V6.H8
	VUXTL2 V2.B16, V7.H8
	VUXTL  V3.B8, V20.H8
	VUXTL2 V3.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V12.S4
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V4.B8, V6.H8
	VUXTL2 V4.B16, V7.H8
	VUXTL  V5.B8, V20.H8
	VUXTL2 V5.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V13.S4
	VLD1.P 32(R16), [V0.B16, V1.B16]   // sub-block 6 in the low nibbles, 7 in the high ones
	VAND   V28.B16, V0.B16, V2.B16
	VAND   V28.B16, V1.B16, V3.B16
	VUSHR  $4, V0.B16, V4.B16
	VUSHR  $4, V1.B16, V5.B16
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V2.B8, V6.H8
	VUXTL2 V2.B16, V7.H8
	VUXTL  V3.B8, V20.H8
	VUXTL2 V3.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V14.S4
	VLD1.P 64(R11), [V16.H8, V17.H8, V18.H8, V19.H8]
	VUXTL  V4.B8, V6.H8
	VUXTL2 V4.B16, V7.H8
	VUXTL  V5.B8, V20.H8
	VUXTL2 V5.B16, V21.H8
	WORD   $0x0e70c0d6 // smull v22.4s, v6.4h, v16.4h
	WORD   $0x4e7080d6 // smlal2 v22.4s, v6.8h, v16.8h
	WORD   $0x0e71c0f7 // smull v23.4s, v7.4h, v17.4h
	WORD   $0x4e7180f7 // smlal2 v23.4s, v7.8h, v17.8h
	WORD   $0x0e728296 // smlal v22.4s, v20.4h, v18.4h
	WORD   $0x4e728296 // smlal2 v22.4s, v20.8h, v18.8h
	WORD   $0x0e7382b7 // smlal v23.4s, v21.4h, v19.4h
	WORD   $0x4e7382b7 // smlal2 v23.4s, v21.8h, v19.8h
	VADDP  V23.S4, V22.S4, V15.S4
	VADDP V9.S4, V8.S4, V8.S4
	VADDP V11.S4, V10.S4, V10.S4
	VADDP V13.S4, V12.S4, V12.S4
	VADDP V15.S4, V14.S4, V14.S4
	VADDP V10.S4, V8.S4, V8.S4   // Σq·a of sub-blocks 0-3
	VADDP V14.S4, V12.S4, V12.S4 // 4-7
	// scales 0-3 = u0 & 0x3f3f3f3f      scales 4-7 = (u2 & 0x0f0f0f0f) | ((u0>>6) & 0x03030303)<<4
	// mins 0-3   = u1 & 0x3f3f3f3f      mins 4-7   = ((u2>>4) & 0x0f0f0f0f) | ((u1>>6) & 0x03030303)<<4
	MOVWU 4(R8), R19             // u0
	MOVWU 8(R8), R20             // u1
	MOVWU 12(R8), R21            // u2
	ANDW  $0x3f3f3f3f, R19, R22
	LSRW  $6, R19, R23
	ANDW  $0x03030303, R23, R23
	ANDW  $0x0f0f0f0f, R21, R24
	ORRW  R23<<4, R24, R24
	ORR   R24<<32, R22, R22      // eight scale bytes
	ANDW  $0x3f3f3f3f, R20, R25
	LSRW  $6, R20, R23
	ANDW  $0x03030303, R23, R23
	LSRW  $4, R21, R24
	ANDW  $0x0f0f0f0f, R24, R24
	ORRW  R23<<4, R24, R24
	ORR   R24<<32, R25, R25      // eight minimum bytes
	VMOV  R22, V0.D[0]
	VMOV  R25, V0.D[1]
	VUXTL  V0.B8, V1.H8
	VUXTL2 V0.B16, V2.H8
	VUXTL  V1.H4, V3.S4          // scales 0-3
	VUXTL2 V1.H8, V4.S4          // scales 4-7
	VUXTL  V2.H4, V5.S4          // minimums 0-3
	VUXTL2 V2.H8, V6.S4          // minimums 4-7
	VLD1   (R8), V7.S[0]         // d, dmin
	WORD   $0x0e2178e7 // fcvtl v7.4s, v7.4h
	WORD   $0x4e21d863 // scvtf v3.4s, v3.4s
	WORD   $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD   $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD   $0x4e21d8c6 // scvtf v6.4s, v6.4s
	WORD   $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD   $0x4e21d98c // scvtf v12.4s, v12.4s
	WORD   $0x6e23dd08 // fmul v8.4s, v8.4s, v3.4s
	WORD   $0x6e24dd8c // fmul v12.4s, v12.4s, v4.4s
	VLD1.P 32(R12), [V16.S4, V17.S4]   // the activations' scales
	WORD   $0x6e30dd08 // fmul v8.4s, v8.4s, v16.4s
	WORD   $0x6e31dd8c // fmul v12.4s, v12.4s, v17.4s
	WORD   $0x4f87111f // fmla v31.4s, v8.4s, v7.s[0]
	WORD   $0x4f87119f // fmla v31.4s, v12.4s, v7.s[0]
	VLD1.P 32(R15), [V18.S4, V19.S4]   // and sums
	WORD   $0x6e32dca5 // fmul v5.4s, v5.4s, v18.4s
	WORD   $0x6e33dcc6 // fmul v6.4s, v6.4s, v19.4s
	WORD   $0x4fa750bf // fmls v31.4s, v5.4s, v7.s[1]
	WORD   $0x4fa750df // fmls v31.4s, v6.4s, v7.s[1]
	ADD  $144, R8
	SUBS $1, R13
	BNE  q4kloop
	ROWEND(q4krow)

// Q6KHALF adds one half (128 values) of the Q6_K super-block at R8 to V31: ql at qoff, qh at hoff,
// the eight int8 scales at soff; activations from R11, their scales from R12, their 16-value
// sums (Sum16) from R15; V15 holds d. Quant l+32k takes its low four bits from ql[l+32(k%2)]
// (the low nibble for k < 2, the high one for k >= 2) and bits 4-5 from qh[l] >> 2k: built as
// bytes (SLI inserts qh's bits above a nibble), eight vectors of sixteen 6-bit quants in V6-V13,
// then widened and multiplied group by group (16 values, one accumulator each, V16-V23). The quants
// are multiplied uncentred (0..63) and the centring is applied to the sums, as on amd64:
// Σ(q−32)·a = Σq·a − 32·Σa. Per half: 4 address steps, 3 loads, 26 to build the quants, 4 act
// loads, 8 x 6 to widen and multiply, 6 ADDP, 5 to centre, 17 to scale and add: 111; 228 per
// super-block with the loop.
#define Q6KHALF(qoff, hoff, soff) \
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
	VLD1.P 64(R11), [V24.H8, V25.H8, V26.H8, V27.H8] \
	WORD   $0x2f08a4c0 /* uxtl v0.8h, v6.8b */ \
	WORD   $0x6f08a4c1 /* uxtl2 v1.8h, v6.16b */ \
	WORD   $0x0e78c010 /* smull v16.4s, v0.4h, v24.4h */ \
	WORD   $0x4e788010 /* smlal2 v16.4s, v0.8h, v24.8h */ \
	WORD   $0x0e798030 /* smlal v16.4s, v1.4h, v25.4h */ \
	WORD   $0x4e798030 /* smlal2 v16.4s, v1.8h, v25.8h */ \
	WORD   $0x2f08a4e0 /* uxtl v0.8h, v7.8b */ \
	WORD   $0x6f08a4e1 /* uxtl2 v1.8h, v7.16b */ \
	WORD   $0x0e7ac011 /* smull v17.4s, v0.4h, v26.4h */ \
	WORD   $0x4e7a8011 /* smlal2 v17.4s, v0.8h, v26.8h */ \
	WORD   $0x0e7b8031 /* smlal v17.4s, v1.4h, v27.4h */ \
	WORD   $0x4e7b8031 /* smlal2 v17.4s, v1.8h, v27.8h */ \
	VLD1.P 64(R11), [V24.H8, V25.H8, V26.H8, V27.H8] \
	WORD   $0x2f08a500 /* uxtl v0.8h, v8.8b */ \
	WORD   $0x6f08a501 /* uxtl2 v1.8h, v8.16b */ \
	WORD   $0x0e78c012 /* smull v18.4s, v0.4h, v24.4h */ \
	WORD   $0x4e788012 /* smlal2 v18.4s, v0.8h, v24.8h */ \
	WORD   $0x0e798032 /* smlal v18.4s, v1.4h, v25.4h */ \
	WORD   $0x4e798032 /* smlal2 v18.4s, v1.8h, v25.8h */ \
	WORD   $0x2f08a520 /* uxtl v0.8h, v9.8b */ \
	WORD   $0x6f08a521 /* uxtl2 v1.8h, v9.16b */ \
	WORD   $0x0e7ac013 /* smull v19.4s, v0.4h, v26.4h */ \
	WORD   $0x4e7a8013 /* smlal2 v19.4s, v0.8h, v26.8h */ \
	WORD   $0x0e7b8033 /* smlal v19.4s, v1.4h, v27.4h */ \
	WORD   $0x4e7b8033 /* smlal2 v19.4s, v1.8h, v27.8h */ \
	VLD1.P 64(R11), [V24.H8, V25.H8, V26.H8, V27.H8] \
	WORD   $0x2f08a540 /* uxtl v0.8h, v10.8b */ \
	WORD   $0x6f08a541 /* uxtl2 v1.8h, v10.16b */ \
	WORD   $0x0e78c014 /* smull v20.4s, v0.4h, v24.4h */ \
	WORD   $0x4e788014 /* smlal2 v20.4s, v0.8h, v24.8h */ \
	WORD   $0x0e798034 /* smlal v20.4s, v1.4h, v25.4h */ \
	WORD   $0x4e798034 /* smlal2 v20.4s, v1.8h, v25.8h */ \
	WORD   $0x2f08a560 /* uxtl v0.8h, v11.8b */ \
	WORD   $0x6f08a561 /* uxtl2 v1.8h, v11.16b */ \
	WORD   $0x0e7ac015 /* smull v21.4s, v0.4h, v26.4h */ \
	WORD   $0x4e7a8015 /* smlal2 v21.4s, v0.8h, v26.8h */ \
	WORD   $0x0e7b8035 /* smlal v21.4s, v1.4h, v27.4h */ \
	WORD   $0x4e7b8035 /* smlal2 v21.4s, v1.8h, v27.8h */ \
	VLD1.P 64(R11), [V24.H8, V25.H8, V26.H8, V27.H8] \
	WORD   $0x2f08a580 /* uxtl v0.8h, v12.8b */ \
	WORD   $0x6f08a581 /* uxtl2 v1.8h, v12.16b */ \
	WORD   $0x0e78c016 /* smull v22.4s, v0.4h, v24.4h */ \
	WORD   $0x4e788016 /* smlal2 v22.4s, v0.8h, v24.8h */ \
	WORD   $0x0e798036 /* smlal v22.4s, v1.4h, v25.4h */ \
	WORD   $0x4e798036 /* smlal2 v22.4s, v1.8h, v25.8h */ \
	WORD   $0x2f08a5a0 /* uxtl v0.8h, v13.8b */ \
	WORD   $0x6f08a5a1 /* uxtl2 v1.8h, v13.16b */ \
	WORD   $0x0e7ac017 /* smull v23.4s, v0.4h, v26.4h */ \
	WORD   $0x4e7a8017 /* smlal2 v23.4s, v0.8h, v26.8h */ \
	WORD   $0x0e7b8037 /* smlal v23.4s, v1.4h, v27.4h */ \
	WORD   $0x4e7b8037 /* smlal2 v23.4s, v1.8h, v27.8h */ \
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

// func dotQ6_KActNEON(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// Per half of a 210-byte super-block: eight 16-value group sums, then in float:
// acc += d · (Σ(q−32)·a · scale_g · s_b(g)). Group g of a half belongs to activation block g/2.
// sum points to the Act's Sum16 (int32 sums of 16 activations), not to its Sum.
TEXT ·dotQ6_KActNEON(SB), NOSPLIT, $0-64
	MOVD  w+0(FP), R0
	MOVD  stride+8(FP), R1
	MOVD  rows+16(FP), R2
	MOVD  out+56(FP), R5
	MOVD  $0, R7
	VMOVI $0x30, V28.B16
	VMOVI $0x0f, V29.B16
	VMOVI $0x3f, V30.B16

q6krow:
	MOVD R0, R8
	MOVD q+24(FP), R11
	MOVD scale+32(FP), R12
	MOVD sum+40(FP), R15
	MOVD n+48(FP), R13
	VEOR V31.B16, V31.B16, V31.B16

q6kloop:
	ADD    $208, R8, R16
	VLD1   (R16), V15.H[0]
	WORD   $0x0e2179ef // fcvtl v15.4s, v15.4h
	Q6KHALF(0, 128, 192)
	Q6KHALF(64, 160, 200)
	ADD  $210, R8
	SUBS $1, R13
	BNE  q6kloop
	ROWEND(q6krow)


DATA q32767<>+0(SB)/4, $32767.0
GLOBL q32767<>(SB), RODATA|NOPTR, $4

// func quantizeActNEON(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)
// Per block of 32: amax = max|x|; scale = amax/32767; q = round-to-even(x · (32767/amax)) (0 when
// amax is 0); sum16 = Σq of each half; sum = scale · Σq. The same float32 operations in the same
// order as quantizeActGeneric (FCVTNS rounds to nearest, ties to even), so the rounding is
// identical. Per block: 2 loads, 8 FABS, 8 FMAX (tree and across lanes), 2 FDIV, 8 FMUL,
// 8 FCVTNS, 8 XTN, 1 store and 12 for the sums.
TEXT ·quantizeActNEON(SB), NOSPLIT, $0-48
	MOVD  q+0(FP), R0
	MOVD  scale+8(FP), R1
	MOVD  sum+16(FP), R2
	MOVD  sum16+24(FP), R3
	MOVD  x+32(FP), R4
	MOVD  nblocks+40(FP), R5
	MOVD  $q32767<>(SB), R6
	FMOVS (R6), F30

qaloop:
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
	CBNZW  R7, qanonzero
	FMOVS  ZR, F27                  // an all-zero block: inv 0 (scale is 0 already)

qanonzero:
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
	BNE    qaloop
	RET

