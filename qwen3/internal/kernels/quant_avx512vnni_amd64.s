#include "textflag.h"
#include "quant_amd64.h"

// The one-token dots of quant_avx2_amd64.s in 512-bit registers, two rows to a register, for the
// AVX512 level with VNNI. Every lane does what the AVX2 kernel's lane does, in the same order:
// the low 256 bits of an accumulator are one row's eight lanes, the high 256 bits the next row's;
// the integer products of a block are the same exact int32 sums (VPDPWSSD adds the second half's
// pairs where the AVX2 kernel used VPMADDWD then VPADDD), and each float step (the scale c, the
// fused multiply-add, the sum at the end with HSUM) is the AVX2 kernel's step on each half. So
// these kernels give the AVX2 kernels' float32 bits, and the batched kernels' (multi_avx2_amd64.s),
// which TestDotActVNNIMatchesAVX2 checks. What they save is instructions: a 512-bit instruction
// does the work of two 256-bit ones, and one-token decoding of the 4- and 6-bit types was bound by
// instructions, not by memory.

// perm<>: eight index vectors for VPERMPS; vector j is [j ×8, 8+j ×8], which takes c_j of the row
// in the low half and c_j of the row in the high half of a register of two rows' eight scales.
#define PERMJ(j) \
	DATA perm<>+64*j+0(SB)/8, $(j | j<<32) \
	DATA perm<>+64*j+8(SB)/8, $(j | j<<32) \
	DATA perm<>+64*j+16(SB)/8, $(j | j<<32) \
	DATA perm<>+64*j+24(SB)/8, $(j | j<<32) \
	DATA perm<>+64*j+32(SB)/8, $((8+j) | (8+j)<<32) \
	DATA perm<>+64*j+40(SB)/8, $((8+j) | (8+j)<<32) \
	DATA perm<>+64*j+48(SB)/8, $((8+j) | (8+j)<<32) \
	DATA perm<>+64*j+56(SB)/8, $((8+j) | (8+j)<<32)

PERMJ(0)
PERMJ(1)
PERMJ(2)
PERMJ(3)
PERMJ(4)
PERMJ(5)
PERMJ(6)
PERMJ(7)
GLOBL perm<>(SB), RODATA|NOPTR, $512

// LOADPERM puts the eight index vectors in Z20..Z27.
#define LOADPERM \
	VMOVDQU32 perm<>+0(SB), Z20 \
	VMOVDQU32 perm<>+64(SB), Z21 \
	VMOVDQU32 perm<>+128(SB), Z22 \
	VMOVDQU32 perm<>+192(SB), Z23 \
	VMOVDQU32 perm<>+256(SB), Z24 \
	VMOVDQU32 perm<>+320(SB), Z25 \
	VMOVDQU32 perm<>+384(SB), Z26 \
	VMOVDQU32 perm<>+448(SB), Z27

// LO4Z sets Z0 to 0x000F in every 16-bit lane.
#define LO4Z \
	VPTERNLOGD $0xff, Z0, Z0, Z0 \
	VPSRLW     $12, Z0, Z0

// The 512-bit forms of quant_amd64.h's q4kshift, q4kmask1 and q4kmask2: one copy per 128-bit lane,
// one lane per row.
#define Q4KCONST(name, lo, hi) \
	DATA name+0(SB)/8, $lo \
	DATA name+8(SB)/8, $hi \
	DATA name+16(SB)/8, $lo \
	DATA name+24(SB)/8, $hi \
	DATA name+32(SB)/8, $lo \
	DATA name+40(SB)/8, $hi \
	DATA name+48(SB)/8, $lo \
	DATA name+56(SB)/8, $hi \
	GLOBL name(SB), RODATA|NOPTR, $64

Q4KCONST(q4kshiftz<>, 0, 0x0000000400000000)
Q4KCONST(q4kmask1z<>, 0x0f0f0f0f3f3f3f3f, 0x0f0f0f0f3f3f3f3f)
Q4KCONST(q4kmask2z<>, 0x3030303000000000, 0x3030303000000000)

