#include "textflag.h"

// func tileQ32x12VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)
//
// TileQ whole, 32 rows x 12 tokens in one call, with AVX-512 VNNI: VPDPWSSD multiplies the int16
// pairs of 16 rows by one token's pair, broadcast to every lane, and adds both products into each
// row's int32 lane: 32 products per instruction with the add fused, against VPMADDWD's 16 and a
// separate VPADDD in the AVX2 kernel. The 24 int32 accumulators (Z0..Z23: token t's rows 0-15 in
// Z(2t), rows 16-31 in Z(2t+1)) stay in registers over a scale block; per column pair the kernel
// loads 128 bytes of the pack and broadcasts each token's pair once (VPBROADCASTD into Z26..Z31 in
// turn) for its two VPDPWSSD: 14 loads per 24 VPDPWSSD, where a broadcast operand in each VPDPWSSD
// ({1to16}) loaded every pair twice, 26 loads, and the loads rather than the multiplies set the
// pace (4-7% slower on an AVX-512 EPYC). The integer sums are the AVX2
// kernel's, exactly, and each block's flush does the same float operations in the same order
// (out += (S·s)·float(sum), then out −= M·Sum), so the two give the same float32 bits.
//
// Token t's inputs are at DI + t·R8, reached from four bases: DI (tokens 0, 1, 2, 4, 8),
// R9 = DI+3·R8 (3, 5, 7, 11), R10 = DI+6·R8 (6), R11 = DI+9·R8 (9, 10).
#define VTOK(off) \
	VPBROADCASTD off(DI), Z26 \
	VPDPWSSD Z26, Z24, Z0 \
	VPDPWSSD Z26, Z25, Z1 \
	VPBROADCASTD off(DI)(R8*1), Z27 \
	VPDPWSSD Z27, Z24, Z2 \
	VPDPWSSD Z27, Z25, Z3 \
	VPBROADCASTD off(DI)(R8*2), Z28 \
	VPDPWSSD Z28, Z24, Z4 \
	VPDPWSSD Z28, Z25, Z5 \
	VPBROADCASTD off(R9), Z29 \
	VPDPWSSD Z29, Z24, Z6 \
	VPDPWSSD Z29, Z25, Z7 \
	VPBROADCASTD off(DI)(R8*4), Z30 \
	VPDPWSSD Z30, Z24, Z8 \
	VPDPWSSD Z30, Z25, Z9 \
	VPBROADCASTD off(R9)(R8*2), Z31 \
	VPDPWSSD Z31, Z24, Z10 \
	VPDPWSSD Z31, Z25, Z11 \
	VPBROADCASTD off(R10), Z26 \
	VPDPWSSD Z26, Z24, Z12 \
	VPDPWSSD Z26, Z25, Z13 \
	VPBROADCASTD off(R9)(R8*4), Z27 \
	VPDPWSSD Z27, Z24, Z14 \
	VPDPWSSD Z27, Z25, Z15 \
	VPBROADCASTD off(DI)(R8*8), Z28 \
	VPDPWSSD Z28, Z24, Z16 \
	VPDPWSSD Z28, Z25, Z17 \
	VPBROADCASTD off(R11), Z29 \
	VPDPWSSD Z29, Z24, Z18 \
	VPDPWSSD Z29, Z25, Z19 \
	VPBROADCASTD off(R11)(R8*1), Z30 \
	VPDPWSSD Z30, Z24, Z20 \
	VPDPWSSD Z30, Z25, Z21 \
	VPBROADCASTD off(R9)(R8*8), Z31 \
	VPDPWSSD Z31, Z24, Z22 \
	VPDPWSSD Z31, Z25, Z23

