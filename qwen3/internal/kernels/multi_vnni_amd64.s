#include "textflag.h"
#include "dotq_amd64.h"

// The batched dots of multi_amd64.s in 512-bit registers, for the AVX512 level with VNNI: two
// TOKENS to a register, the low 256 bits token t's eight lanes, the high 256 bits token t+1's.
// The weights of a block are decoded once per row, as in the AVX2 kernels, and every lane does
// what the one-token AVX2 kernel's lane does for its token, in the same order: the integer
// products of a block are the same exact int32 sums (formed here by VPMADDWD and VPDPWSSD, in
// another order than the AVX2 kernels' VPMADDWD, VPADDD: integer sums are exact in any order),
// and each float step (the scale c = d·s, the fused multiply-add of each block, HSUM at the end)
// is the AVX2 kernel's step on each half. So each token's result has the float32 bits the
// one-token kernel gives it (TestDotActRowsN, and TestDotActNVNNIMatchesAVX2 against the AVX2
// batched kernels).
//
// A register's halves belong to two tokens, so the two tokens' activations must meet in one
// register, side by side. Doing that in the kernel would cost every row three more instructions
// per block and pair of tokens; instead the Go side (multi_vnni_amd64.go) has the activations
// copied once per call into a scratch buffer in the order the kernel reads them (pairActVNNI,
// q6PairActVNNI), and all the rows of the call read that copy.
//
// Q8_0, Q4_0 and Q4_K: the "pair layout" (pairActVNNI). A block's 32 values of a token are two
// halves, x[0:16] and x[16:32], and its eight int32 lanes are P_i = Σ of the products of values
// {2i, 2i+1} and {16+2i, 17+2i}. With the weights widened in their order, W = [w0-15 | w16-31],
// and swapped, W' = [w16-31 | w0-15], the pair of tokens (t, u) is stored per block as
//
//	A = [x_t[0:16] | x_u[16:32]]      B = [x_t[16:32] | x_u[0:16]]
//
// so that VPMADDWD(W, A) + VPDPWSSD(W', B) = [P of token t | P of token u]. Per group of eight
// blocks (a Q4_K super-block) and pair of tokens, PB = 1216 bytes: eight blocks of A, B (128
// bytes each), the eight blocks' activation scales as [s_t(0-3) ×2 | s_u(0-3) ×2] and
// [s_t(4-7) ×2 | s_u(4-7) ×2] (so that a scale is spread over its token's half by an in-lane
// shuffle, which costs less than a cross-lane permute), and [Sum_t(8) | Sum_u(8)] (the blocks'
// sums, for Q4_K's minimums). The pairs of a group follow each other, then the next group.
//
//	func dotXActN{8,4,2}VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
//
// out[t*outStride+r] = row r · token t for r < rows and the kernel's tokens, x the buffer, n the
// groups (or super-blocks) of a row. Registers: R12 the row, R13 its index, SI its blocks, DI the
// buffer's group, CX the groups left, AX and BX the stores; Z8..Z11 the pairs' sums, Z16..Z19
// and Z20..Z23 the pairs' scales c = d·s of blocks 0-3 and 4-7 of the group (laid out as the
// buffer's s), Z1 and Z2 the weights W and W'.

// PB is the pair layout's bytes per group and pair.
#define PB 1152

// ZPAIR(xoff, j, c, acc) is one block for one pair of tokens: the block's A and B at xoff of the
// buffer (DI) times the weights W, W' in Z1, Z2, converted, times the block's [c_t ×8 | c_u ×8]
// (element j of each 128-bit lane of c), added to acc. Z4 and Z5 are clobbered.
#define ZPAIR(xoff, j, c, acc) \
	VPMADDWD    xoff(DI), Z1, Z4 \
	VPDPWSSD    xoff+64(DI), Z2, Z4 \
	VCVTDQ2PS   Z4, Z4 \
	VSHUFPS     $(0x55*(j)), c, c, Z5 \
	VFMADD231PS Z5, Z4, acc

// PAIRS8, PAIRS4, PAIRS2(xoff, b): block b (at xoff of each pair) for four, two or one pair of
// tokens.
#define PAIRS8(xoff, b) \
	PAIRS4(xoff, b) \
	ZPAIR(xoff+2*PB, ((b)&3), Z18, Z10) \
	ZPAIR(xoff+3*PB, ((b)&3), Z19, Z11)