// Q4KSC4 unpacks the super-block scales of the four rows at SI, R14, BX, R9 at once, each row in
// one 128-bit lane doing what Q4KSC does, subtracts the minimums' terms from Z8 and Z9 and leaves
// c_j = (d·scale_j)·s_j in Z28 (rows 0, 1) and Z29 (rows 2, 3). The d and dmin of the four rows
// are converted together (Z5: d0 dmin0 d2 dmin2 at 0-3, d1 dmin1 d3 dmin3 at 8-11) and spread over
// the halves by the index vectors Z20..Z23. Z1, Z2, Z5..Z7, Z16..Z18 are clobbered.
#define Q4KSC4 \
	VMOVDQU         4(SI), X5 \
	VINSERTI32X4    $1, 4(R14), Z5, Z5 \
	VINSERTI32X4    $2, 4(BX), Z5, Z5 \
	VINSERTI32X4    $3, 4(R9), Z5, Z5 \
	VPSHUFD         $0x98, Z5, Z6 \
	VPSRLVD         q4kshiftz<>(SB), Z6, Z6 \
	VPANDD          q4kmask1z<>(SB), Z6, Z6 \
	VPSHUFD         $0x50, Z5, Z1 \
	VPSRLD          $2, Z1, Z1 \
	VPANDD          q4kmask2z<>(SB), Z1, Z1 \
	VPORD           Z1, Z6, Z6 \
	VMOVD           (SI), X5 \
	VPINSRD         $1, (BX), X5, X5 \
	VMOVD           (R14), X7 \
	VPINSRD         $1, (R9), X7, X7 \
	VINSERTI128     $1, X7, Y5, Y5 \
	VCVTPH2PS       Y5, Z5 \
	VPERMQ          $0xd8, Z6, Z7 \
	VPMOVZXBD       X7, Z1 \
	VCVTDQ2PS       Z1, Z1 \
	VPERMPS         Z5, Z20, Z2 \
	VMULPS          Z1, Z2, Z28 \
	VEXTRACTI128    $1, Y7, X1 \
	VPMOVZXBD       X1, Z1 \
	VCVTDQ2PS       Z1, Z1 \
	VPERMPS         Z5, Z21, Z2 \
	VMULPS          Z1, Z2, Z16 \
	VEXTRACTI64X4   $1, Z7, Y7 \
	VPMOVZXBD       X7, Z1 \
	VCVTDQ2PS       Z1, Z1 \
	VPERMPS         Z5, Z22, Z2 \
	VMULPS          Z1, Z2, Z29 \
	VEXTRACTI128    $1, Y7, X1 \
	VPMOVZXBD       X1, Z1 \
	VCVTDQ2PS       Z1, Z1 \
	VPERMPS         Z5, Z23, Z2 \
	VMULPS          Z1, Z2, Z17 \
	VBROADCASTF64X4 (R8), Z18 \
	VFNMADD231PS    Z18, Z16, Z8 \
	VFNMADD231PS    Z18, Z17, Z9 \
	VBROADCASTF64X4 (DX), Z18 \
	VMULPS          Z18, Z28, Z28 \
	VMULPS          Z18, Z29, Z29

// Q4KPAIR(q, p1, p2, c, i0, i1, acc): sub-blocks 2c and 2c+1 (quant bytes at q) of rows p1 and p2
// with the activations in Z1, Z2 (sub-block 2c: values 0-15, 16-31, in both halves) and Z12, Z13
// (2c+1). Z5 holds values 0-15 of both rows and Z6 values 16-31, as the AVX2 kernel's Y5 and Y6.
#define Q4KPAIR(q, p1, p2, c, i0, i1, acc) \
	VMOVDQU     q(p1), X14 \
	VINSERTI128 $1, q(p2), Y14, Y14 \
	VMOVDQU     q+16(p1), X15 \
	VINSERTI128 $1, q+16(p2), Y15, Y15 \
	VPMOVZXBW   Y14, Z5 \
	VPMOVZXBW   Y15, Z6 \
	VPANDD      Z0, Z5, Z3 \
	VPANDD      Z0, Z6, Z4 \
	VPMADDWD    Z1, Z3, Z3 \
	VPDPWSSD    Z2, Z4, Z3 \
	VCVTDQ2PS   Z3, Z3 \
	VPERMPS     c, i0, Z4 \
	VFMADD231PS Z4, Z3, acc \
	VPSRLW      $4, Z5, Z5 \
	VPSRLW      $4, Z6, Z6 \
	VPMADDWD    Z12, Z5, Z5 \
	VPDPWSSD    Z13, Z6, Z5 \
	VCVTDQ2PS   Z5, Z5 \
	VPERMPS     c, i1, Z6 \
	VFMADD231PS Z6, Z5, acc