// VTOKZ is VTOK for a scale block's first column pair: VPMADDWD writes the pair's two products
// summed, the value VPDPWSSD would add to a zero sum, so the flush need not clear the sums.
#define VTOKZ(off) \
	VPBROADCASTD off(DI), Z26 \
	VPMADDWD Z26, Z24, Z0 \
	VPMADDWD Z26, Z25, Z1 \
	VPBROADCASTD off(DI)(R8*1), Z27 \
	VPMADDWD Z27, Z24, Z2 \
	VPMADDWD Z27, Z25, Z3 \
	VPBROADCASTD off(DI)(R8*2), Z28 \
	VPMADDWD Z28, Z24, Z4 \
	VPMADDWD Z28, Z25, Z5 \
	VPBROADCASTD off(R9), Z29 \
	VPMADDWD Z29, Z24, Z6 \
	VPMADDWD Z29, Z25, Z7 \
	VPBROADCASTD off(DI)(R8*4), Z30 \
	VPMADDWD Z30, Z24, Z8 \
	VPMADDWD Z30, Z25, Z9 \
	VPBROADCASTD off(R9)(R8*2), Z31 \
	VPMADDWD Z31, Z24, Z10 \
	VPMADDWD Z31, Z25, Z11 \
	VPBROADCASTD off(R10), Z26 \
	VPMADDWD Z26, Z24, Z12 \
	VPMADDWD Z26, Z25, Z13 \
	VPBROADCASTD off(R9)(R8*4), Z27 \
	VPMADDWD Z27, Z24, Z14 \
	VPMADDWD Z27, Z25, Z15 \
	VPBROADCASTD off(DI)(R8*8), Z28 \
	VPMADDWD Z28, Z24, Z16 \
	VPMADDWD Z28, Z25, Z17 \
	VPBROADCASTD off(R11), Z29 \
	VPMADDWD Z29, Z24, Z18 \
	VPMADDWD Z29, Z25, Z19 \
	VPBROADCASTD off(R11)(R8*1), Z30 \
	VPMADDWD Z30, Z24, Z20 \
	VPMADDWD Z30, Z25, Z21 \
	VPBROADCASTD off(R9)(R8*8), Z31 \
	VPMADDWD Z31, Z24, Z22 \
	VPMADDWD Z31, Z25, Z23

// VTOK8 and VTOKZ8 are VTOK and VTOKZ for the first 8 tokens (the 8-token kernels).
#define VTOK8(off) \
	VPBROADCASTD off(DI), Z26 \
	VPDPWSSD Z26, Z24, Z0 \
	VPDPWSSD Z26, Z25, Z1 \
	VPBROADCASTD off(DI)(R8*1), Z27 \
	VPDPWSSD Z27, Z24, Z2 \
	VPDPWSSD Z27, Z25, Z3 \
	VPBROADCASTD off(DI)(R8*2), Z28 \
	VPDPWSSD Z28, Z24, Z4 \
	VPDPWSSD Z28, Z25, Z5 \
	VPBROADCASTD off(R9), Z29 \
	VPDPWSSD Z29, Z24, Z6 \
	VPDPWSSD Z29, Z25, Z7 \
	VPBROADCASTD off(DI)(R8*4), Z30 \
	VPDPWSSD Z30, Z24, Z8 \
	VPDPWSSD Z30, Z25, Z9 \
	VPBROADCASTD off(R9)(R8*2), Z31 \
	VPDPWSSD Z31, Z24, Z10 \
	VPDPWSSD Z31, Z25, Z11 \
	VPBROADCASTD off(R10), Z26 \
	VPDPWSSD Z26, Z24, Z12 \
	VPDPWSSD Z26, Z25, Z13 \
	VPBROADCASTD off(R9)(R8*4), Z27 \
	VPDPWSSD Z27, Z24, Z14 \
	VPDPWSSD Z27, Z25, Z15

#define VTOKZ8(off) \
	VPBROADCASTD off(DI), Z26 \
	VPMADDWD Z26, Z24, Z0 \
	VPMADDWD Z26, Z25, Z1 \
	VPBROADCASTD off(DI)(R8*1), Z27 \
	VPMADDWD Z27, Z24, Z2 \
	VPMADDWD Z27, Z25, Z3 \
	VPBROADCASTD off(DI)(R8*2), Z28 \
	VPMADDWD Z28, Z24, Z4 \
	VPMADDWD Z28, Z25, Z5 \
	VPBROADCASTD off(R9), Z29 \
	VPMADDWD Z29, Z24, Z6 \
	VPMADDWD Z29, Z25, Z7 \
	VPBROADCASTD off(DI)(R8*4), Z30 \
	VPMADDWD Z30, Z24, Z8 \
	VPMADDWD Z30, Z25, Z9 \
	VPBROADCASTD off(R9)(R8*2), Z31 \
	VPMADDWD Z31, Z24, Z10 \
	VPMADDWD Z31, Z25, Z11 \
	VPBROADCASTD off(R10), Z26 \
	VPMADDWD Z26, Z24, Z12 \
	VPMADDWD Z26, Z25, Z13 \
	VPBROADCASTD off(R9)(R8*4), Z27 \
	VPMADDWD Z27, Z24, Z14 \
	VPMADDWD Z27, Z25, Z15

