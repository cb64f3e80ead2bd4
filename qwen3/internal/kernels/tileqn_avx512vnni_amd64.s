#include "textflag.h"
#include "quant_amd64.h"

// TileQN with AVX-512 VNNI: the tokens are the lanes.
//
// A core loads at most two vectors a cycle and multiplies two, so a kernel that loads as often as
// it multiplies waits on its loads. The 32-token kernel: Z0..Z7 hold rows 0-7 for tokens 0-15 of
// two groups, Z8..Z15 the same rows for tokens 16-31; per column pair it loads both groups' pairs
// and broadcasts each row's weight pair into a register once for its two VPDPWSSD: 10 loads per
// 16 instructions. The 16-token kernel has one group to share a broadcast with, so it shares one
// between two column pairs instead: per pair of pairs j, j+1 it broadcasts a row's two weight
// pairs as one 64-bit word (VPBROADCASTQ: lanes 2m hold pair j, lanes 2m+1 pair j+1) and feeds
// it two registers of inputs, A (lane 2m token 2m's pair j, lane 2m+1 token 2m+1's pair j+1) and
// A' (lane 2m token 2m+1's pair j, lane 2m+1 token 2m's pair j+1), which ActN lays out so for
// the group this kernel takes (its crossed layout: two loads, where making them from pairs j and
// j+1 for every group of 8 rows took two blends and a swap of neighbouring lanes, three
// instructions per 16 multiply-adds; on a Zen 4 core they cost Q6_K about a tenth of its speed,
// BenchmarkTileQN). Z0..Z7 sum A for rows 0-7, Z8..Z15
// sum A'; at the flush, Z8+r with its neighbouring lanes swapped, added to Zr, is each token's
// whole sum in its own lane, the same exact int32 as one register summing all 16 pairs. Ten
// loads per 16 instructions again (before: one broadcast from memory per instruction, 17 loads
// per 16, and 187 against 220 multiply-adds per ns of the prompt's TileQ in the L1;
// BenchmarkTileQN).
//
// At the end of a block each row's sums are converted and flushed as TileQ flushes them
// (c = S·s, o = fma(float(sum), c, o)), the o of the rows waiting in the frame between blocks;
// after the last block the sums are turned around in registers (TRANSPOSE32) and
// each token's rows stored with one instruction. The weights are widened a block ahead: while
// the column pairs of one block are multiplied, the next block's rows are widened into the other
// of two buffers (the next group's first block at a group's last), so that a block's first
// multiply-adds never wait for its weights to come from memory and be widened.
//
//	func tileQN16Q8_0VNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)
//	func tileQN32Q8_0VNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)
//
// rows 8·groups of nb Q8_0 blocks each,
// rowBytes apart from w; x and xs the (first) token group's pairs and scales in ActN's layout,
// the second following the first; out[t*outStride+r] for t < ntok (<= 16, or 17..32).
//
// Registers: SI the group's first row, R8 rowBytes, DI and R9 the block's input pairs and scales,
// CX the blocks left, BX the frame's scratch, R10 and R11 the current and the next block's
// buffer, AX the next block's row being widened (R12 bytes on to the next row: rowBytes, or 0 at
// the last block of the last group, which widens the scratch's own bytes again), R13 the block
// in the group's first row, R14 the next group's first row.

// The frame's scratch, from BX (64-byte aligned): QNO the rows' sums o (8 rows x 16 tokens, or 8
// x 32; room for 16 x 16), and two block buffers QNB0, QNB1, each the rows' weights widened to int16 (QNW: 64 bytes
// a row) and their scales S (QNS). Frame variables: the groups left (left) and where the group's
// outputs go (outp).
#define QNO 0
#define QNB0 1024
#define QNB1 2304
#define QNW 0
#define QNS 1024


// PAIRP(j): column pairs j and j+1 (j even) of the block (weights in R10) for the 8 rows and the
// 16 tokens: A in Z18, A' in Z26, as the group's crossed layout holds them (ActN), each row's two
// weight pairs in Z27.
#define PAIRPR(j, r, za, zb) \
	VPBROADCASTQ 64*r+4*j(R10), Z27 \
	VPDPWSSD     Z27, Z18, za \
	VPDPWSSD     Z27, Z26, zb

#define PAIRP(j) \
	VMOVDQU32 64*j(DI), Z18 \
	VMOVDQU32 64*j+64(DI), Z26 \
	PAIRPR(j, 0, Z0, Z8) \
	PAIRPR(j, 1, Z1, Z9) \
	PAIRPR(j, 2, Z2, Z10) \
	PAIRPR(j, 3, Z3, Z11) \
	PAIRPR(j, 4, Z4, Z12) \
	PAIRPR(j, 5, Z5, Z13) \
	PAIRPR(j, 6, Z6, Z14) \
	PAIRPR(j, 7, Z7, Z15)

// COMBINE8: each row's sums of A' (Z8..Z15), neighbouring lanes swapped, added to its sums of A
// (Z0..Z7): token t's whole block sum in lane t.
#define COMBINE1(za, zb) \
	VPSHUFD $0xb1, zb, zb \
	VPADDD  zb, za, za

#define COMBINE8 \
	COMBINE1(Z0, Z8) \
	COMBINE1(Z1, Z9) \
	COMBINE1(Z2, Z10) \
	COMBINE1(Z3, Z11) \
	COMBINE1(Z4, Z12) \
	COMBINE1(Z5, Z13) \
	COMBINE1(Z6, Z14) \
	COMBINE1(Z7, Z15)

