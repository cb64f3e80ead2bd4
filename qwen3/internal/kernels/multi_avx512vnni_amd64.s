#include "textflag.h"
#include "go_asm.h"
#include "quant_amd64.h"

// The batched dots of multi_avx2_amd64.s in 512-bit registers, for the AVX512 level with VNNI: two
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
// per block and pair of tokens; instead the Go side (multi_avx512vnni_amd64.go) has the activations
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
// blocks (a Q4_K super-block) and pair of tokens, PB = 1152 bytes: eight blocks of A, B (128
// bytes each), the eight blocks' activation scales [s_t(8) | s_u(8)] and their sums
// [Sum_t(8) | Sum_u(8)] (for Q4_K's minimums). The pairs of a group follow each other, then the
// next group. Per group and pair the kernel forms [c_t | c_u] = d·[s_t | s_u] (the AVX2 kernels'
// products) and spreads it into [c_t(0-3) ×2 | c_u(0-3) ×2] and [c_t(4-7) ×2 | c_u(4-7) ×2], so that
// each block's c is picked by an in-lane shuffle (VSHUFPS; a cross-lane VPERMPS cost 7% more).
//
//	func dotXActN{8,4,2}VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
//
// out[t*outStride+r] = row r · token t for r < rows and the kernel's tokens, x the buffer, n the
// groups (or super-blocks) of a row. A call may cover a piece of the rows' columns
// (multi_avx512vnni_amd64.go): flags bit 0 starts each row's sums from acc (256 bytes per row) instead of
// zero, bit 1 leaves them there instead of storing the dot products; pf is the prefetch distance
// in bytes. Registers: R12 the row, R13 its index, SI its blocks, DI the buffer's group, CX the
// groups left, R11 the prefetch distance, AX and BX the stores; Z8..Z11 the pairs' sums, Z16..Z19
// and Z20..Z23 the pairs' c of blocks 0-3 and 4-7 of the group (those of the next group formed
// ahead in Z12..Z15, Z24, Z25, Z27, Z29), Z1 and Z2 the weights W and W'.

// The layouts' sizes and offsets, from multi_avx512vnni_amd64.go (go_asm.h): PB the pair layout's
// bytes per group and pair, PSC and PSUM the offsets of its scales and sums; Q6PB the Q6 pair
// layout's bytes per super-block and pair, Q6HB per half, Q6SUM and Q6SC the offsets of a half's
// 16-value sums and scales.
#define PB const_pairBytes
#define PSC const_pairScales
#define PSUM const_pairSums
#define Q6PB const_q6PairBytes
#define Q6HB const_q6HalfBytes
#define Q6SUM const_q6HalfSums
#define Q6SC const_q6HalfScales

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

// ZSTORE(z, y, x) stores the pair's two sums (HSUM of each half of z) at (AX) and (AX)(BX*1) and
// moves AX two tokens on. Y4 and X1 are clobbered.
#define ZSTORE(z, y, x) \
	VEXTRACTF64X4 $1, z, Y4 \
	HSUM(y, x) \
	VMOVSS        x, (AX) \
	HSUM(Y4, X4) \
	VMOVSS        X4, (AX)(BX*1) \
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

// ZROWSTART(load, go) begins row R13: pointers back at the row's and the buffer's starts, sums
// cleared, or (flags bit 0) taken from the row's 256 bytes of acc, where a call on the row's
// previous columns left them.
#define ZROWSTART(load, go) \
	MOVQ   R12, SI \
	MOVQ   x+24(FP), DI \
	MOVQ   n+32(FP), CX \
	TESTQ  $1, flags+64(FP) \
	JNE    load \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	JMP    go \
load: \
	MOVQ    R13, AX \
	SHLQ    $const_accRowShift, AX \
	ADDQ    acc+56(FP), AX \
	VMOVUPS (AX), Z8 \
	VMOVUPS 64(AX), Z9 \
	VMOVUPS 128(AX), Z10 \
	VMOVUPS 192(AX), Z11 \
go:

// ZROWEND(STORES, again, keep, next) stores the row's sums of every token (HSUM of each half), or
// (flags bit 1) keeps its accumulators in acc for a call on the next columns, and moves to the
// next row, or returns.
#define ZROWEND(STORES, again, keep, next) \
	TESTQ   $2, flags+64(FP) \
	JNE     keep \
	MOVQ    out+40(FP), AX \
	LEAQ    (AX)(R13*4), AX \
	STORES \
	JMP     next \
keep: \
	MOVQ    R13, AX \
	SHLQ    $const_accRowShift, AX \
	ADDQ    acc+56(FP), AX \
	VMOVUPS Z8, (AX) \
	VMOVUPS Z9, 64(AX) \
	VMOVUPS Z10, 128(AX) \
	VMOVUPS Z11, 192(AX) \
next: \
	ADDQ    stride+8(FP), R12 \
	INCQ    R13 \
	CMPQ    R13, rows+16(FP) \
	JLT     again \
	VZEROUPPER \
	RET

// ZAHEAD(PRE, step, last, done) does PRE, the work a group (or super-block) needs before its
// first multiply-adds (its scales unpacked, its bytes reordered), one group ahead: for the next
// group of the row (step bytes on), or at the row's last group for the next row's first, if the
// call has a next row. Nothing is read past the rows the call was given.
#define ZAHEAD(PRE, step, last, done) \
	CMPQ CX, $1 \
	JEQ  last \
	LEAQ step(SI), AX \
	PRE(AX) \
	JMP  done \