// Q4KZCHUNK(c, i0, i1): chunk c (sub-blocks 2c, 2c+1) of the four rows.
#define Q4KZCHUNK(c, i0, i1) \
	VBROADCASTI64X4 128*c(DI), Z1 \
	VBROADCASTI64X4 128*c+32(DI), Z2 \
	VBROADCASTI64X4 128*c+64(DI), Z12 \
	VBROADCASTI64X4 128*c+96(DI), Z13 \
	Q4KPAIR(16+32*c, SI, R14, Z28, i0, i1, Z8) \
	Q4KPAIR(16+32*c, BX, R9, Z29, i0, i1, Z9)


// Q6_K, two rows at a time (SI, R14), on the Act's byte planes (splitActVNNI below): each
// activation a = 256·hi + lo, hi = a>>8 signed and lo = a&255 unsigned, so Σq·a over a group of 16
// is 256·Σq·hi + Σq·lo, both exact in int32, and VPDPBUSD multiplies 64 bytes at a time (the
// quants, 0..63, serve as the unsigned operand against hi and as the signed one against lo). The
// quants stay bytes: no widening to 16 bits. The AVX2 kernel's eight group sums of a row per half
// come out as the same exact int32s, in a 512-bit register ordered [row 1 groups 0-3, row 2 groups
// 0-3, row 1 groups 4-7, row 2 groups 4-7]; every float step after that is the AVX2 kernel's on
// each half, and the end puts each row's lanes back together before HSUM.

// q6dperm spreads the two rows' d (floats 0 and 1) over the lanes: row 1's lanes take 0, row 2's 1.
DATA q6dperm<>+0(SB)/8, $0
DATA q6dperm<>+8(SB)/8, $0
DATA q6dperm<>+16(SB)/8, $0x0000000100000001
DATA q6dperm<>+24(SB)/8, $0x0000000100000001
DATA q6dperm<>+32(SB)/8, $0
DATA q6dperm<>+40(SB)/8, $0
DATA q6dperm<>+48(SB)/8, $0x0000000100000001
DATA q6dperm<>+56(SB)/8, $0x0000000100000001
GLOBL q6dperm<>(SB), RODATA|NOPTR, $64

// q6gperm puts the group sums Q6KPSUMS leaves in the order above: it leaves, per 128-bit lane,
// [row 1 groups 0 2 4 6], [row 1 groups 1 3 5 7], [row 2 groups 0 2 4 6], [row 2 groups 1 3 5 7].
DATA q6gperm<>+0(SB)/8, $0x0000000400000000
DATA q6gperm<>+8(SB)/8, $0x0000000500000001
DATA q6gperm<>+16(SB)/8, $0x0000000c00000008
DATA q6gperm<>+24(SB)/8, $0x0000000d00000009
DATA q6gperm<>+32(SB)/8, $0x0000000600000002
DATA q6gperm<>+40(SB)/8, $0x0000000700000003
DATA q6gperm<>+48(SB)/8, $0x0000000e0000000a
DATA q6gperm<>+56(SB)/8, $0x0000000f0000000b
GLOBL q6gperm<>(SB), RODATA|NOPTR, $64