// PAIR32(j): column pair j of the block for the 8 rows and both token groups (the second's pairs
// DX bytes after the first's).
#define PAIR32R(j, r, za, zb) \
	VPBROADCASTD 64*r+4*j(R10), Z18 \
	VPDPWSSD     Z18, Z16, za \
	VPDPWSSD     Z18, Z17, zb

#define PAIR32(j) \
	VMOVDQU32 64*j(DI), Z16 \
	VMOVDQU32 64*j(DI)(DX*1), Z17 \
	PAIR32R(j, 0, Z0, Z8) \
	PAIR32R(j, 1, Z1, Z9) \
	PAIR32R(j, 2, Z2, Z10) \
	PAIR32R(j, 3, Z3, Z11) \
	PAIR32R(j, 4, Z4, Z12) \
	PAIR32R(j, 5, Z5, Z13) \
	PAIR32R(j, 6, Z6, Z14) \
	PAIR32R(j, 7, Z7, Z15)

#define ZERO16 \
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
	VPXORD Z15, Z15, Z15

// FLUSH1(r, z): row r's sums z into its o: o = fma(float(z), S_r·s, o), left in z and in QNO.
// Z17 holds the block's 16 input scales s.
#define FLUSH1(r, z) \
	VMULPS.BCST QNS+4*r(R10), Z17, Z18 \
	VCVTDQ2PS   z, z \
	VFMADD213PS QNO+64*r(BX), Z18, z \
	VMOVUPS     z, QNO+64*r(BX)

#define FLUSHP \
	COMBINE8 \
	VMOVUPS (R9), Z17 \
	FLUSH1(0, Z0) \
	FLUSH1(1, Z1) \
	FLUSH1(2, Z2) \
	FLUSH1(3, Z3) \
	FLUSH1(4, Z4) \
	FLUSH1(5, Z5) \
	FLUSH1(6, Z6) \
	FLUSH1(7, Z7)

// FLUSH2(r, za, zb): row r's sums of both groups into its o (QNO + 128·r), as FLUSH1; Z19 and
// Z20 hold the two groups' input scales.
#define FLUSH2(r, za, zb) \
	VMULPS.BCST QNS+4*r(R10), Z19, Z18 \
	VCVTDQ2PS   za, za \
	VFMADD213PS QNO+128*r(BX), Z18, za \
	VMOVUPS     za, QNO+128*r(BX) \
	VMULPS.BCST QNS+4*r(R10), Z20, Z18 \
	VCVTDQ2PS   zb, zb \
	VFMADD213PS QNO+128*r+64(BX), Z18, zb \
	VMOVUPS     zb, QNO+128*r+64(BX)

#define FLUSH32 \
	MOVQ    DX, AX \
	SHRQ    $3, AX \
	VMOVUPS (R9), Z19 \
	VMOVUPS (R9)(AX*1), Z20 \
	FLUSH2(0, Z0, Z8) \
	FLUSH2(1, Z1, Z9) \
	FLUSH2(2, Z2, Z10) \
	FLUSH2(3, Z3, Z11) \
	FLUSH2(4, Z4, Z12) \
	FLUSH2(5, Z5, Z13) \
	FLUSH2(6, Z6, Z14) \
	FLUSH2(7, Z7, Z15)

// QN8W(r, buf): row r's block at AX widened into buf's QNW, its d into word r of X21; AX moves
// R12 on.
#define QN8W(r, buf) \
	VPMOVSXBW 2(AX), Z19 \
	VMOVDQU64 Z19, QNW+64*r(buf) \
	VPINSRW   $r, (AX), X21, X21 \
	ADDQ      R12, AX

// QN8S8(buf): the 8 rows' d (X21) as floats, into buf's QNS.
#define QN8S8(buf) \
	VCVTPH2PS X21, Y19 \
	VMOVUPS   Y19, QNS(buf)

// The column pairs of a block with the next block's rows widened among them: one row after each
// pair of pairs (16 tokens), or after every other pair (32).
#define PAIRSPQ8 \
	PAIRP(0) \
	QN8W(0, R11) \
	PAIRP(2) \
	QN8W(1, R11) \
	PAIRP(4) \
	QN8W(2, R11) \
	PAIRP(6) \
	QN8W(3, R11) \
	PAIRP(8) \
	QN8W(4, R11) \
	PAIRP(10) \
	QN8W(5, R11) \
	PAIRP(12) \
	QN8W(6, R11) \
	PAIRP(14) \
	QN8W(7, R11) \
	QN8S8(R11)

#define PAIRS32Q8 \
	PAIR32(0) \
	QN8W(0, R11) \
	PAIR32(1) \
	PAIR32(2) \
	QN8W(1, R11) \
	PAIR32(3) \
	PAIR32(4) \
	QN8W(2, R11) \
	PAIR32(5) \
	PAIR32(6) \
	QN8W(3, R11) \
	PAIR32(7) \
	PAIR32(8) \
	QN8W(4, R11) \
	PAIR32(9) \
	PAIR32(10) \
	QN8W(5, R11) \
	PAIR32(11) \
	PAIR32(12) \
	QN8W(6, R11) \
	PAIR32(13) \
	PAIR32(14) \
	QN8W(7, R11) \
	PAIR32(15) \
	QN8S8(R11)

// FIRST8Q8: the first group's first block widened into R10's buffer (AX at it).
#define FIRST8Q8 \
	QN8W(0, R10) \
	QN8W(1, R10) \
	QN8W(2, R10) \
	QN8W(3, R10) \
	QN8W(4, R10) \
	QN8W(5, R10) \
	QN8W(6, R10) \
	QN8W(7, R10) \
	QN8S8(R10)