#define PAIRS4(xoff, b) \
	ZPAIR(xoff, ((b)&3), Z16, Z8) \
	ZPAIR(xoff+PB, ((b)&3), Z17, Z9)

#define PAIRS2(xoff, b) \
	ZPAIR(xoff, ((b)&3), Z16, Z8)

// PAIRS8H, PAIRS4H, PAIRS2H: the same for blocks 4-7, whose scales are in Z20..Z23.
#define PAIRS8H(xoff, b) \
	PAIRS4H(xoff, b) \
	ZPAIR(xoff+2*PB, ((b)&3), Z22, Z10) \
	ZPAIR(xoff+3*PB, ((b)&3), Z23, Z11)

#define PAIRS4H(xoff, b) \
	ZPAIR(xoff, ((b)&3), Z20, Z8) \
	ZPAIR(xoff+PB, ((b)&3), Z21, Z9)

#define PAIRS2H(xoff, b) \
	ZPAIR(xoff, ((b)&3), Z20, Z8)

// ZSCALES8, 4, 2: the group's c = d·s of each pair, d (eight floats) in Y3: its blocks 0-3 in every
// 128-bit lane of Z28, 4-7 of Z29, times the buffer's s of each pair.
#define ZDSPREAD \
	VINSERTF64X4 $1, Y3, Z3, Z3

#define ZSC(off, c03, c47) \
	VMULPS     off(DI), Z3, Z28 \
	VSHUFF64X2 $0xa0, Z28, Z28, c03 \
	VSHUFF64X2 $0xf5, Z28, Z28, c47

#define ZSCALES2 \
	ZDSPREAD \
	ZSC(1024, Z16, Z20)

#define ZSCALES4 \
	ZSCALES2 \
	ZSC(PB+1024, Z17, Z21)

#define ZSCALES8 \
	ZSCALES4 \
	ZSC(2*PB+1024, Z18, Z22) \
	ZSC(3*PB+1024, Z19, Z23)

// ZSTORE(z, y, x) stores the pair's two sums (HSUM of each half of z) at (AX) and (AX)(BX*1) and
// moves AX two tokens on. Y12 and X1 are clobbered.
#define ZSTORE(z, y, x) \
	VEXTRACTF64X4 $1, z, Y12 \
	HSUM(y, x) \
	VMOVSS        x, (AX) \
	HSUM(Y12, X12) \
	VMOVSS        X12, (AX)(BX*1) \
	LEAQ          (AX)(BX*2), AX

#define ZSTORES2 \
	ZSTORE(Z8, Y8, X8)

#define ZSTORES4 \
	ZSTORES2 \
	ZSTORE(Z9, Y9, X9)

#define ZSTORES8 \
	ZSTORES4 \
	ZSTORE(Z10, Y10, X10) \
	ZSTORE(Z11, Y11, X11)

// ZROWSTART begins row R13: pointers back at the row's and the buffer's starts, sums cleared.
#define ZROWSTART \
	MOVQ   R12, SI \
	MOVQ   x+24(FP), DI \
	MOVQ   n+32(FP), CX \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11

// ZROWEND(STORES, again) stores the row's sums of every token and moves to the next row, or returns.
#define ZROWEND(STORES, again) \
	MOVQ out+40(FP), AX \
	LEAQ (AX)(R13*4), AX \
	STORES \
	ADDQ stride+8(FP), R12 \
	INCQ R13 \
	CMPQ R13, rows+16(FP) \
	JLT  again \
	VZEROUPPER \
	RET

// ZSETUP: the first row, BX the output stride in bytes.
#define ZSETUP \
	MOVQ w+0(FP), R12 \
	XORQ R13, R13 \
	MOVQ outStride+48(FP), BX \
	SHLQ $2, BX

// Q8_0: a group is eight 34-byte blocks. Q8ZB(b, PAIRS): block b widened into W (Z1) and W' (Z2),
// then every pair.
#define Q8ZB(b, PAIRS) \
	VPMOVSXBW  34*b+2(SI), Z1 \
	VSHUFI64X2 $0x4e, Z1, Z1, Z2 \
	PAIRS(128*b, b)