// Q6KPQUANTS(qoff, hoff) builds a half's quants (0..63) as bytes, row 1's 32 in the low 256 bits
// and row 2's in the high ones: values 0-31 in Z8, 32-63 in Z9, 64-95 in Z10, 96-127 in Z11
// (Z30: 0x0F and Z31: 0x30 in every byte). A value's low four bits are a nibble of ql, its high
// two a pair of bits of qh; VPTERNLOGD $0xf8 is dst | (src & 0x0F). Z1..Z3 are clobbered.
#define Q6KPQUANTS(qoff, hoff) \
	VMOVDQU      qoff(SI), Y1 \
	VINSERTI64X4 $1, qoff(R14), Z1, Z1 \
	VMOVDQU      qoff+32(SI), Y2 \
	VINSERTI64X4 $1, qoff+32(R14), Z2, Z2 \
	VMOVDQU      hoff(SI), Y3 \
	VINSERTI64X4 $1, hoff(R14), Z3, Z3 \
	VPSLLW       $4, Z3, Z8 \
	VPANDD       Z31, Z8, Z8 \
	VPTERNLOGD   $0xf8, Z30, Z1, Z8 \
	VPSLLW       $2, Z3, Z9 \
	VPANDD       Z31, Z9, Z9 \
	VPTERNLOGD   $0xf8, Z30, Z2, Z9 \
	VPSRLW       $4, Z1, Z1 \
	VPANDD       Z31, Z3, Z10 \
	VPTERNLOGD   $0xf8, Z30, Z1, Z10 \
	VPSRLW       $4, Z2, Z2 \
	VPSRLW       $2, Z3, Z11 \
	VPANDD       Z31, Z11, Z11 \
	VPTERNLOGD   $0xf8, Z30, Z2, Z11

// Q6KPDOT(off, q, acc): acc = Σ4 q·a, per int32 lane, over the 32 activations whose planes are at
// off(DI) (32 high bytes, then 32 low ones; the same for both rows).
#define Q6KPDOT(off, q, acc) \
	VBROADCASTI64X4 off(DI), Z4 \
	VBROADCASTI64X4 off+32(DI), Z5 \
	VPXORD          acc, acc, acc \
	VPDPBUSD        Z4, q, acc \
	VPSLLD          $8, acc, acc \
	VPDPBUSD        q, Z5, acc

// Q6KPSUMS: Z1 = the half's sixteen group sums Σq·a (uncentred), in the order above.
#define Q6KPSUMS \
	Q6KPDOT(0, Z8, Z12) \
	Q6KPDOT(64, Z9, Z13) \
	Q6KPDOT(128, Z10, Z14) \
	Q6KPDOT(192, Z11, Z15) \
	VPUNPCKLDQ  Z13, Z12, Z4 \
	VPUNPCKHDQ  Z13, Z12, Z5 \
	VPADDD      Z5, Z4, Z12 \
	VPUNPCKLDQ  Z15, Z14, Z4 \
	VPUNPCKHDQ  Z15, Z14, Z5 \
	VPADDD      Z5, Z4, Z14 \
	VPUNPCKLQDQ Z14, Z12, Z4 \
	VPUNPCKHQDQ Z14, Z12, Z5 \
	VPADDD      Z5, Z4, Z1 \
	VPERMD      Z1, Z18, Z1

// Q6KPHALF(qoff, hoff, soff): one half of both rows' super-blocks, added to Z0 with d from Z16:
// float(Σq·a − 32·Σa)·scale_g·s_b(g), as the AVX2 kernel's Q6KSUM (scales at DX, 16-value sums at R8).
#define Q6KPHALF(qoff, hoff, soff) \
	Q6KPQUANTS(qoff, hoff) \
	VMOVQ       soff(SI), X7 \
	VPINSRQ     $1, soff(R14), X7, X7 \
	VPSHUFD     $0xd8, X7, X7 \
	VPMOVSXBD   X7, Z7 \
	VCVTDQ2PS   Z7, Z7 \
	Q6KPSUMS \
	VMOVDQU     (R8), Y2 \
	VSHUFI64X2  $0x50, Z2, Z2, Z2 \
	VPSLLD      $5, Z2, Z2 \
	VPSUBD      Z2, Z1, Z1 \
	VCVTDQ2PS   Z1, Z1 \
	VMULPS      Z7, Z1, Z1 \
	VMOVUPS     (DX), X2 \
	VUNPCKLPS   X2, X2, X3 \
	VUNPCKHPS   X2, X2, X4 \
	VINSERTF128 $1, X4, Y3, Y3 \
	VSHUFF64X2  $0x50, Z3, Z3, Z3 \
	VMULPS      Z3, Z1, Z1 \
	VFMADD231PS Z16, Z1, Z0