// TRANSPOSE32 turns the sums in Z0..Z15 (rows 0-7 of tokens 0-15 in Z0..Z7, lane t token t; the
// same rows of tokens 16-31 in Z8..Z15) into the tokens' rows, token t's 8 rows and token 16+t's in
// one register, and stores each token's (if t < ntok) at R12 + t·R13: 32-bit and 64-bit
// interleaves within 128-bit lanes (Z16..Z31, then back into Z0..Z15), then the 128-bit lanes
// joined (JOIN4). The 16-token kernel uses it too, with ntok <= 16: what Z8..Z15 hold then is never
// stored.
#define UNPACK32(a, b, lo, hi) \
	VUNPCKLPS b, a, lo \
	VUNPCKHPS b, a, hi

#define UNPACK64(a, b, c, d, o0, o1, o2, o3) \
	VUNPCKLPD c, a, o0 \
	VUNPCKHPD c, a, o1 \
	VUNPCKLPD d, b, o2 \
	VUNPCKHPD d, b, o3

#define JOIN4(b0, b4, b8, b12) \
	VSHUFF32X4 $0x44, b4, b0, Z16 \
	VSHUFF32X4 $0xee, b4, b0, Z17 \
	VSHUFF32X4 $0x44, b12, b8, Z18 \
	VSHUFF32X4 $0xee, b12, b8, Z19 \
	VSHUFF32X4 $0x88, Z18, Z16, Z20 \
	VSHUFF32X4 $0xdd, Z18, Z16, Z21 \
	VSHUFF32X4 $0x88, Z19, Z17, Z22 \
	VSHUFF32X4 $0xdd, Z19, Z17, Z23

#define INTERLEAVE16 \
	UNPACK32(Z0, Z1, Z16, Z17) \
	UNPACK32(Z2, Z3, Z18, Z19) \
	UNPACK32(Z4, Z5, Z20, Z21) \
	UNPACK32(Z6, Z7, Z22, Z23) \
	UNPACK32(Z8, Z9, Z24, Z25) \
	UNPACK32(Z10, Z11, Z26, Z27) \
	UNPACK32(Z12, Z13, Z28, Z29) \
	UNPACK32(Z14, Z15, Z30, Z31) \
	UNPACK64(Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3) \
	UNPACK64(Z20, Z21, Z22, Z23, Z4, Z5, Z6, Z7) \
	UNPACK64(Z24, Z25, Z26, Z27, Z8, Z9, Z10, Z11) \
	UNPACK64(Z28, Z29, Z30, Z31, Z12, Z13, Z14, Z15)

// STORE2(z, y, t, skip): token t's 8 rows (the low half of z) and token 16+t's (the high half).
#define STORE2(z, y, t, skip) \
	MOVQ          ntok+64(FP), DX \
	CMPQ          DX, $t \
	JLE           skip \
	MOVQ          $t, AX \
	IMULQ         R13, AX \
	VMOVUPS       y, (R12)(AX*1) \
	CMPQ          DX, $(16+t) \
	JLE           skip \
	MOVQ          $(16+t), AX \
	IMULQ         R13, AX \
	VEXTRACTF32X8 $1, z, Y24 \
	VMOVUPS       Y24, (R12)(AX*1) \
skip:

#define STORE4T(m, s0, s1, s2, s3) \
	STORE2(Z20, Y20, m, s0) \
	STORE2(Z21, Y21, 4+m, s1) \
	STORE2(Z22, Y22, 8+m, s2) \
	STORE2(Z23, Y23, 12+m, s3)

#define TRANSPOSE32 \
	INTERLEAVE16 \
	JOIN4(Z0, Z4, Z8, Z12) \
	STORE4T(0, st0, st4, st8, st12) \
	JOIN4(Z1, Z5, Z9, Z13) \
	STORE4T(1, st1, st5, st9, st13) \
	JOIN4(Z2, Z6, Z10, Z14) \
	STORE4T(2, st2, st6, st10, st14) \
	JOIN4(Z3, Z7, Z11, Z15) \
	STORE4T(3, st3, st7, st11, st15)

// ZEROOT: every row's o = 0.
#define ZEROOT \
	VPXORD  Z16, Z16, Z16 \
	VMOVUPS Z16, QNO(BX) \
	VMOVUPS Z16, QNO+64(BX) \
	VMOVUPS Z16, QNO+128(BX) \
	VMOVUPS Z16, QNO+192(BX) \
	VMOVUPS Z16, QNO+256(BX) \
	VMOVUPS Z16, QNO+320(BX) \
	VMOVUPS Z16, QNO+384(BX) \
	VMOVUPS Z16, QNO+448(BX) \
	VMOVUPS Z16, QNO+512(BX) \
	VMOVUPS Z16, QNO+576(BX) \
	VMOVUPS Z16, QNO+640(BX) \
	VMOVUPS Z16, QNO+704(BX) \
	VMOVUPS Z16, QNO+768(BX) \
	VMOVUPS Z16, QNO+832(BX) \
	VMOVUPS Z16, QNO+896(BX) \
	VMOVUPS Z16, QNO+960(BX)

// PREFETCHN(rows, bb): the next group's bytes, a block's share of them (rows·bb bytes, at
// rows·(R13−SI) from its start R14, bb the bytes of a block): over its blocks a group asks for
// the next one in the order it lies in memory, ten lines a block at most.
#define PREFETCHN(rows, bb) \
	MOVQ       R13, AX \
	SUBQ       SI, AX \
	IMULQ      $rows, AX \
	ADDQ       R14, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 64(AX) \
	PREFETCHT0 128(AX) \
	PREFETCHT0 192(AX) \
	PREFETCHT0 256(AX) \
	PREFETCHT0 320(AX) \
	PREFETCHT0 384(AX) \
	PREFETCHT0 448(AX) \
	PREFETCHT0 512(AX) \
	PREFETCHT0 576(AX)