// Q8ZGROUP(SCALES, PAIRS, PAIRSH, pairs): a group of eight blocks for every pair.
#define Q8ZGROUP(SCALES, PAIRS, PAIRSH, pairs) \
	PREFETCHT0 4096(SI) \
	PREFETCHT0 4160(SI) \
	PREFETCHT0 4224(SI) \
	PREFETCHT0 4288(SI) \
	PREFETCHT0 4352(SI) \
	GATHERD8(34, SI) \
	SCALES \
	Q8ZB(0, PAIRS) \
	Q8ZB(1, PAIRS) \
	Q8ZB(2, PAIRS) \
	Q8ZB(3, PAIRS) \
	Q8ZB(4, PAIRSH) \
	Q8ZB(5, PAIRSH) \
	Q8ZB(6, PAIRSH) \
	Q8ZB(7, PAIRSH) \
	ADDQ $272, SI \
	ADDQ $(pairs*PB), DI

// Q4_K: a group is a 144-byte super-block; its eight sub-blocks take the place of Q8_0's eight
// blocks (the same activations and scales in the buffer). Z0 holds 0x000F in every 16-bit lane,
// Z30 the minimums' term dmin·min_j in both halves.
#define LO4ZN \
	VPTERNLOGD $0xff, Z0, Z0, Z0 \
	VPSRLW     $12, Z0, Z0

// Q4KZMINS2, 4, 8: the minimums' term times each pair's [Sum_t | Sum_u] subtracted from its sums,
// as MINS4 does for each token.
#define Q4KZMINS2 \
	VFNMADD231PS 1088(DI), Z30, Z8

#define Q4KZMINS4 \
	Q4KZMINS2 \
	VFNMADD231PS PB+1088(DI), Z30, Z9

#define Q4KZMINS8 \
	Q4KZMINS4 \
	VFNMADD231PS 2*PB+1088(DI), Z30, Z10 \
	VFNMADD231PS 3*PB+1088(DI), Z30, Z11

// Q4KZCHUNK(c, PAIRS): the 32 quant bytes of sub-blocks 2c (low nibbles) and 2c+1 (high ones),
// widened once into Z6; each sub-block's W and W', then every pair.
#define Q4KZCHUNK(c, PAIRS) \
	VPMOVZXBW  16+32*c(SI), Z6 \
	VPANDD     Z0, Z6, Z1 \
	VSHUFI64X2 $0x4e, Z1, Z1, Z2 \
	PAIRS(256*c, 2*c) \
	VPSRLW     $4, Z6, Z1 \
	VSHUFI64X2 $0x4e, Z1, Z1, Z2 \
	PAIRS(256*c+128, 2*c+1)

// Q4KZSB(SCALES, MINS, PAIRS, PAIRSH, pairs): a super-block for every pair: its scales and
// minimums unpacked as the AVX2 kernel does (Q4KSC), the minimums' term first, then the
// sub-blocks in order.
#define Q4KZSB(SCALES, MINS, PAIRS, PAIRSH, pairs) \
	PREFETCHT0   4096(SI) \
	PREFETCHT0   4160(SI) \
	PREFETCHT0   4224(SI) \
	Q4KSC(SI) \
	VINSERTF64X4 $1, Y4, Z4, Z30 \
	MINS \
	SCALES \
	Q4KZCHUNK(0, PAIRS) \
	Q4KZCHUNK(1, PAIRS) \
	Q4KZCHUNK(2, PAIRSH) \
	Q4KZCHUNK(3, PAIRSH) \
	ADDQ $144, SI \
	ADDQ $(pairs*PB), DI