// ZFLUSH adds one token's scaled block sums to out (off(AX): the token's 32 floats; the next
// block's first pair, VTOKZ, starts the sums anew): BX points at the token's activation scale, DX at its activation sum; Z30, Z31 hold the
// block's weight scales (rows 0-15, 16-31) and Z28, Z29 its min terms (ZSCALES loads them once for
// the twelve tokens). The products S·s take s as a broadcast operand, and each FMA reads out from
// memory as its addend: the operations of the AVX2 flush, in its order, in fewer instructions
// (12 tokens of flush are a quarter of a Q6_K block's time).
#define ZFLUSH(acc0, acc1, off) \
	VMULPS.BCST     (BX), Z30, Z26 \
	VMULPS.BCST     (BX), Z31, Z27 \
	VCVTDQ2PS       acc0, acc0 \
	VCVTDQ2PS       acc1, acc1 \
	VFMADD213PS     off(AX), Z26, acc0 \
	VFNMADD231PS.BCST (DX), Z28, acc0 \
	VMOVUPS         acc0, off(AX) \
	VFMADD213PS     off+64(AX), Z27, acc1 \
	VFNMADD231PS.BCST (DX), Z29, acc1 \
	VMOVUPS         acc1, off+64(AX) \
	ADDQ            R14, BX \
	ADDQ            R14, DX

// ZFLUSH0 is ZFLUSH for the types without a minimum term (Q8_0, Q4_0, Q6_K: M = 0).
#define ZFLUSH0(acc0, acc1, off) \
	VMULPS.BCST (BX), Z30, Z26 \
	VMULPS.BCST (BX), Z31, Z27 \
	VCVTDQ2PS   acc0, acc0 \
	VCVTDQ2PS   acc1, acc1 \
	VFMADD213PS off(AX), Z26, acc0 \
	VMOVUPS     acc0, off(AX) \
	VFMADD213PS off+64(AX), Z27, acc1 \
	VMOVUPS     acc1, off+64(AX) \
	ADDQ        R14, BX

// ZSCALES loads a scale block's weight scales and min terms for ZFLUSH (R12: S of the block).
#define ZSCALES \
	VMOVUPS (R12), Z30 \
	VMOVUPS 64(R12), Z31 \
	VMOVUPS 128(R12), Z28 \
	VMOVUPS 192(R12), Z29

// ZSCALES0 loads the weight scales for ZFLUSH0.
#define ZSCALES0 \
	VMOVUPS (R12), Z30 \
	VMOVUPS 64(R12), Z31

// FLUSH12 and FLUSH8 flush the sums of 12 and 8 tokens with F.
#define FLUSH12(F) \
	F(Z0, Z1, 0) \
	F(Z2, Z3, 128) \
	F(Z4, Z5, 256) \
	F(Z6, Z7, 384) \
	F(Z8, Z9, 512) \
	F(Z10, Z11, 640) \
	F(Z12, Z13, 768) \
	F(Z14, Z15, 896) \
	F(Z16, Z17, 1024) \
	F(Z18, Z19, 1152) \
	F(Z20, Z21, 1280) \
	F(Z22, Z23, 1408)

#define FLUSH8(F) \
	F(Z0, Z1, 0) \
	F(Z2, Z3, 128) \
	F(Z4, Z5, 256) \
	F(Z6, Z7, 384) \
	F(Z8, Z9, 512) \
	F(Z10, Z11, 640) \
	F(Z12, Z13, 768) \
	F(Z14, Z15, 896)