// NEXTBLOCK(bb, done): where the next block's rows are widened from (AX, R12 on per row): the next
// block of the group's rows, or at its last block the next group's first (R14), or at the last
// group's last nothing: the scratch's own first bytes, again and again; done is its label.
#define NEXTBLOCK(bb, done) \
	MOVQ R8, R12 \
	LEAQ bb(R13), AX \
	CMPQ CX, $1 \
	JNE  done \
	MOVQ R14, AX \
	CMPQ left-8(SP), $1 \
	JNE  done \
	MOVQ BX, AX \
	XORQ R12, R12 \
done:

// KSTART(frame): a kernel's start: BX the scratch of its frame of frame bytes (from
// scratch-frame(SP), rounded up to 64), SI the first row, R8 rowBytes, and in the frame the groups
// left (left) and where their outputs go (outp); with no groups, straight to done.
#define KSTART(frame) \
	LEAQ  scratch-frame(SP), BX \
	ADDQ  $63, BX \
	ANDQ  $~63, BX \
	MOVQ  w+0(FP), SI \
	MOVQ  rowBytes+8(FP), R8 \
	MOVQ  groups+16(FP), AX \
	TESTQ AX, AX \
	JEQ   done \
	MOVQ  AX, left-8(SP) \
	MOVQ  out+48(FP), AX \
	MOVQ  AX, outp-16(SP)

// KEND(rows, TRANSPOSE, SETUP): a group's end: its sums turned around and stored by TRANSPOSE,
// which takes every register, the constants SETUP makes set again, and on to the next group (R14)
// until none is left.
#define KEND(rows, TRANSPOSE, SETUP) \
	MOVQ  outp-16(SP), R12 \
	MOVQ  outStride+56(FP), R13 \
	SHLQ  $2, R13 \
	TRANSPOSE \
	SETUP \
	MOVQ  R14, SI \
	ADDQ  $(4*rows), outp-16(SP) \
	DECQ  left-8(SP) \
	JNE   group \
done: \
	VZEROUPPER \
	RET

// TILEQN(rows, bb, SETUP, FIRST, PAIRS, FLUSH, TRANSPOSE): the kernel for rows rows per group,
// bb bytes a block.
#define TILEQN(rows, bb, SETUP, FIRST, PAIRS, FLUSH, TRANSPOSE) \
	KSTART(3728) \
	SETUP \
	LEAQ  QNB0(BX), R10 \
	LEAQ  QNB1(BX), R11 \
	MOVQ  SI, AX \
	MOVQ  R8, R12 \
	FIRST \
group: \
	ZEROOT \
	MOVQ  R8, R14 \
	IMULQ $rows, R14 \
	ADDQ  SI, R14 \
	MOVQ  SI, R13 \
	MOVQ  x+24(FP), DI \
	MOVQ  xs+32(FP), R9 \
	MOVQ  nb+40(FP), CX \
block: \
	PREFETCHN(rows, bb) \
	NEXTBLOCK(bb, chosen) \
	ZERO16 \
	PAIRS \
	FLUSH \
	XCHGQ R10, R11 \
	ADDQ  $bb, R13 \
	ADDQ  $1024, DI \
	ADDQ  $128, R9 \
	DECQ  CX \
	JNE   block \
	KEND(rows, TRANSPOSE, SETUP)

// SETUPP: nothing (the 16-token kernel's inputs come as PAIRP takes them); SETUP32: DX the
// distance from the first token group's pairs to the second's.
#define SETUPP

#define SETUP32 \
	MOVQ nb+40(FP), DX \
	SHLQ $10, DX

TEXT ·tileQN16Q8_0VNNI(SB), 0, $3728-72
	TILEQN(8, 34, SETUPP, FIRST8Q8, PAIRSPQ8, FLUSHP, TRANSPOSE32)

TEXT ·tileQN32Q8_0VNNI(SB), 0, $3728-72
	TILEQN(8, 34, SETUP32, FIRST8Q8, PAIRS32Q8, FLUSH32, TRANSPOSE32)

// Q4_0: QN40W(r, buf) widens row r's block at AX (d, then byte j: value j in its low nibble,
// 16+j in its high one) into buf's QNW as values minus 8, its d into X21 as QN8W does. Z30 holds
// 0x000F and Z31 8 in every 16-bit lane (SETUPPQ4, SETUP32Q4).
#define QN40W(r, buf) \
	VPMOVZXBW    2(AX), Y19 \
	VPSRLW       $4, Y19, Y20 \
	VPANDD       Y30, Y19, Y19 \
	VINSERTI64X4 $1, Y20, Z19, Z19 \
	VPSUBW       Z31, Z19, Z19 \
	VMOVDQU64    Z19, QNW+64*r(buf) \
	VPINSRW      $r, (AX), X21, X21 \
	ADDQ         R12, AX

#define SETUPQ4 \
	VPTERNLOGD   $0xff, Z30, Z30, Z30 \
	VPSRLW       $12, Z30, Z30 \
	VPSRLW       $3, Z30, Z31 \
	VPSLLW       $3, Z31, Z31

#define SETUPPQ4 \
	SETUPP \
	SETUPQ4

#define SETUP32Q4 \
	SETUP32 \
	SETUPQ4

#define PAIRSPQ4 \
	PAIRP(0) \
	QN40W(0, R11) \
	PAIRP(2) \
	QN40W(1, R11) \
	PAIRP(4) \
	QN40W(2, R11) \
	PAIRP(6) \
	QN40W(3, R11) \
	PAIRP(8) \
	QN40W(4, R11) \
	PAIRP(10) \
	QN40W(5, R11) \
	PAIRP(12) \
	QN40W(6, R11) \
	PAIRP(14) \
	QN40W(7, R11) \
	QN8S8(R11)

