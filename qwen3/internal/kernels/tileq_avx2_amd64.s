#include "textflag.h"

// func tileQ16x6AVX2(pack *int16, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)
//
// TileQ's inner kernel for 16 rows (of the pack's 32) and 6 tokens:
//
//	out[t*outStride+i] = Σ_f s[f*64+i]·xs[t*xsStride+b]·Σ_j q_ij·x_tj − s[f*64+32+i]·xsum[t*xsStride+b]
//
// over scale blocks f (halves of them per 32-value activation block b; j runs over f's values).
// One k step takes a pair of values: VPMADDWD multiplies 8 rows' int16 pairs by one token's
// broadcast pair and adds each pair's two products into an int32 lane, 16 products per
// instruction against an FMA's 8. The int32 sums of a scale block are exact; at the block's end
// they are converted to float32, scaled, and added to out in memory (twelve int32 accumulators
// fill the registers, so the float sums live in out).
#define TOK(acc0, acc1, xaddr) \
	VPBROADCASTD xaddr, Y14 \
	VPMADDWD     Y12, Y14, Y15 \
	VPADDD       Y15, acc0, acc0 \
	VPMADDWD     Y13, Y14, Y15 \
	VPADDD       Y15, acc1, acc1

// FLUSH adds one token's scaled block sums to out (AX) and clears them: R10 points at the
// token's activation scale, BX at its activation sum, R12 at the weight scales and min terms.
#define FLUSH(acc0, acc1) \
	VBROADCASTSS (R10), Y14 \
	VMULPS       (R12), Y14, Y12 \
	VMULPS       32(R12), Y14, Y13 \
	VBROADCASTSS (BX), Y14 \
	VCVTDQ2PS    acc0, acc0 \
	VCVTDQ2PS    acc1, acc1 \
	VMOVUPS      (AX), Y15 \
	VFMADD231PS  Y12, acc0, Y15 \
	VFNMADD231PS 128(R12), Y14, Y15 \
	VMOVUPS      Y15, (AX) \
	VMOVUPS      32(AX), Y15 \
	VFMADD231PS  Y13, acc1, Y15 \
	VFNMADD231PS 160(R12), Y14, Y15 \
	VMOVUPS      Y15, 32(AX) \
	VPXOR        acc0, acc0, acc0 \
	VPXOR        acc1, acc1, acc1 \
	ADDQ         R11, AX \
	ADDQ         R14, R10 \
	ADDQ         R14, BX


// FLUSH0 is FLUSH for the types without a minimum term (Q8_0, Q4_0, Q6_K: M = 0).
#define FLUSH0(acc0, acc1) \
	VBROADCASTSS (R10), Y14 \
	VMULPS       (R12), Y14, Y12 \
	VMULPS       32(R12), Y14, Y13 \
	VCVTDQ2PS    acc0, acc0 \
	VCVTDQ2PS    acc1, acc1 \
	VMOVUPS      (AX), Y15 \
	VFMADD231PS  Y12, acc0, Y15 \
	VMOVUPS      Y15, (AX) \
	VMOVUPS      32(AX), Y15 \
	VFMADD231PS  Y13, acc1, Y15 \
	VMOVUPS      Y15, 32(AX) \
	VPXOR        acc0, acc0, acc0 \
	VPXOR        acc1, acc1, acc1 \
	ADDQ         R11, AX \
	ADDQ         R14, R10 \
	ADDQ         R14, BX

// TILEQBODY(F) is the kernel with F its flush (FLUSH or FLUSH0). R8 is one token's stride in
// bytes, R9 token 3's inputs; the frame holds the pairs per scale block (16, or 8 with two
// halves) and the halves left.
#define TILEQBODY(F) \
	MOVQ pack+0(FP), SI \
	MOVQ x+8(FP), DI \
	MOVQ xstride+16(FP), R8 \
	SHLQ $1, R8 \
	MOVQ nb+24(FP), CX \
	MOVQ s+40(FP), R12 \
	MOVQ xs+48(FP), R13 \
	MOVQ xsStride+64(FP), R14 \
	SHLQ $2, R14 \
	MOVQ out+72(FP), DX \
	MOVQ outStride+80(FP), R11 \
	SHLQ $2, R11 \
	LEAQ (DI)(R8*2), R9 \
	ADDQ R8, R9 \
	VPXOR Y0, Y0, Y0 \
	VPXOR Y1, Y1, Y1 \
	VPXOR Y2, Y2, Y2 \
	VPXOR Y3, Y3, Y3 \
	VPXOR Y4, Y4, Y4 \
	VPXOR Y5, Y5, Y5 \
	VPXOR Y6, Y6, Y6 \
	VPXOR Y7, Y7, Y7 \
	VPXOR Y8, Y8, Y8 \
	VPXOR Y9, Y9, Y9 \
	VPXOR Y10, Y10, Y10 \
	VPXOR Y11, Y11, Y11 \
	MOVQ DX, AX \
	MOVQ $6, BX \
qzero: \
	VMOVUPS Y0, (AX) \
	VMOVUPS Y0, 32(AX) \
	ADDQ    R11, AX \
	DECQ    BX \
	JNE     qzero \
	MOVQ    $16, AX \
	CMPQ    halves+32(FP), $1 \
	JEQ     qpairs \
	MOVQ    $8, AX \
qpairs: \
	MOVQ  AX, p-16(SP) \
	TESTQ CX, CX \
	JEQ   qdone \
qblock: \
	MOVQ halves+32(FP), AX \
	MOVQ AX, h-8(SP) \
qhalf: \
	MOVQ p-16(SP), BX \
qpair: \
	VMOVDQU (SI), Y12 \
	VMOVDQU 32(SI), Y13 \
	TOK(Y0, Y1, (DI)) \
	TOK(Y2, Y3, (DI)(R8*1)) \
	TOK(Y4, Y5, (DI)(R8*2)) \
	TOK(Y6, Y7, (R9)) \
	TOK(Y8, Y9, (R9)(R8*1)) \
	TOK(Y10, Y11, (R9)(R8*2)) \
	ADDQ $128, SI \
	ADDQ $4, DI \
	ADDQ $4, R9 \
	DECQ BX \
	JNE  qpair \
	MOVQ out+72(FP), AX \
	MOVQ R13, R10 \
	MOVQ R13, BX \
	SUBQ xs+48(FP), BX \
	ADDQ xsum+56(FP), BX \
	F(Y0, Y1) \
	F(Y2, Y3) \
	F(Y4, Y5) \
	F(Y6, Y7) \
	F(Y8, Y9) \
	F(Y10, Y11) \
	ADDQ $256, R12 \
	DECQ h-8(SP) \
	JNE  qhalf \
	ADDQ $4, R13 \
	DECQ CX \
	JNE  qblock \
qdone: \
	VZEROUPPER \
	RET

TEXT ·tileQ16x6AVX2(SB), NOSPLIT, $16-88
	TILEQBODY(FLUSH)

// func tileQ16x6NoMinAVX2(...): tileQ16x6AVX2 for types without minimums (xsum is not read).
TEXT ·tileQ16x6NoMinAVX2(SB), NOSPLIT, $16-88
	TILEQBODY(FLUSH0)