// Q4_0, four rows at a time as the AVX2 kernel does (Z0: 0x000F, Z7: 8 in every 16-bit lane):
// Q40PAIR(off, p1, p2, c, i, acc) is block b (byte off of the rows at p1 and p2) with the activations
// in Z1 (values 0-15 in both halves) and Z2 (16-31), its scales c from Z28 or Z29 by index i.
#define Q40PAIR(off, p1, p2, c, i, acc) \
	VMOVDQU     off+2(p1), X6 \
	VINSERTI128 $1, off+2(p2), Y6, Y6 \
	VPMOVZXBW   Y6, Z6 \
	VPANDD      Z0, Z6, Z5 \
	VPSRLW      $4, Z6, Z6 \
	VPSUBW      Z7, Z5, Z5 \
	VPSUBW      Z7, Z6, Z6 \
	VPMADDWD    Z1, Z5, Z5 \
	VPDPWSSD    Z2, Z6, Z5 \
	VCVTDQ2PS   Z5, Z5 \
	VPERMPS     c, i, Z6 \
	VFMADD231PS Z6, Z5, acc

// Q40ZB(off, xoff, i): block b of the four rows (activations at xoff of DI).
#define Q40ZB(off, xoff, i) \
	VBROADCASTI64X4 xoff(DI), Z1 \
	VBROADCASTI64X4 xoff+32(DI), Z2 \
	Q40PAIR(off, SI, R14, Z28, i, Z8) \
	Q40PAIR(off, BX, R9, Z29, i, Z9)

// SCZ4(bytes) gathers the eight block scales of the group of each of the four rows (blocks of
// that many bytes: Q4_0's 18, Q8_0's 34) and multiplies them by the activations' scales (SCALE4's
// products) into Z28 (rows 0, 1) and Z29 (rows 2, 3).
#define SCZ4(bytes) \
	GATHERD8(bytes, SI) \
	VMULPS        (DX), Y3, Y16 \
	GATHERD8(bytes, R14) \
	VMULPS        (DX), Y3, Y3 \
	VINSERTF64X4  $1, Y3, Z16, Z28 \
	GATHERD8(bytes, BX) \
	VMULPS        (DX), Y3, Y16 \
	GATHERD8(bytes, R9) \
	VMULPS        (DX), Y3, Y3 \
	VINSERTF64X4  $1, Y3, Z16, Z29

// DOTZ4(PF, bytes, ZB) is the body of the four-row kernels of Q4_0 and Q8_0 (blocks of that many
// bytes, ZB the macro of one block of the four rows), func(w *byte, stride, rows int, q *int16,
// scale, sum *float32, n int, out *float32): rows a multiple of 4, rows 0 and 1 in Z8, rows 2 and
// 3 in Z9, eight blocks per step with their scales gathered at once (SCZ4), and PF asking for the
// group of four rows after the next in memory order.
#define DOTZ4(PF, bytes, ZB) \
	MOVQ w+0(FP), R12 \
	MOVQ stride+8(FP), R10 \
	XORQ R13, R13 \
	LOADPERM \
z4: \
	CMPQ R13, rows+16(FP) \
	JGE  z4done \
	R4START \
z4loop: \
	PF \
	SCZ4(bytes) \
	ZB(0, 0, Z20) \
	ZB(bytes, 64, Z21) \
	ZB(2*bytes, 128, Z22) \
	ZB(3*bytes, 192, Z23) \
	ZB(4*bytes, 256, Z24) \
	ZB(5*bytes, 320, Z25) \
	ZB(6*bytes, 384, Z26) \
	ZB(7*bytes, 448, Z27) \
	R4ADVANCE((8*bytes)) \
	ADDQ $512, DI \
	ADDQ $32, DX \
	DECQ CX \
	JNE  z4loop \
	MOVQ out+56(FP), AX \
	LEAQ (AX)(R13*4), AX \
	ZHALVES(Z8, Y8, X8, 0, 4) \
	ZHALVES(Z9, Y9, X9, 8, 12) \
	LEAQ (R12)(R10*4), R12 \
	ADDQ $4, R13 \
	JMP  z4 \