#define PAIRS32Q4 \
	PAIR32(0) \
	QN40W(0, R11) \
	PAIR32(1) \
	PAIR32(2) \
	QN40W(1, R11) \
	PAIR32(3) \
	PAIR32(4) \
	QN40W(2, R11) \
	PAIR32(5) \
	PAIR32(6) \
	QN40W(3, R11) \
	PAIR32(7) \
	PAIR32(8) \
	QN40W(4, R11) \
	PAIR32(9) \
	PAIR32(10) \
	QN40W(5, R11) \
	PAIR32(11) \
	PAIR32(12) \
	QN40W(6, R11) \
	PAIR32(13) \
	PAIR32(14) \
	QN40W(7, R11) \
	PAIR32(15) \
	QN8S8(R11)

#define FIRST8Q4 \
	QN40W(0, R10) \
	QN40W(1, R10) \
	QN40W(2, R10) \
	QN40W(3, R10) \
	QN40W(4, R10) \
	QN40W(5, R10) \
	QN40W(6, R10) \
	QN40W(7, R10) \
	QN8S8(R10)

TEXT ·tileQN16Q4_0VNNI(SB), 0, $3728-72
	TILEQN(8, 18, SETUPPQ4, FIRST8Q4, PAIRSPQ4, FLUSHP, TRANSPOSE32)

TEXT ·tileQN32Q4_0VNNI(SB), 0, $3728-72
	TILEQN(8, 18, SETUP32Q4, FIRST8Q4, PAIRS32Q4, FLUSH32, TRANSPOSE32)

// The K-quants (Q4_K, Q6_K): a super-block of 256 values is eight of the inputs' 32-value blocks.
// Both kernels take 8 rows at a time. A super-block's quants are widened into a buffer of eight
// blocks of the rows' pairs, 512 bytes apart (a row's 64 bytes of a block at 64·r), and its
// scales go 8192 bytes past it (64 bytes a row: Q4_K's eight S = d·scale_j then eight M =
// dmin·min_j, Q6_K's sixteen S = d·scale_g of its 16-value groups); a block's flush reads its S
// (and M) there, R11 moving on by a block's share each time. No sums are kept across blocks (they
// wait in QNO). The 32-token kernel decodes a super-block's 8 rows at once, with every register
// free, into QKW (scales at QKS = QKW + 8192); the 16-token kernel decodes the next super-block
// into the other of two buffers (QKW and QKW+4096, each with its scales) while it multiplies
// this one, a row in each of its eight blocks, among the pairs of pairs. Decoding them at once was
// about 12% of its time: BenchmarkTileQN x/16 with the decoding left out (timing only, 2026-11-28)
// went from 179 to 205 multiply-adds per ns for Q4_K, 172 to 195 for Q6_K; with only the quants'
// widening left out, 194 and 190 (so Q4_K's scales were about 5%, Q6_K's next to nothing).
#define QKW 1024
#define QKS 9216

// Q4KSE(s, d): the scales of the super-block at s, as Q4KSC of quant_amd64.h unpacks them, into
// the row's scales 8192 bytes past d: the same operations in their EVEX forms, so that they can
// use X21-X24, free among the pairs (VEX forms reach X0-X15 only; Q4KSC keeps them, for the AVX2
// dots, where EVEX forms do not run).
#define Q4KSE(s, d) \
	VMOVDQU32    4(s), X23 \
	VPSHUFD      $0x98, X23, X24 \
	VPSRLVD      q4kshift<>(SB), X24, X24 \
	VPANDD       q4kmask1<>(SB), X24, X24 \
	VPSHUFD      $0x50, X23, X21 \
	VPSRLD       $2, X21, X21 \
	VPANDD       q4kmask2<>(SB), X21, X21 \
	VPORD        X21, X24, X24 \
	VPMOVZXBD    X24, Y21 \
	VCVTDQ2PS    Y21, Y21 \
	VPSHUFD      $0xee, X24, X24 \
	VPMOVZXBD    X24, Y22 \
	VCVTDQ2PS    Y22, Y22 \
	VPBROADCASTW (s), X23 \
	VCVTPH2PS    X23, Y23 \
	VMULPS       Y21, Y23, Y21 \
	VMOVUPS      Y21, 8192(d) \
	VPBROADCASTW 2(s), X23 \
	VCVTPH2PS    X23, Y23 \
	VMULPS       Y22, Y23, Y22 \
	VMOVUPS      Y22, 8192+32(d)

// Q4KCH(s, d, c): chunk c of the super-block at s (32 bytes: block 2c in the low nibbles, 2c+1 in
// the high) into blocks 2c and 2c+1 of the row whose block 0 is at d. Z30 holds 0x000F in every
// 16-bit lane.
#define Q4KCH(s, d, c) \
	VPMOVZXBW 16+32*c(s), Z19 \
	VPANDD    Z30, Z19, Z20 \
	VMOVDQU64 Z20, (2*c)*512(d) \
	VPSRLW    $4, Z19, Z19 \
	VMOVDQU64 Z19, (2*c+1)*512(d)

#define Q4KQ(s, d) \
	Q4KCH(s, d, 0) \
	Q4KCH(s, d, 1) \
	Q4KCH(s, d, 2) \
	Q4KCH(s, d, 3)