last: \
	LEAQ 1(R13), AX \
	CMPQ AX, rows+16(FP) \
	JGE  done \
	MOVQ R12, AX \
	ADDQ stride+8(FP), AX \
	PRE(AX) \
done:

// ZAHEADC(PRE, step, NEXT, pairs, last, sc, done) is ZAHEAD for the kernels with scales c = d·s:
// with the next group's d (PRE leaves it in Y3), NEXT also forms that group's c of every pair
// from its place in the buffer (the next group's, or the buffer's first for the next row) in
// Z12..Z15, Z24, Z25, Z27, Z29, and TAKE moves them to Z16..Z23 when the group is done: a group's
// first multiply-adds do not wait for its scales either.
#define ZAHEADC(PRE, step, NEXT, pairs, last, sc, done) \
	CMPQ CX, $1 \
	JEQ  last \
	LEAQ step(SI), AX \
	PRE(AX) \
	LEAQ pairs*PB(DI), AX \
	JMP  sc \
last: \
	LEAQ 1(R13), AX \
	CMPQ AX, rows+16(FP) \
	JGE  done \
	MOVQ R12, AX \
	ADDQ stride+8(FP), AX \
	PRE(AX) \
	MOVQ x+24(FP), AX \
sc: \
	NEXT(AX) \
done:

// ZSCN(base, off, c03, c47): the c = d·s of one pair of the group whose buffer is at base (d:
// eight floats in both halves of Z3; s at off of base), spread into the pair's two registers of c:
// [c_t(0-3) ×2 | c_u(0-3) ×2] in c03 and [c_t(4-7) ×2 | c_u(4-7) ×2] in c47.
#define ZSCN(base, off, c03, c47) \
	VMULPS     off(base), Z3, Z28 \
	VSHUFF64X2 $0xa0, Z28, Z28, c03 \
	VSHUFF64X2 $0xf5, Z28, Z28, c47

#define ZNEXT2(base) \
	VINSERTF64X4 $1, Y3, Z3, Z3 \
	ZSCN(base, PSC, Z12, Z24)

#define ZNEXT4(base) \
	ZNEXT2(base) \
	ZSCN(base, PB+PSC, Z13, Z25)

#define ZNEXT8(base) \
	ZNEXT4(base) \
	ZSCN(base, 2*PB+PSC, Z14, Z27) \
	ZSCN(base, 3*PB+PSC, Z15, Z29)

#define ZTAKE2 \
	VMOVAPS Z12, Z16 \
	VMOVAPS Z24, Z20

#define ZTAKE4 \
	ZTAKE2 \
	VMOVAPS Z13, Z17 \
	VMOVAPS Z25, Z21

#define ZTAKE8 \
	ZTAKE4 \
	VMOVAPS Z14, Z18 \
	VMOVAPS Z27, Z22 \
	VMOVAPS Z15, Z19 \
	VMOVAPS Z29, Z23

// ZSETUP: the first row, BX the output stride in bytes, R11 the prefetch distance.
#define ZSETUP \
	MOVQ w+0(FP), R12 \
	XORQ R13, R13 \
	MOVQ pf+72(FP), R11 \
	MOVQ outStride+48(FP), BX \
	SHLQ $2, BX

// Q8DZ(p) and Q40DZ(p) gather the float16 scales d of the group's eight blocks at p into Y3 as
// floats, as GATHERD8 does, with word permutes of the group's bytes instead of seven word inserts
// (fourteen micro-ops, most on the shuffle units the multiply-adds also use): Q8_0's scales sit at bytes
// 34·j, words 17·j of the windows at 0 and 136 (four each); Q4_0's at bytes 18·j, words 9·j of
// the first 128 bytes. Z26 holds the word indices (q8didx or q40didx). Z6 and Z7 are clobbered.
#define Q8DZ(p) \
	VMOVDQU64   (p), Z6 \
	VPERMT2W    64(p), Z26, Z6 \
	VMOVDQU64   136(p), Z7 \
	VPERMT2W    200(p), Z26, Z7 \
	VPUNPCKLQDQ X7, X6, X6 \
	VCVTPH2PS   X6, Y3

#define Q40DZ(p) \
	VMOVDQU64   (p), Z6 \
	VPERMT2W    64(p), Z26, Z6 \
	VCVTPH2PS   X6, Y3

DATA q8didx<>+0(SB)/8, $0x0033002200110000
GLOBL q8didx<>(SB), RODATA|NOPTR, $64
DATA q40didx<>+0(SB)/8, $0x001b001200090000
DATA q40didx<>+8(SB)/8, $0x003f0036002d0024
GLOBL q40didx<>(SB), RODATA|NOPTR, $64

// Q8_0: a group is eight 34-byte blocks. Q8ZB(b, PAIRS): block b widened into W (Z1) and W' (Z2),
// then every pair.
#define Q8ZB(b, PAIRS) \
	VPMOVSXBW  34*b+2(SI), Z1 \
	VSHUFI64X2 $0x4e, Z1, Z1, Z2 \
	PAIRS(128*b, b)

// Q8ZGROUP(NEXT, TAKE, PAIRS, PAIRSH, pairs, last, sc, done): a group of eight blocks for every
// pair, its scales c formed a group earlier; the next group's d and c first (ZAHEADC).
#define Q8ZGROUP(NEXT, TAKE, PAIRS, PAIRSH, pairs, last, sc, done) \
	PREFETCHT0 (SI)(R11*1) \
	PREFETCHT0 64(SI)(R11*1) \
	PREFETCHT0 128(SI)(R11*1) \
	PREFETCHT0 192(SI)(R11*1) \
	PREFETCHT0 256(SI)(R11*1) \
	ZAHEADC(Q8DZ, 272, NEXT, pairs, last, sc, done) \
	Q8ZB(0, PAIRS) \
	Q8ZB(1, PAIRS) \
	Q8ZB(2, PAIRS) \
	Q8ZB(3, PAIRS) \
	Q8ZB(4, PAIRSH) \
	Q8ZB(5, PAIRSH) \
	Q8ZB(6, PAIRSH) \
	Q8ZB(7, PAIRSH) \
	TAKE \
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
	VFNMADD231PS PSUM(DI), Z30, Z8