// TILEQVNNI(F, SC, NT, TOKZ, TOK, FL) is the kernel for NT tokens (12 or 8), with F its flush
// and SC its scale loads, TOKZ and TOK its column-pair steps and FL its flush list. The frame holds the pairs per scale block (16, or
// 8 with two halves; always even: the pair loop takes two at a time) and the halves left.
#define TILEQVNNI(F, SC, NT, TOKZ, TOK, FL) \
	MOVQ pack+0(FP), SI \
	MOVQ x+8(FP), DI \
	MOVQ xstride+16(FP), R8 \
	SHLQ $1, R8 \
	MOVQ nb+24(FP), CX \
	MOVQ s+40(FP), R12 \
	MOVQ xs+48(FP), R13 \
	MOVQ xsStride+64(FP), R14 \
	SHLQ $2, R14 \
	LEAQ (DI)(R8*2), R9 \
	ADDQ R8, R9 \
	LEAQ (R9)(R8*2), R10 \
	ADDQ R8, R10 \
	LEAQ (R10)(R8*2), R11 \
	ADDQ R8, R11 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23 \
	MOVQ out+72(FP), AX \
	MOVQ $NT, BX \
vzero: \
	VMOVUPS Z0, (AX) \
	VMOVUPS Z0, 64(AX) \
	ADDQ    $128, AX \
	DECQ    BX \
	JNE     vzero \
	MOVQ    $8, AX \
	CMPQ    halves+32(FP), $1 \
	JEQ     vpairs \
	MOVQ    $4, AX \
vpairs: \
	MOVQ  AX, p-16(SP) \
	TESTQ CX, CX \
	JEQ   vdone \
vblock: \
	MOVQ halves+32(FP), AX \
	MOVQ AX, h-8(SP) \
vhalf: \
	MOVQ p-16(SP), BX \
	VMOVDQU32 (SI), Z24 \
	VMOVDQU32 64(SI), Z25 \
	TOKZ(0) \
	JMP  vsecond \
vpair: \
	VMOVDQU32 (SI), Z24 \
	VMOVDQU32 64(SI), Z25 \
	TOK(0) \
vsecond: \
	VMOVDQU32 128(SI), Z24 \
	VMOVDQU32 192(SI), Z25 \
	TOK(4) \
	ADDQ $256, SI \
	ADDQ $8, DI \
	ADDQ $8, R9 \
	ADDQ $8, R10 \
	ADDQ $8, R11 \
	DECQ BX \
	JNE  vpair \
	MOVQ out+72(FP), AX \
	MOVQ R13, BX \
	MOVQ R13, DX \
	SC \
	SUBQ xs+48(FP), DX \
	ADDQ xsum+56(FP), DX \
	FL(F) \
	ADDQ $256, R12 \
	DECQ h-8(SP) \
	JNE  vhalf \
	ADDQ $4, R13 \
	DECQ CX \
	JNE  vblock \
vdone: \
	VZEROUPPER \
	RET

TEXT ·tileQ32x12VNNI(SB), NOSPLIT, $16-80
	TILEQVNNI(ZFLUSH, ZSCALES, 12, VTOKZ, VTOK, FLUSH12)

// func tileQ32x12NoMinVNNI(...): tileQ32x12VNNI for types without minimums (xsum is not read).
TEXT ·tileQ32x12NoMinVNNI(SB), NOSPLIT, $16-80
	TILEQVNNI(ZFLUSH0, ZSCALES0, 12, VTOKZ, VTOK, FLUSH12)

// func tileQ32x8VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)
//
// tileQ32x12VNNI for 8 tokens (out rows 8-11 are not written): a chunk's last tile when 8 or
// fewer of its tokens are left, such as 128 = 10·12 + 8, instead of 12 with a third of them
// wasted. Each token's sums and flush are the 12-token kernel's, so its bits are too.
TEXT ·tileQ32x8VNNI(SB), NOSPLIT, $16-80
	TILEQVNNI(ZFLUSH, ZSCALES, 8, VTOKZ8, VTOK8, FLUSH8)

// func tileQ32x8NoMinVNNI(...): tileQ32x8VNNI for types without minimums.
TEXT ·tileQ32x8NoMinVNNI(SB), NOSPLIT, $16-80
	TILEQVNNI(ZFLUSH0, ZSCALES0, 8, VTOKZ8, VTOK8, FLUSH8)