// Q6KSE(s, d): the sixteen scales d·scale_g of the super-block at s into the row's scales 8192
// bytes past d.
#define Q6KSE(s, d) \
	VPMOVSXBD    192(s), Z19 \
	VCVTDQ2PS    Z19, Z19 \
	VPBROADCASTW 208(s), X20 \
	VCVTPH2PS    X20, X20 \
	VBROADCASTSS X20, Z20 \
	VMULPS       Z19, Z20, Z19 \
	VMOVUPS      Z19, 8192(d)

// Q6KLO, Q6KHI(src, hshift, sub, d): block sub of the row at d: the low 4 bits from src (its low
// nibbles, or its high ones), the high 2 from the qh bytes (Z23) shifted into bits 4-5, minus 32.
// Z30 holds 0x000F, Z29 0x0030, Z28 32 in every 16-bit lane; Z21 and Z22 are scratch.
#define Q6KLO(src, hshift, sub, d) \
	VPANDD     Z30, src, Z21 \
	VPSLLW     $hshift, Z23, Z22 \
	VPTERNLOGD $0xf8, Z29, Z22, Z21 \
	VPSUBW     Z28, Z21, Z21 \
	VMOVDQU64  Z21, (sub)*512(d)

#define Q6KHI(src, hshift, sub, d) \
	VPSRLW     $4, src, Z21 \
	VPSRLW     $hshift, Z23, Z22 \
	VPTERNLOGD $0xf8, Z29, Z22, Z21 \
	VPSUBW     Z28, Z21, Z21 \
	VMOVDQU64  Z21, (sub)*512(d)

// Q6KHALF(h, s, d): half h (blocks 4h..4h+3) of the super-block at s into the row at d.
#define Q6KHALF(h, s, d) \
	VPMOVZXBW 64*h(s), Z19 \
	VPMOVZXBW 64*h+32(s), Z20 \
	VPMOVZXBW 128+32*h(s), Z23 \
	Q6KLO(Z19, 4, 4*h, d) \
	Q6KLO(Z20, 2, 4*h+1, d) \
	Q6KHI(Z19, 0, 4*h+2, d) \
	Q6KHI(Z20, 2, 4*h+3, d)

#define Q6KQ(s, d) \
	Q6KHALF(0, s, d) \
	Q6KHALF(1, s, d)

// DEC8(Q, S, s, d): 8 rows' super-blocks from s (R8 apart): quants (Q) into the buffer at d,
// scales (S) 8192 bytes past it; s and d move on.
#define DEC1(Q, S, s, d) \
	Q(s, d) \
	S(s, d) \
	ADDQ R8, s \
	ADDQ $64, d

#define DEC8(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d) \
	DEC1(Q, S, s, d)

// DEC8Q4K, DEC8Q6K (the 32-token kernel): the 8 rows' super-blocks from R13 into QKW and QKS (R12
// is free until the blocks' count).
#define DEC8Q4K \
	MOVQ R13, AX \
	LEAQ QKW(BX), R12 \
	DEC8(Q4KQ, Q4KSE, AX, R12)

#define DEC8Q6K \
	MOVQ R13, AX \
	LEAQ QKW(BX), R12 \
	DEC8(Q6KQ, Q6KSE, AX, R12)

// FLUSH1K4(r, z): FLUSH1 with Q4_K's minimum term: o = fma(float(z), S·s, o), then
// o = o − M·Sum, fused (S, M from QKS at R11; Z17 the inputs' scales, Z24 their sums).
#define FLUSH1K4(r, z) \
	VMULPS.BCST       64*r(R11), Z17, Z18 \
	VCVTDQ2PS         z, z \
	VFMADD213PS       QNO+64*r(BX), Z18, z \
	VFNMADD231PS.BCST 64*r+32(R11), Z24, z \
	VMOVUPS           z, QNO+64*r(BX)

// FLUSH1K6(r, z, off): FLUSH1 for a Q6_K group (S at off of row r's QKS share, from R11).
#define FLUSH1K6(r, z, off) \
	VMULPS.BCST 64*r+off(R11), Z17, Z18 \
	VCVTDQ2PS   z, z \
	VFMADD213PS QNO+64*r(BX), Z18, z \
	VMOVUPS     z, QNO+64*r(BX)

// FLUSH2K4, FLUSH2K6: the same for both token groups (Z19, Z20 their scales, Z25, Z26 their sums).
#define FLUSH2K4(r, za, zb) \
	VMULPS.BCST       64*r(R11), Z19, Z18 \
	VCVTDQ2PS         za, za \
	VFMADD213PS       QNO+128*r(BX), Z18, za \
	VFNMADD231PS.BCST 64*r+32(R11), Z25, za \
	VMOVUPS           za, QNO+128*r(BX) \
	VMULPS.BCST       64*r(R11), Z20, Z18 \
	VCVTDQ2PS         zb, zb \
	VFMADD213PS       QNO+128*r+64(BX), Z18, zb \
	VFNMADD231PS.BCST 64*r+32(R11), Z26, zb \
	VMOVUPS           zb, QNO+128*r+64(BX)

#define FLUSH2K6(r, za, zb, off) \
	VMULPS.BCST 64*r+off(R11), Z19, Z18 \
	VCVTDQ2PS   za, za \
	VFMADD213PS QNO+128*r(BX), Z18, za \
	VMOVUPS     za, QNO+128*r(BX) \
	VMULPS.BCST 64*r+off(R11), Z20, Z18 \
	VCVTDQ2PS   zb, zb \
	VFMADD213PS QNO+128*r+64(BX), Z18, zb \
	VMOVUPS     zb, QNO+128*r+64(BX)

#define LOADS16K \
	VMOVUPS (R9), Z17 \
	VMOVUPS 64(R9), Z24

#define LOADS32K \
	MOVQ    DX, AX \
	SHRQ    $3, AX \
	VMOVUPS (R9), Z19 \
	VMOVUPS 64(R9), Z25 \
	VMOVUPS (R9)(AX*1), Z20 \
	VMOVUPS 64(R9)(AX*1), Z26