// func pairActVNNI(dst *byte, q *int16, scale, sum *float32, groups, pairs, cols int)
// Copies the activations of 2·pairs tokens (cols values each, one after another in q, scale and
// sum) into the pair layout at dst (64-byte aligned): for each of groups groups of eight blocks,
// for each pair, the eight blocks' A and B, then the scales and the sums side by side.
TEXT ·pairActVNNI(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ cols+48(FP), R8
	SHLQ $1, R8                // one token's values in bytes
	MOVQ cols+48(FP), R10
	SHRQ $3, R10               // one token's scales (and sums) in bytes
	XORQ R11, R11              // the group

pagroup:
	MOVQ R11, SI
	SHLQ $9, SI
	ADDQ q+8(FP), SI           // token 0's values of the group
	MOVQ R11, DX
	SHLQ $5, DX
	MOVQ DX, BX
	ADDQ scale+16(FP), DX      // its scales
	ADDQ sum+24(FP), BX        // its sums
	MOVQ pairs+40(FP), CX

papair:
	LEAQ (SI)(R8*1), R9        // token u's values
	XORQ AX, AX

pablock:
	VMOVDQU64  (SI)(AX*1), Z0
	VSHUFI64X2 $0xe4, (R9)(AX*1), Z0, Z1
	VSHUFI64X2 $0x4e, (R9)(AX*1), Z0, Z2
	VMOVDQU64  Z1, (DI)(AX*2)
	VMOVDQU64  Z2, 64(DI)(AX*2)
	ADDQ       $64, AX
	CMPQ       AX, $512
	JLT        pablock
	VMOVUPS      (DX), Y0
	VINSERTF64X4 $1, (DX)(R10*1), Z0, Z0
	VMOVUPS      Z0, 1024(DI)
	VMOVUPS      (BX), Y0
	VINSERTF64X4 $1, (BX)(R10*1), Z0, Z0
	VMOVUPS      Z0, 1088(DI)
	ADDQ $PB, DI
	LEAQ (SI)(R8*2), SI
	LEAQ (DX)(R10*2), DX
	LEAQ (BX)(R10*2), BX
	DECQ CX
	JNE  papair
	INCQ R11
	CMPQ R11, groups+32(FP)
	JLT  pagroup
	VZEROUPPER
	RET

// func dotQ8_0ActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
TEXT ·dotQ8_0ActN8VNNI(SB), NOSPLIT, $0-56
	ZSETUP

q8z8row:
	ZROWSTART

q8z8loop:
	Q8ZGROUP(ZSCALES8, PAIRS8, PAIRS8H, 4)
	DECQ CX
	JNE  q8z8loop
	ZROWEND(ZSTORES8, q8z8row)

// func dotQ8_0ActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
TEXT ·dotQ8_0ActN4VNNI(SB), NOSPLIT, $0-56
	ZSETUP

q8z4row:
	ZROWSTART

q8z4loop:
	Q8ZGROUP(ZSCALES4, PAIRS4, PAIRS4H, 2)
	DECQ CX
	JNE  q8z4loop
	ZROWEND(ZSTORES4, q8z4row)

// func dotQ8_0ActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
TEXT ·dotQ8_0ActN2VNNI(SB), NOSPLIT, $0-56
	ZSETUP

q8z2row:
	ZROWSTART

q8z2loop:
	Q8ZGROUP(ZSCALES2, PAIRS2, PAIRS2H, 1)
	DECQ CX
	JNE  q8z2loop
	ZROWEND(ZSTORES2, q8z2row)

// func dotQ4_KActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
TEXT ·dotQ4_KActN8VNNI(SB), NOSPLIT, $0-56
	ZSETUP
	LO4ZN

q4kz8row:
	ZROWSTART

q4kz8loop:
	Q4KZSB(ZSCALES8, Q4KZMINS8, PAIRS8, PAIRS8H, 4)
	DECQ CX
	JNE  q4kz8loop
	ZROWEND(ZSTORES8, q4kz8row)

// func dotQ4_KActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
TEXT ·dotQ4_KActN4VNNI(SB), NOSPLIT, $0-56
	ZSETUP
	LO4ZN

q4kz4row:
	ZROWSTART

q4kz4loop:
	Q4KZSB(ZSCALES4, Q4KZMINS4, PAIRS4, PAIRS4H, 2)
	DECQ CX
	JNE  q4kz4loop
	ZROWEND(ZSTORES4, q4kz4row)

// func dotQ4_KActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int)
TEXT ·dotQ4_KActN2VNNI(SB), NOSPLIT, $0-56
	ZSETUP
	LO4ZN

q4kz2row:
	ZROWSTART

q4kz2loop:
	Q4KZSB(ZSCALES2, Q4KZMINS2, PAIRS2, PAIRS2H, 1)
	DECQ CX
	JNE  q4kz2loop
	ZROWEND(ZSTORES2, q4kz2row)