#define Q4KZMINS4 \
	Q4KZMINS2 \
	VFNMADD231PS PB+PSUM(DI), Z30, Z9

#define Q4KZMINS8 \
	Q4KZMINS4 \
	VFNMADD231PS 2*PB+PSUM(DI), Z30, Z10 \
	VFNMADD231PS 3*PB+PSUM(DI), Z30, Z11

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

// Q4KPRE(p) unpacks the scales of the super-block at p into Y3 (d·scale_j) and Z30 (dmin·min_j
// in both halves).
#define Q4KPRE(p) \
	Q4KSC(p) \
	VINSERTF64X4 $1, Y4, Z4, Z30

// Q4KZSB(NEXT, TAKE, MINS, PAIRS, PAIRSH, pairs, last, sc, done): a super-block for every pair,
// with its scales and minimums unpacked (as the AVX2 kernel does, Q4KSC) and its c formed a
// super-block earlier: the minimums' term first, then the sub-blocks in order.
#define Q4KZSB(NEXT, TAKE, MINS, PAIRS, PAIRSH, pairs, last, sc, done) \
	PREFETCHT0   (SI)(R11*1) \
	PREFETCHT0   64(SI)(R11*1) \
	PREFETCHT0   128(SI)(R11*1) \
	MINS \
	ZAHEADC(Q4KPRE, 144, NEXT, pairs, last, sc, done) \
	Q4KZCHUNK(0, PAIRS) \
	Q4KZCHUNK(1, PAIRS) \
	Q4KZCHUNK(2, PAIRSH) \
	Q4KZCHUNK(3, PAIRSH) \
	TAKE \
	ADDQ $144, SI \
	ADDQ $(pairs*PB), DI

// Q6_K. A half of a super-block (128 values, eight 16-value groups g, each with its own scale)
// has, in the AVX2 kernel, one register of eight int32 lanes for each group g, summed into the
// lanes of one vector by unpacking (Q6KSUM): the lanes are the groups. Here the weights are put
// in another order instead, once per row, so that no sum across lanes is left for the tokens:
// eight 256-bit registers R_0..R_7 where R_k's lane g (its int16 lanes 2g, 2g+1) holds values
// 16g+2k and 16g+2k+1 of the half, from group g. Then Σ_k VPDPWSSD(R_k, a in the same order) has in
// lane g the exact integer Σ q·a over group g, what Q6KSUM's unpacking gives, and the float steps
// follow as there: −32·Σa (exact), conversion, ·scale_g, ·s_b(g), and the FMA with d.
//
// The 512-bit registers hold W_k = [R_k | R_k+4] and W'_k = [R_k+4 | R_k] (k = 0..3), and the
// pairs' activations are stored by q6PairActVNNI in the matching order (the "Q6 pair layout"):
// per super-block, pair and half, 640 bytes: chunks 0-3 = [a_t in R_k's order | a_u in R_k+4's],
// chunks 4-7 = [a_t in R_k+4's order | a_u in R_k's] (64 bytes each), so that
// Σ_k VPDPWSSD(W_k, chunk k) + VPDPWSSD(W'_k, chunk 4+k) = [token t's lanes | token u's]; then
// [32·Sum16_t | 32·Sum16_u] (int32, eight groups each) and the activation scales
// [s_t(0 0 1 1 2 2 3 3) | s_u(0 0 1 1 2 2 3 3)] (the half's four blocks, one per two groups).
// The pairs of a super-block follow each other (1280 bytes each), then the next super-block.
//
// The weights are reordered in bytes, before widening. Lane g of R_k takes from ql the low
// nibbles of bytes 16g+2k+e (g < 4) or the high nibbles of bytes 16(g−4)+2k+e (g >= 4): both are
// word k of each 16-byte quarter of ql, so one VPERMW (q6zql) gathers, for every k, its four words
// into one quadword, and unpacking that with itself shifted by four bits gives R_k's sixteen
// bytes of low bits (in the order [R0 R4 R1 R5] and [R2 R6 R3 R7] of 128-bit lanes, which widen
// into W_0..W_3 directly). Its two high bits come from qh bytes 16(g%2)+2k+e, shifted right by
// 2·(g/2): a VPERMW (q6zhe, q6zho) puts qh words k and 8+k in every doubleword of R_k's lane (the
// four doublewords are g = 0-1, 2-3, 4-5, 6-7), a VPROLVD by 4, 2, 0, 30 bits brings each one's
// bits to bits 4-5 of every byte, and a masked OR joins them to the low bits.