// FLUSHP8K4, FLUSHP8K6(off): the 16-token kernel's rows 0-7, A' added in (COMBINE8), flushed.
#define FLUSHP8K4 \
	COMBINE8 \
	FLUSH1K4(0, Z0) \
	FLUSH1K4(1, Z1) \
	FLUSH1K4(2, Z2) \
	FLUSH1K4(3, Z3) \
	FLUSH1K4(4, Z4) \
	FLUSH1K4(5, Z5) \
	FLUSH1K4(6, Z6) \
	FLUSH1K4(7, Z7)

#define FLUSHP8K6(off) \
	COMBINE8 \
	FLUSH1K6(0, Z0, off) \
	FLUSH1K6(1, Z1, off) \
	FLUSH1K6(2, Z2, off) \
	FLUSH1K6(3, Z3, off) \
	FLUSH1K6(4, Z4, off) \
	FLUSH1K6(5, Z5, off) \
	FLUSH1K6(6, Z6, off) \
	FLUSH1K6(7, Z7, off)

#define FLUSH32K4 \
	FLUSH2K4(0, Z0, Z8) \
	FLUSH2K4(1, Z1, Z9) \
	FLUSH2K4(2, Z2, Z10) \
	FLUSH2K4(3, Z3, Z11) \
	FLUSH2K4(4, Z4, Z12) \
	FLUSH2K4(5, Z5, Z13) \
	FLUSH2K4(6, Z6, Z14) \
	FLUSH2K4(7, Z7, Z15)

#define FLUSH32K6(off) \
	FLUSH2K6(0, Z0, Z8, off) \
	FLUSH2K6(1, Z1, Z9, off) \
	FLUSH2K6(2, Z2, Z10, off) \
	FLUSH2K6(3, Z3, Z11, off) \
	FLUSH2K6(4, Z4, Z12, off) \
	FLUSH2K6(5, Z5, Z13, off) \
	FLUSH2K6(6, Z6, Z14, off) \
	FLUSH2K6(7, Z7, Z15, off)

// The blocks' bodies: the 16 column pairs and the flush (Q6_K: a flush after each 16-value group).
// WIDEN1 ends a block's share of the next super-block's decoding: the next row's (ndst, DX) for
// the next block. A block's share is one row, decoded among its pairs of pairs from DX into
// ndst's buffer row (AX) and its scales.
#define WIDEN1 \
	ADDQ $64, ndst-56(SP) \
	ADDQ nstep-48(SP), DX

#define SUBPQ4K \
	ZERO16 \
	MOVQ ndst-56(SP), AX \
	PAIRP(0) \
	PAIRP(2) \
	Q4KCH(DX, AX, 0) \
	PAIRP(4) \
	Q4KCH(DX, AX, 1) \
	PAIRP(6) \
	Q4KCH(DX, AX, 2) \
	PAIRP(8) \
	Q4KCH(DX, AX, 3) \
	PAIRP(10) \
	Q4KSE(DX, AX) \
	PAIRP(12) \
	PAIRP(14) \
	WIDEN1 \
	LOADS16K \
	FLUSHP8K4

#define SUB32Q4K \
	ZERO16 \
	PAIR32(0) \
	PAIR32(1) \
	PAIR32(2) \
	PAIR32(3) \
	PAIR32(4) \
	PAIR32(5) \
	PAIR32(6) \
	PAIR32(7) \
	PAIR32(8) \
	PAIR32(9) \
	PAIR32(10) \
	PAIR32(11) \
	PAIR32(12) \
	PAIR32(13) \
	PAIR32(14) \
	PAIR32(15) \
	LOADS32K \
	FLUSH32K4

#define SUBPQ6K \
	ZERO16 \
	MOVQ ndst-56(SP), AX \
	PAIRP(0) \
	Q6KHALF(0, DX, AX) \
	PAIRP(2) \
	PAIRP(4) \
	PAIRP(6) \
	LOADS16K \
	FLUSHP8K6(0) \
	ZERO16 \
	PAIRP(8) \
	Q6KHALF(1, DX, AX) \
	PAIRP(10) \
	PAIRP(12) \
	Q6KSE(DX, AX) \
	PAIRP(14) \
	WIDEN1 \
	FLUSHP8K6(4)

#define SUB32Q6K \
	ZERO16 \
	PAIR32(0) \
	PAIR32(1) \
	PAIR32(2) \
	PAIR32(3) \
	PAIR32(4) \
	PAIR32(5) \
	PAIR32(6) \
	PAIR32(7) \
	LOADS32K \
	FLUSH32K6(0) \
	ZERO16 \
	PAIR32(8) \
	PAIR32(9) \
	PAIR32(10) \
	PAIR32(11) \
	PAIR32(12) \
	PAIR32(13) \
	PAIR32(14) \
	PAIR32(15) \
	FLUSH32K6(4)

// SETUPK: the constants of the decoders (after TRANSPOSE, which takes every register): Z30
// 0x000F, Z29 0x0030, Z28 32 in every 16-bit lane.
#define SETUPK \
	VPTERNLOGD $0xff, Z30, Z30, Z30 \
	VPSRLW     $12, Z30, Z30 \
	VPSRLW     $2, Z30, Z29 \
	VPSLLW     $4, Z29, Z29 \
	VPSRLW     $3, Z30, Z28 \
	VPSLLW     $5, Z28, Z28

#define SETUPPK \
	SETUPP \
	SETUPK

#define SETUP32K \
	SETUP32 \
	SETUPK