z4done: \
	VZEROUPPER \
	RET

// func dotQ4_KActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// dotQ4_KActAVX2's four-row loop (rows a multiple of 4), rows 0 and 1 in Z8, rows 2 and 3 in Z9.
TEXT ·dotQ4_KActVNNI(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), R12
	MOVQ stride+8(FP), R10
	XORQ R13, R13
	LO4Z
	LOADPERM

q4kz:
	MOVQ rows+16(FP), AX
	CMPQ R13, AX
	JGE  q4kzdone
	R4START
	MOVQ sum+40(FP), R8

q4kzloop:
	PFLIN9
	Q4KSC4
	Q4KZCHUNK(0, Z20, Z21)
	Q4KZCHUNK(1, Z22, Z23)
	Q4KZCHUNK(2, Z24, Z25)
	Q4KZCHUNK(3, Z26, Z27)
	R4ADVANCE(144)
	ADDQ $512, DI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNE  q4kzloop
	MOVQ out+56(FP), AX
	LEAQ (AX)(R13*4), AX
	ZHALVES(Z8, Y8, X8, 0, 4)
	ZHALVES(Z9, Y9, X9, 8, 12)
	LEAQ (R12)(R10*4), R12
	ADDQ $4, R13
	JMP  q4kz

q4kzdone:
	VZEROUPPER
	RET

// func dotQ6_KActVNNI(w *byte, stride, rows int, p *byte, scale *float32, sum16 *int32, n int, out *float32)
// dotQ6_KActAVX2's sums two rows at a time (rows even), from the Act's byte planes at p.
// Prefetching: one pointer (R11) walks the rows after the pair, 4 KB further on, seven lines
// (448 bytes) per step of 420 (a block of each row), as the Q4_K kernels' PFLIN9 does, instead of
// four lines 4 KB ahead of each row's own pointer: this machine's hardware prefetchers add little
// (8 GB/s on one core without software prefetching), and the one pointer asks for each line once,
// in order. Streamed on one core 24 -> 37 GB/s, on two 42 -> 48; Q6_K decoding 77 -> 90 tok/s.
TEXT ·dotQ6_KActVNNI(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), R12
	MOVQ   stride+8(FP), R10
	XORQ   R13, R13
	MOVL   $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z30
	MOVL   $0x30303030, AX
	VPBROADCASTD AX, Z31
	VMOVDQU32  q6dperm<>(SB), Z17
	VMOVDQU32  q6gperm<>(SB), Z18

q6kz:
	CMPQ R13, rows+16(FP)
	JGE  q6kzdone
	MOVQ R12, SI
	LEAQ (R12)(R10*1), R14
	MOVQ p+24(FP), DI
	MOVQ scale+32(FP), DX
	MOVQ sum16+40(FP), R8
	MOVQ n+48(FP), CX
	LEAQ (R14)(R10*1), R11
	ADDQ $4096, R11
	VPXORD Z0, Z0, Z0

q6kzloop:
	PREFETCHT0   (R11)
	PREFETCHT0   64(R11)
	PREFETCHT0   128(R11)
	PREFETCHT0   192(R11)
	PREFETCHT0   256(R11)
	PREFETCHT0   320(R11)
	PREFETCHT0   384(R11)
	ADDQ         $420, R11
	MOVWLZX      208(SI), AX
	VMOVD        AX, X1
	VPINSRW      $1, 208(R14), X1, X1
	VCVTPH2PS    X1, X1
	VPERMPS      Z1, Z17, Z16
	Q6KPHALF(0, 128, 192)
	ADDQ $256, DI
	ADDQ $16, DX
	ADDQ $32, R8
	Q6KPHALF(64, 160, 200)
	ADDQ $256, DI
	ADDQ $16, DX
	ADDQ $32, R8
	ADDQ $210, SI
	ADDQ $210, R14
	DECQ CX
	JNE  q6kzloop
	VSHUFF64X2 $0xd8, Z0, Z0, Z0
	MOVQ out+56(FP), AX
	LEAQ (AX)(R13*4), AX
	ZHALVES(Z0, Y0, X0, 0, 4)
	LEAQ (R12)(R10*2), R12
	ADDQ $2, R13
	JMP  q6kz