// Q6ZB(h, p, e, o): the bytes of the weights of half h of the super-block at p, in e ([R0 R4 R1
// R5] in 128-bit lanes) and o ([R2 R6 R3 R7]). Q6ZX(h, e, o, ye, yo) (ye, yo: the low 256 bits
// of e, o) widens them into Z12..Z15 (W_0..W_3) and Z16..Z19 (W'_0..W'_3), clobbering Y3 and Y4,
// and puts the half's group scales (of the super-block at SI) as floats in both halves of Z7. The kernels do the bytes of a half one half ahead (the next super-block's
// first half while this one's second half is multiplied), off the path to the half's first
// multiply-adds. Z0 holds 0x0F and Z31 0x30 in every byte, Z29, Z28, Z27 the word indices q6zql,
// q6zhe, q6zho, Z30 the rotations. Z1, Z2 and Z5 are clobbered.
#define Q6ZB(h, p, e, o) \
	VPERMW        64*h(p), Z29, Z1 \
	VPSRLW        $4, Z1, Z2 \
	VPUNPCKLQDQ   Z2, Z1, e \
	VPUNPCKHQDQ   Z2, Z1, o \
	VMOVDQU       128+32*h(p), Y5 \
	VPERMW        Z5, Z28, Z1 \
	VPERMW        Z5, Z27, Z2 \
	VPROLVD       Z30, Z1, Z1 \
	VPROLVD       Z30, Z2, Z2 \
	VPANDD        Z0, e, e \
	VPANDD        Z0, o, o \
	VPTERNLOGD    $0xf8, Z31, Z1, e \
	VPTERNLOGD    $0xf8, Z31, Z2, o

// Q6ZB0(p): the first half's bytes, in Z24 and Z25.
#define Q6ZB0(p) \
	Q6ZB(0, p, Z24, Z25)

#define Q6ZX(h, e, o, ye, yo) \
	VPMOVZXBW     ye, Z12 \
	VEXTRACTI64X4 $1, e, Y3 \
	VPMOVZXBW     Y3, Z13 \
	VPMOVZXBW     yo, Z14 \
	VEXTRACTI64X4 $1, o, Y4 \
	VPMOVZXBW     Y4, Z15 \
	VSHUFI64X2    $0x4e, Z12, Z12, Z16 \
	VSHUFI64X2    $0x4e, Z13, Z13, Z17 \
	VSHUFI64X2    $0x4e, Z14, Z14, Z18 \
	VSHUFI64X2    $0x4e, Z15, Z15, Z19 \
	VPMOVSXBD     192+8*h(SI), Y7 \
	VCVTDQ2PS     Y7, Y7 \
	VINSERTF64X4  $1, Y7, Z7, Z7

// Q6ZPAIR(off, acc): one half for one pair of tokens, its chunks at off of the buffer (DI): the
// integer sums in two chains (Z20, Z21), centred, converted, times the group scales (Z7) and the
// activation scales, then the FMA with d (Z26) into acc.
#define Q6ZPAIR(off, acc) \
	VPMADDWD    off(DI), Z12, Z20 \
	VPMADDWD    off+256(DI), Z16, Z21 \
	VPDPWSSD    off+64(DI), Z13, Z20 \
	VPDPWSSD    off+320(DI), Z17, Z21 \
	VPDPWSSD    off+128(DI), Z14, Z20 \
	VPDPWSSD    off+384(DI), Z18, Z21 \
	VPDPWSSD    off+192(DI), Z15, Z20 \
	VPDPWSSD    off+448(DI), Z19, Z21 \
	VPADDD      Z21, Z20, Z20 \
	VPSUBD      off+Q6SUM(DI), Z20, Z20 \
	VCVTDQ2PS   Z20, Z20 \
	VMULPS      Z7, Z20, Z20 \
	VMULPS      off+Q6SC(DI), Z20, Z20 \
	VFMADD231PS Z26, Z20, acc

#define Q6ZPAIRS2(h) \
	Q6ZPAIR(Q6HB*h, Z8)

#define Q6ZPAIRS4(h) \
	Q6ZPAIRS2(h) \
	Q6ZPAIR(Q6PB+Q6HB*h, Z9)

#define Q6ZPAIRS8(h) \
	Q6ZPAIRS4(h) \
	Q6ZPAIR(2*Q6PB+Q6HB*h, Z10) \
	Q6ZPAIR(3*Q6PB+Q6HB*h, Z11)

// Q6ZSB(PAIRS, pairs, last, done): a super-block for every pair: d, then each half's weights
// (their bytes done a half earlier) and pairs.
#define Q6ZSB(PAIRS, pairs, last, done) \
	PREFETCHT0   (SI)(R11*1) \
	PREFETCHT0   64(SI)(R11*1) \
	PREFETCHT0   128(SI)(R11*1) \
	PREFETCHT0   192(SI)(R11*1) \
	MOVWLZX      208(SI), AX \
	VMOVD        AX, X1 \
	VCVTPH2PS    X1, X1 \
	VBROADCASTSS X1, Z26 \
	Q6ZX(0, Z24, Z25, Y24, Y25) \
	Q6ZB(1, SI, Z22, Z23) \
	PAIRS(0) \
	Q6ZX(1, Z22, Z23, Y22, Y23) \
	ZAHEAD(Q6ZB0, 210, last, done) \
	PAIRS(1) \
	ADDQ         $210, SI \
	ADDQ         $(pairs*Q6PB), DI

// Q6ZSETUP: ZSETUP and the constants of Q6ZB.
#define Q6ZSETUP \
	ZSETUP \
	VPBROADCASTD q6zm<>+0(SB), Z0 \
	VPBROADCASTD q6zm<>+4(SB), Z31 \
	VMOVDQU64    q6zql<>(SB), Z29 \
	VMOVDQU64    q6zhe<>(SB), Z28 \
	VMOVDQU64    q6zho<>(SB), Z27 \
	VMOVDQU64    q6zrot<>(SB), Z30