// PREFETCHK(bytes): a block's share of the next group's bytes, from the frame's pointer pf.
#define PREFETCHK(bytes) \
	MOVQ       pf-24(SP), AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 64(AX) \
	PREFETCHT0 128(AX) \
	PREFETCHT0 192(AX) \
	PREFETCHT0 256(AX) \
	PREFETCHT0 320(AX) \
	PREFETCHT0 384(AX) \
	ADDQ       $bytes, pf-24(SP)

// KGROUP(rows): a K-quant group's start: its rows' sums o zeroed, R14 the next group's first row
// (where its prefetches start: pf), R13 the super-block in the group's first row, DI and R9 the
// inputs' pairs and scales, CX the super-blocks.
#define KGROUP(rows) \
	ZEROOT \
	MOVQ  R8, R14 \
	IMULQ $rows, R14 \
	ADDQ  SI, R14 \
	MOVQ  R14, pf-24(SP) \
	MOVQ  SI, R13 \
	MOVQ  x+24(FP), DI \
	MOVQ  xs+32(FP), R9 \
	MOVQ  nb+40(FP), CX \
	SHRQ  $3, CX

// KBLOCKS(pfb, ws, ss, SUB): a super-block's eight blocks (R12 counts them): SUB on each, with
// pfb bytes of the next group asked for, then the buffers (R10, ws bytes a block), the scales
// (R11, ss bytes) and the inputs on by a block.
#define KBLOCKS(pfb, ws, ss, SUB) \
sub: \
	PREFETCHK(pfb) \
	SUB \
	ADDQ  $ws, R10 \
	ADDQ  $ss, R11 \
	ADDQ  $1024, DI \
	ADDQ  $128, R9 \
	DECQ  R12 \
	JNE   sub

// TILEQK(rows, ws, sbb, ss, SETUP, DEC, SUB, TRANSPOSE): a K-quant kernel for rows rows per group
// (their blocks ws bytes apart in QKW), super-blocks of sbb bytes, ss bytes of QKS per block.
#define TILEQK(rows, ws, sbb, ss, SETUP, DEC, SUB, TRANSPOSE) \
	KSTART(10320) \
	SETUP \
group: \
	KGROUP(rows) \
sb: \
	DEC \
	LEAQ  QKW(BX), R10 \
	LEAQ  QKS(BX), R11 \
	MOVQ  $8, R12 \
	KBLOCKS(rows*sbb/8, ws, ss, SUB) \
	ADDQ  $sbb, R13 \
	DECQ  CX \
	JNE   sb \
	KEND(rows, TRANSPOSE, SETUP)

// TILEQKP(sbb, ss, Q, S, SUB): the 16-token K-quant kernel (8 rows a group), super-blocks of sbb
// bytes, ss bytes of scales per block, Q and S a row's quants and scales (Q4KQ and Q4KSE, Q6KQ and
// Q6KSE). The frame's cur and nxt are the two buffers, the one multiplied and the one decoded
// into; DX the next super-block's row being decoded (nstep bytes on to the next: rowBytes, or 0
// at the last super-block of the last group, which decodes the scratch's own bytes again), ndst
// where it goes. The scratch (the second buffer's scales end 13,824 bytes past BX; scratch-13952(SP)
// is 8-aligned, so BX, rounded up to 64, is at most 56 bytes past it) ends at least 72 bytes below
// SP, clear of the seven frame variables (left-8 to ndst-56): a new one must lie at -72 or above.
#define TILEQKP(sbb, ss, Q, S, SUB) \
	KSTART(13952) \
	SETUPPK \
	LEAQ  QKW+4096(BX), AX \
	MOVQ  AX, nxt-40(SP) \
	LEAQ  QKW(BX), AX \
	MOVQ  AX, cur-32(SP) \
	MOVQ  SI, DX \
	DEC8(Q, S, DX, AX) \
group: \
	KGROUP(8) \
sb: \
	MOVQ  R8, nstep-48(SP) \
	LEAQ  sbb(R13), DX \
	CMPQ  CX, $1 \
	JNE   chosen \
	MOVQ  R14, DX \
	CMPQ  left-8(SP), $1 \
	JNE   chosen \
	MOVQ  BX, DX \
	MOVQ  $0, nstep-48(SP) \
chosen: \
	MOVQ  nxt-40(SP), AX \
	MOVQ  AX, ndst-56(SP) \
	MOVQ  cur-32(SP), R10 \
	LEAQ  8192(R10), R11 \
	MOVQ  $8, R12 \
	KBLOCKS(sbb, 512, ss, SUB) \
	MOVQ  cur-32(SP), AX \
	MOVQ  nxt-40(SP), R10 \
	MOVQ  R10, cur-32(SP) \
	MOVQ  AX, nxt-40(SP) \
	ADDQ  $sbb, R13 \
	DECQ  CX \
	JNE   sb \
	KEND(8, TRANSPOSE32, SETUPPK)

TEXT ·tileQN16Q4_KVNNI(SB), 0, $13952-72
	TILEQKP(144, 4, Q4KQ, Q4KSE, SUBPQ4K)

TEXT ·tileQN32Q4_KVNNI(SB), 0, $10320-72
	TILEQK(8, 512, 144, 4, SETUP32K, DEC8Q4K, SUB32Q4K, TRANSPOSE32)

TEXT ·tileQN16Q6_KVNNI(SB), 0, $13952-72
	TILEQKP(210, 8, Q6KQ, Q6KSE, SUBPQ6K)

TEXT ·tileQN32Q6_KVNNI(SB), 0, $10320-72
	TILEQK(8, 512, 210, 8, SETUP32K, DEC8Q6K, SUB32Q6K, TRANSPOSE32)