q6kzdone:
	VZEROUPPER
	RET

// func splitActVNNI(q *int16, p *byte, nblocks int)
// Writes the byte planes of nblocks blocks of 32 activations: per block the 32 high bytes a>>8
// (signed), then the 32 low bytes a&255, the layout of arm64's DotProd planes (quant_dotprod_arm64.go).
TEXT ·splitActVNNI(SB), NOSPLIT, $0-24
	MOVQ q+0(FP), SI
	MOVQ p+8(FP), DI
	MOVQ nblocks+16(FP), CX
	TESTQ CX, CX
	JE   splitdone

splitloop:
	VMOVDQU16 (SI), Z0
	VPSRAW    $8, Z0, Z1
	VPMOVWB   Z1, (DI)
	VPMOVWB   Z0, 32(DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	DECQ      CX
	JNE       splitloop

splitdone:
	VZEROUPPER
	RET

// func dotQ4_0ActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// dotQ4_0ActAVX2's four-row loop (rows a multiple of 4), rows 0 and 1 in Z8, rows 2 and 3 in Z9.
TEXT ·dotQ4_0ActVNNI(SB), NOSPLIT, $0-64
	LO4Z
	VPTERNLOGD $0xff, Z7, Z7, Z7
	VPSRLW     $15, Z7, Z7
	VPSLLW     $3, Z7, Z7
	DOTZ4(PFLIN9, 18, Q40ZB)

// Q8_0, four rows at a time, two to a register as Q4_0's: Q80PAIR(off, p1, p2, c, i, acc) is
// block b (byte off of the rows at p1 and p2) with the activations in Z1 (values 0-15 in both
// halves) and Z2 (16-31). Each row's 32 quants widen to int16 in one instruction (values 0-15 in
// the low half, 16-31 in the high one), and two shuffles pair the rows' halves, so that each
// 256-bit half of Z5 holds one row's eight int32 lanes of the AVX2 kernel's QTOK: the same
// integers, the same scale c and the same fused multiply-add per lane, so the same bits.
#define Q80PAIR(off, p1, p2, c, i, acc) \
	VPMOVSXBW   off+2(p1), Z3 \
	VPMOVSXBW   off+2(p2), Z4 \
	VSHUFI64X2  $0x44, Z4, Z3, Z5 \
	VSHUFI64X2  $0xee, Z4, Z3, Z6 \
	VPMADDWD    Z1, Z5, Z5 \
	VPDPWSSD    Z2, Z6, Z5 \
	VCVTDQ2PS   Z5, Z5 \
	VPERMPS     c, i, Z6 \
	VFMADD231PS Z6, Z5, acc

// Q80ZB(off, xoff, i): block b of the four rows (activations at xoff of DI).
#define Q80ZB(off, xoff, i) \
	VBROADCASTI64X4 xoff(DI), Z1 \
	VBROADCASTI64X4 xoff+32(DI), Z2 \
	Q80PAIR(off, SI, R14, Z28, i, Z8) \
	Q80PAIR(off, BX, R9, Z29, i, Z9)

// func dotQ8_0ActVNNI(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// dotQ8_0ActAVX2's formula four rows at a time (rows a multiple of 4), rows 0 and 1 in Z8, rows 2
// and 3 in Z9; the next group of four rows but one is asked for in memory order (PFLIN17).
TEXT ·dotQ8_0ActVNNI(SB), NOSPLIT, $0-64
	DOTZ4(PFLIN17, 34, Q80ZB)