// Q6TOKHALF(p, c01, c23, c45, c67): a token's half at p (64 doublewords, doubleword 8g+k =
// values 16g+2k, 16g+2k+1) in R_k's order T_k (T_k's doubleword g = doubleword 8g+k of the half),
// two per register: c01 = [T_0 | T_1], c23, c45, c67. Two rounds of VPERMT2D: Z1..Z4 take
// T_0..T_3 and T_4..T_7 of groups 0-3 and of groups 4-7 (indices q6zl1a, q6zl1b in Z24, Z25),
// then each output joins two of them (q6zl2a, q6zl2b in Z26, Z27).
#define Q6TOKHALF(p, c01, c23, c45, c67) \
	VMOVDQU64 (p), Z1 \
	VPERMT2D  64(p), Z24, Z1 \
	VMOVDQU64 (p), Z2 \
	VPERMT2D  64(p), Z25, Z2 \
	VMOVDQU64 128(p), Z3 \
	VPERMT2D  192(p), Z24, Z3 \
	VMOVDQU64 128(p), Z4 \
	VPERMT2D  192(p), Z25, Z4 \
	VMOVDQA64 Z1, c01 \
	VPERMT2D  Z3, Z26, c01 \
	VMOVDQA64 Z1, c23 \
	VPERMT2D  Z3, Z27, c23 \
	VMOVDQA64 Z2, c45 \
	VPERMT2D  Z4, Z26, c45 \
	VMOVDQA64 Z2, c67 \
	VPERMT2D  Z4, Z27, c67

// Q6CHUNK(imm, u, t, off): a chunk of the Q6 pair layout, 256 bits of t's register and 256 of u's.
#define Q6CHUNK(imm, u, t, off) \
	VSHUFI64X2 $imm, u, t, Z1 \
	VMOVDQU64  Z1, off(DI)

DATA q6zm<>+0(SB)/4, $0x0f0f0f0f
DATA q6zm<>+4(SB)/4, $0x30303030
GLOBL q6zm<>(SB), RODATA|NOPTR, $8
DATA q6zql<>+0(SB)/8, $0x0018001000080000
DATA q6zql<>+8(SB)/8, $0x001a0012000a0002
DATA q6zql<>+16(SB)/8, $0x001c0014000c0004
DATA q6zql<>+24(SB)/8, $0x001e0016000e0006
DATA q6zql<>+32(SB)/8, $0x0019001100090001
DATA q6zql<>+40(SB)/8, $0x001b0013000b0003
DATA q6zql<>+48(SB)/8, $0x001d0015000d0005
DATA q6zql<>+56(SB)/8, $0x001f0017000f0007
GLOBL q6zql<>(SB), RODATA|NOPTR, $64
DATA q6zhe<>+0(SB)/8, $0x0008000000080000
DATA q6zhe<>+8(SB)/8, $0x0008000000080000
DATA q6zhe<>+16(SB)/8, $0x000c0004000c0004
DATA q6zhe<>+24(SB)/8, $0x000c0004000c0004
DATA q6zhe<>+32(SB)/8, $0x0009000100090001
DATA q6zhe<>+40(SB)/8, $0x0009000100090001
DATA q6zhe<>+48(SB)/8, $0x000d0005000d0005
DATA q6zhe<>+56(SB)/8, $0x000d0005000d0005
GLOBL q6zhe<>(SB), RODATA|NOPTR, $64
DATA q6zho<>+0(SB)/8, $0x000a0002000a0002
DATA q6zho<>+8(SB)/8, $0x000a0002000a0002
DATA q6zho<>+16(SB)/8, $0x000e0006000e0006
DATA q6zho<>+24(SB)/8, $0x000e0006000e0006
DATA q6zho<>+32(SB)/8, $0x000b0003000b0003
DATA q6zho<>+40(SB)/8, $0x000b0003000b0003
DATA q6zho<>+48(SB)/8, $0x000f0007000f0007
DATA q6zho<>+56(SB)/8, $0x000f0007000f0007
GLOBL q6zho<>(SB), RODATA|NOPTR, $64
DATA q6zrot<>+0(SB)/8, $0x0000000200000004
DATA q6zrot<>+8(SB)/8, $0x0000001e00000000
DATA q6zrot<>+16(SB)/8, $0x0000000200000004
DATA q6zrot<>+24(SB)/8, $0x0000001e00000000
DATA q6zrot<>+32(SB)/8, $0x0000000200000004
DATA q6zrot<>+40(SB)/8, $0x0000001e00000000
DATA q6zrot<>+48(SB)/8, $0x0000000200000004
DATA q6zrot<>+56(SB)/8, $0x0000001e00000000
GLOBL q6zrot<>(SB), RODATA|NOPTR, $64
DATA q6zl1a<>+0(SB)/8, $0x0000000800000000
DATA q6zl1a<>+8(SB)/8, $0x0000001800000010
DATA q6zl1a<>+16(SB)/8, $0x0000000900000001
DATA q6zl1a<>+24(SB)/8, $0x0000001900000011
DATA q6zl1a<>+32(SB)/8, $0x0000000a00000002
DATA q6zl1a<>+40(SB)/8, $0x0000001a00000012
DATA q6zl1a<>+48(SB)/8, $0x0000000b00000003
DATA q6zl1a<>+56(SB)/8, $0x0000001b00000013
GLOBL q6zl1a<>(SB), RODATA|NOPTR, $64
DATA q6zl1b<>+0(SB)/8, $0x0000000c00000004
DATA q6zl1b<>+8(SB)/8, $0x0000001c00000014
DATA q6zl1b<>+16(SB)/8, $0x0000000d00000005
DATA q6zl1b<>+24(SB)/8, $0x0000001d00000015
DATA q6zl1b<>+32(SB)/8, $0x0000000e00000006
DATA q6zl1b<>+40(SB)/8, $0x0000001e00000016
DATA q6zl1b<>+48(SB)/8, $0x0000000f00000007
DATA q6zl1b<>+56(SB)/8, $0x0000001f00000017
GLOBL q6zl1b<>(SB), RODATA|NOPTR, $64
DATA q6zl2a<>+0(SB)/8, $0x0000000100000000
DATA q6zl2a<>+8(SB)/8, $0x0000000300000002
DATA q6zl2a<>+16(SB)/8, $0x0000001100000010
DATA q6zl2a<>+24(SB)/8, $0x0000001300000012
DATA q6zl2a<>+32(SB)/8, $0x0000000500000004
DATA q6zl2a<>+40(SB)/8, $0x0000000700000006
DATA q6zl2a<>+48(SB)/8, $0x0000001500000014
DATA q6zl2a<>+56(SB)/8, $0x0000001700000016
GLOBL q6zl2a<>(SB), RODATA|NOPTR, $64
DATA q6zl2b<>+0(SB)/8, $0x0000000900000008
DATA q6zl2b<>+8(SB)/8, $0x0000000b0000000a
DATA q6zl2b<>+16(SB)/8, $0x0000001900000018
DATA q6zl2b<>+24(SB)/8, $0x0000001b0000001a
DATA q6zl2b<>+32(SB)/8, $0x0000000d0000000c
DATA q6zl2b<>+40(SB)/8, $0x0000000f0000000e
DATA q6zl2b<>+48(SB)/8, $0x0000001d0000001c
DATA q6zl2b<>+56(SB)/8, $0x0000001f0000001e
GLOBL q6zl2b<>(SB), RODATA|NOPTR, $64
DATA q6zsp<>+0(SB)/8, $0x0000000000000000
DATA q6zsp<>+8(SB)/8, $0x0000000100000001
DATA q6zsp<>+16(SB)/8, $0x0000000200000002
DATA q6zsp<>+24(SB)/8, $0x0000000300000003
DATA q6zsp<>+32(SB)/8, $0x0000000400000004
DATA q6zsp<>+40(SB)/8, $0x0000000500000005
DATA q6zsp<>+48(SB)/8, $0x0000000600000006
DATA q6zsp<>+56(SB)/8, $0x0000000700000007
GLOBL q6zsp<>(SB), RODATA|NOPTR, $64

// Q4_0: a group is eight 18-byte blocks, weights q−8 with value j in the low nibble of byte j and
// value j+16 in its high one. Z0 holds 0x000F and Z31 8 in every 16-bit lane, Z30 the shift counts
// [0 ×16 | 4 ×16]: the block's 16 bytes, widened into both halves, shifted by those counts, masked
// and centred are W = [w0-15 | w16-31], the AVX2 kernel's Y1 and Y2 (Q40W) side by side.
DATA q40shift<>+0(SB)/8, $0
DATA q40shift<>+8(SB)/8, $0
DATA q40shift<>+16(SB)/8, $0
DATA q40shift<>+24(SB)/8, $0
DATA q40shift<>+32(SB)/8, $0x0004000400040004
DATA q40shift<>+40(SB)/8, $0x0004000400040004
DATA q40shift<>+48(SB)/8, $0x0004000400040004
DATA q40shift<>+56(SB)/8, $0x0004000400040004
GLOBL q40shift<>(SB), RODATA|NOPTR, $64

#define Q40ZSETUP \
	ZSETUP \
	LO4ZN \
	VPSRLW     $3, Z0, Z31 \
	VPSLLW     $3, Z31, Z31 \
	VMOVDQU64  q40shift<>(SB), Z30 \
	VMOVDQU64  q40didx<>(SB), Z26

// Q40ZB(b, PAIRS): block b of the group at SI widened and centred into W (Z1) and W' (Z2), then
// every pair.
#define Q40ZB(b, PAIRS) \
	VBROADCASTI128 18*b+2(SI), Y6 \
	VPMOVZXBW      Y6, Z6 \
	VPSRLVW        Z30, Z6, Z6 \
	VPANDD         Z0, Z6, Z6 \
	VPSUBW         Z31, Z6, Z1 \
	VSHUFI64X2     $0x4e, Z1, Z1, Z2 \
	PAIRS(128*b, b)

// Q40ZGROUP(NEXT, TAKE, PAIRS, PAIRSH, pairs, last, sc, done): Q8ZGROUP for Q4_0.
#define Q40ZGROUP(NEXT, TAKE, PAIRS, PAIRSH, pairs, last, sc, done) \
	PREFETCHT0 (SI)(R11*1) \
	PREFETCHT0 64(SI)(R11*1) \
	PREFETCHT0 128(SI)(R11*1) \
	ZAHEADC(Q40DZ, 144, NEXT, pairs, last, sc, done) \
	Q40ZB(0, PAIRS) \
	Q40ZB(1, PAIRS) \
	Q40ZB(2, PAIRS) \
	Q40ZB(3, PAIRS) \
	Q40ZB(4, PAIRSH) \
	Q40ZB(5, PAIRSH) \
	Q40ZB(6, PAIRSH) \
	Q40ZB(7, PAIRSH) \
	TAKE \
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
	VMOVUPS      Z0, PSC(DI)
	VMOVUPS      (BX), Y0
	VINSERTF64X4 $1, (BX)(R10*1), Z0, Z0
	VMOVUPS      Z0, PSUM(DI)
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

// func dotQ8_0ActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ8_0ActN8VNNI(SB), NOSPLIT, $0-80
	ZSETUP
	VMOVDQU64 q8didx<>(SB), Z26
	Q8DZ(R12)
	MOVQ x+24(FP), AX
	ZNEXT8(AX)
	ZTAKE8

q8z8row:
	ZROWSTART(q8z8rowa, q8z8rowb)

q8z8loop:
	Q8ZGROUP(ZNEXT8, ZTAKE8, PAIRS8, PAIRS8H, 4, q8z8next, q8z8sc, q8z8done)
	DECQ CX
	JNE  q8z8loop
	ZROWEND(ZSTORES8, q8z8row, q8z8rowk, q8z8rown)

// func dotQ8_0ActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ8_0ActN4VNNI(SB), NOSPLIT, $0-80
	ZSETUP
	VMOVDQU64 q8didx<>(SB), Z26
	Q8DZ(R12)
	MOVQ x+24(FP), AX
	ZNEXT4(AX)
	ZTAKE4

q8z4row:
	ZROWSTART(q8z4rowa, q8z4rowb)

q8z4loop:
	Q8ZGROUP(ZNEXT4, ZTAKE4, PAIRS4, PAIRS4H, 2, q8z4next, q8z4sc, q8z4done)
	DECQ CX
	JNE  q8z4loop
	ZROWEND(ZSTORES4, q8z4row, q8z4rowk, q8z4rown)

// func dotQ8_0ActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ8_0ActN2VNNI(SB), NOSPLIT, $0-80
	ZSETUP
	VMOVDQU64 q8didx<>(SB), Z26
	Q8DZ(R12)
	MOVQ x+24(FP), AX
	ZNEXT2(AX)
	ZTAKE2

q8z2row:
	ZROWSTART(q8z2rowa, q8z2rowb)

q8z2loop:
	Q8ZGROUP(ZNEXT2, ZTAKE2, PAIRS2, PAIRS2H, 1, q8z2next, q8z2sc, q8z2done)
	DECQ CX
	JNE  q8z2loop
	ZROWEND(ZSTORES2, q8z2row, q8z2rowk, q8z2rown)

// func dotQ4_KActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ4_KActN8VNNI(SB), NOSPLIT, $0-80
	ZSETUP
	LO4ZN
	Q4KPRE(R12)
	MOVQ x+24(FP), AX
	ZNEXT8(AX)
	ZTAKE8

q4kz8row:
	ZROWSTART(q4kz8rowa, q4kz8rowb)

q4kz8loop:
	Q4KZSB(ZNEXT8, ZTAKE8, Q4KZMINS8, PAIRS8, PAIRS8H, 4, q4kz8next, q4kz8sc, q4kz8done)
	DECQ CX
	JNE  q4kz8loop
	ZROWEND(ZSTORES8, q4kz8row, q4kz8rowk, q4kz8rown)

// func dotQ4_KActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ4_KActN4VNNI(SB), NOSPLIT, $0-80
	ZSETUP
	LO4ZN
	Q4KPRE(R12)
	MOVQ x+24(FP), AX
	ZNEXT4(AX)
	ZTAKE4

q4kz4row:
	ZROWSTART(q4kz4rowa, q4kz4rowb)

q4kz4loop:
	Q4KZSB(ZNEXT4, ZTAKE4, Q4KZMINS4, PAIRS4, PAIRS4H, 2, q4kz4next, q4kz4sc, q4kz4done)
	DECQ CX
	JNE  q4kz4loop
	ZROWEND(ZSTORES4, q4kz4row, q4kz4rowk, q4kz4rown)

// func dotQ4_KActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ4_KActN2VNNI(SB), NOSPLIT, $0-80
	ZSETUP
	LO4ZN
	Q4KPRE(R12)
	MOVQ x+24(FP), AX
	ZNEXT2(AX)
	ZTAKE2

q4kz2row:
	ZROWSTART(q4kz2rowa, q4kz2rowb)

q4kz2loop:
	Q4KZSB(ZNEXT2, ZTAKE2, Q4KZMINS2, PAIRS2, PAIRS2H, 1, q4kz2next, q4kz2sc, q4kz2done)
	DECQ CX
	JNE  q4kz2loop
	ZROWEND(ZSTORES2, q4kz2row, q4kz2rowk, q4kz2rown)

// func q6PairActVNNI(dst *byte, q *int16, scale *float32, sum16 *int32, sbs, pairs, cols int)
// Copies the activations of 2·pairs tokens (cols values each, one after another in q, scale and
// sum16) into the Q6 pair layout at dst (64-byte aligned), for sbs super-blocks.
TEXT ·q6PairActVNNI(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ cols+48(FP), R8
	SHLQ $1, R8                // one token's values in bytes
	MOVQ cols+48(FP), R10
	SHRQ $3, R10               // one token's scales in bytes
	MOVQ cols+48(FP), R11
	SHRQ $2, R11               // one token's 16-value sums in bytes
	VMOVDQU64 q6zl1a<>(SB), Z24
	VMOVDQU64 q6zl1b<>(SB), Z25
	VMOVDQU64 q6zl2a<>(SB), Z26
	VMOVDQU64 q6zl2b<>(SB), Z27
	VMOVDQU64 q6zsp<>(SB), Z23
	XORQ R12, R12              // the super-block

q6psb:
	MOVQ R12, SI
	SHLQ $9, SI
	ADDQ q+8(FP), SI           // token 0's values of the super-block
	MOVQ R12, DX
	SHLQ $5, DX
	ADDQ scale+16(FP), DX      // its scales
	MOVQ R12, BX
	SHLQ $6, BX
	ADDQ sum16+24(FP), BX      // its 16-value sums
	MOVQ pairs+40(FP), CX

q6ppair:
	XORQ R9, R9                // the half: 0, then 1

q6phalf:
	MOVQ R9, AX
	SHLQ $8, AX
	ADDQ SI, AX                // token t's half
	Q6TOKHALF(AX, Z8, Z9, Z10, Z11)
	ADDQ R8, AX                // token u's half
	Q6TOKHALF(AX, Z12, Z13, Z14, Z15)
	Q6CHUNK(0x44, Z14, Z8, 0)
	Q6CHUNK(0xee, Z14, Z8, 64)
	Q6CHUNK(0x44, Z15, Z9, 128)
	Q6CHUNK(0xee, Z15, Z9, 192)
	Q6CHUNK(0x44, Z12, Z10, 256)
	Q6CHUNK(0xee, Z12, Z10, 320)
	Q6CHUNK(0x44, Z13, Z11, 384)
	Q6CHUNK(0xee, Z13, Z11, 448)
	MOVQ R9, AX
	SHLQ $5, AX
	ADDQ BX, AX                // token t's 16-value sums of the half
	VMOVDQU      (AX), Y1
	VINSERTI64X4 $1, (AX)(R11*1), Z1, Z1
	VPSLLD       $5, Z1, Z1
	VMOVDQU64    Z1, Q6SUM(DI)
	MOVQ R9, AX
	SHLQ $4, AX
	ADDQ DX, AX                // token t's scales of the half
	VMOVUPS     (AX), X1
	VINSERTF128 $1, (AX)(R10*1), Y1, Y1
	VPERMPS     Z1, Z23, Z1
	VMOVUPS     Z1, Q6SC(DI)
	ADDQ $Q6HB, DI
	INCQ R9
	CMPQ R9, $2
	JLT  q6phalf
	LEAQ (SI)(R8*2), SI
	LEAQ (DX)(R10*2), DX
	LEAQ (BX)(R11*2), BX
	DECQ CX
	JNE  q6ppair
	INCQ R12
	CMPQ R12, sbs+32(FP)
	JLT  q6psb
	VZEROUPPER
	RET

// func dotQ6_KActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ6_KActN8VNNI(SB), NOSPLIT, $0-80
	Q6ZSETUP
	Q6ZB0(R12)

q6z8row:
	ZROWSTART(q6z8rowa, q6z8rowb)

q6z8loop:
	Q6ZSB(Q6ZPAIRS8, 4, q6z8next, q6z8done)
	DECQ CX
	JNE  q6z8loop
	ZROWEND(ZSTORES8, q6z8row, q6z8rowk, q6z8rown)

// func dotQ6_KActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ6_KActN4VNNI(SB), NOSPLIT, $0-80
	Q6ZSETUP
	Q6ZB0(R12)

q6z4row:
	ZROWSTART(q6z4rowa, q6z4rowb)

q6z4loop:
	Q6ZSB(Q6ZPAIRS4, 2, q6z4next, q6z4done)
	DECQ CX
	JNE  q6z4loop
	ZROWEND(ZSTORES4, q6z4row, q6z4rowk, q6z4rown)

// func dotQ6_KActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ6_KActN2VNNI(SB), NOSPLIT, $0-80
	Q6ZSETUP
	Q6ZB0(R12)

q6z2row:
	ZROWSTART(q6z2rowa, q6z2rowb)

q6z2loop:
	Q6ZSB(Q6ZPAIRS2, 1, q6z2next, q6z2done)
	DECQ CX
	JNE  q6z2loop
	ZROWEND(ZSTORES2, q6z2row, q6z2rowk, q6z2rown)

// func dotQ4_0ActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ4_0ActN8VNNI(SB), NOSPLIT, $0-80
	Q40ZSETUP
	Q40DZ(R12)
	MOVQ x+24(FP), AX
	ZNEXT8(AX)
	ZTAKE8

q40z8row:
	ZROWSTART(q40z8rowa, q40z8rowb)

q40z8loop:
	Q40ZGROUP(ZNEXT8, ZTAKE8, PAIRS8, PAIRS8H, 4, q40z8next, q40z8sc, q40z8done)
	DECQ CX
	JNE  q40z8loop
	ZROWEND(ZSTORES8, q40z8row, q40z8rowk, q40z8rown)

// func dotQ4_0ActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ4_0ActN4VNNI(SB), NOSPLIT, $0-80
	Q40ZSETUP
	Q40DZ(R12)
	MOVQ x+24(FP), AX
	ZNEXT4(AX)
	ZTAKE4

q40z4row:
	ZROWSTART(q40z4rowa, q40z4rowb)

q40z4loop:
	Q40ZGROUP(ZNEXT4, ZTAKE4, PAIRS4, PAIRS4H, 2, q40z4next, q40z4sc, q40z4done)
	DECQ CX
	JNE  q40z4loop
	ZROWEND(ZSTORES4, q40z4row, q40z4rowk, q40z4rown)

// func dotQ4_0ActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
TEXT ·dotQ4_0ActN2VNNI(SB), NOSPLIT, $0-80
	Q40ZSETUP
	Q40DZ(R12)
	MOVQ x+24(FP), AX
	ZNEXT2(AX)
	ZTAKE2

q40z2row:
	ZROWSTART(q40z2rowa, q40z2rowb)

q40z2loop:
	Q40ZGROUP(ZNEXT2, ZTAKE2, PAIRS2, PAIRS2H, 1, q40z2next, q40z2sc, q40z2done)
	DECQ CX
	JNE  q40z2loop
	ZROWEND(ZSTORES2, q40z2row, q40z2rowk, q40z2rown)
