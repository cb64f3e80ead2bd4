#include "textflag.h"

// QPack.Pack at the AVX512 level: a type's 32 rows decoded straight into TileQ's layout, 16 rows
// per call, with no row-major staging and no separate transpose.
//
// Each step takes 32 columns of 16 rows: row r's 32 int16 values go into Zr (ROWS16 with the
// type's row decoder), which reads them as 16 dwords, one per column pair. TRANSPOSE16 turns the
// 16 x 16 dwords around, so that Zc holds column pair c of all 16 rows: TileQ's 64 bytes
// Q[(pair)*64 + 2i + j%2] for i < 16, stored with one instruction. The scales take the same
// road: a row's per-block scales (and Q4_K's minimums) fill Zr, the transpose gives each block's
// 16 rows in one register, stored at S[f*64 + i] (and S[f*64 + 32 + i]).
//
// The values are those of decodeQRow (same integers, and each scale is the same single float32
// product of the same two numbers), so TileQ reads the same pack bit for bit
// (TestQPackAVX512MatchesGeneric).
//
// Every kernel writes all of its rows' S, the minimum terms M = 0 of the types without them
// included, so that Pack need not clear S first.
//
// Arguments of every kernel: q (the pack's Q from the first of the 16 rows), s (its S, likewise),
// raw (row 0's bytes), rowBytes, nb (type blocks per row), f16 (f16Table). Registers: DI q, DX s,
// SI raw (the current block of row 0), R8 rowBytes, CX blocks left, R9 f16Table, AX the row being
// decoded, BX scratch.

// nibshift: per-word shift counts, 0 for words 0-15 and 4 for words 16-31 (Q4_0: a block's 16
// bytes in both halves of a register give its low nibbles, then its high ones).
DATA nibshift<>+0(SB)/8, $0
DATA nibshift<>+8(SB)/8, $0
DATA nibshift<>+16(SB)/8, $0
DATA nibshift<>+24(SB)/8, $0
DATA nibshift<>+32(SB)/8, $0x0004000400040004
DATA nibshift<>+40(SB)/8, $0x0004000400040004
DATA nibshift<>+48(SB)/8, $0x0004000400040004
DATA nibshift<>+56(SB)/8, $0x0004000400040004
GLOBL nibshift<>(SB), RODATA|NOPTR, $64

// Q4_K's 12 bytes of 6-bit scales and minimums q[0..11] (q4KScaleMin) into 16 dwords: scales of
// sub-blocks 0-7, then their minimums. k4lo picks the bytes with the low bits (lanes 0-3 q[0..3],
// 4-7 q[8..11], 8-11 q[4..7], 12-15 q[8..11]); k4hi those whose top two bits go on top (lanes
// 4-7 q[0..3], 12-15 q[4..7]); k4shift, k4mask and k4top finish q4KScaleMin's formula.
DATA k4lo<>+0(SB)/8, $0x0b0a090803020100
DATA k4lo<>+8(SB)/8, $0x0b0a090807060504
GLOBL k4lo<>(SB), RODATA|NOPTR, $16
DATA k4hi<>+0(SB)/8, $0x0302010003020100
DATA k4hi<>+8(SB)/8, $0x0706050407060504
GLOBL k4hi<>(SB), RODATA|NOPTR, $16
DATA k4shift<>+0(SB)/8, $0
DATA k4shift<>+8(SB)/8, $0
DATA k4shift<>+16(SB)/8, $0
DATA k4shift<>+24(SB)/8, $0
DATA k4shift<>+32(SB)/8, $0
DATA k4shift<>+40(SB)/8, $0
DATA k4shift<>+48(SB)/8, $0x0000000400000004
DATA k4shift<>+56(SB)/8, $0x0000000400000004
GLOBL k4shift<>(SB), RODATA|NOPTR, $64
DATA k4mask<>+0(SB)/8, $0x0000003f0000003f
DATA k4mask<>+8(SB)/8, $0x0000003f0000003f
DATA k4mask<>+16(SB)/8, $0x0000000f0000000f
DATA k4mask<>+24(SB)/8, $0x0000000f0000000f
DATA k4mask<>+32(SB)/8, $0x0000003f0000003f
DATA k4mask<>+40(SB)/8, $0x0000003f0000003f
DATA k4mask<>+48(SB)/8, $0x0000000f0000000f
DATA k4mask<>+56(SB)/8, $0x0000000f0000000f
GLOBL k4mask<>(SB), RODATA|NOPTR, $64
DATA k4top<>+0(SB)/8, $0
DATA k4top<>+8(SB)/8, $0
DATA k4top<>+16(SB)/8, $0x0000003000000030
DATA k4top<>+24(SB)/8, $0x0000003000000030
DATA k4top<>+32(SB)/8, $0
DATA k4top<>+40(SB)/8, $0
DATA k4top<>+48(SB)/8, $0x0000003000000030
DATA k4top<>+56(SB)/8, $0x0000003000000030
GLOBL k4top<>(SB), RODATA|NOPTR, $64

// How far ahead in its row each decoder asks for the bytes it will read (PREFETCHT0): the 16
// rows are 16 streams at once, more than the hardware prefetchers follow, and a pack reads its
// rows from memory once per prompt chunk. Q8ROW, Q4ROW and BF16ROW ask once per step, lines
// ahead of where they read; the scales of Q4_K and Q6_K, read once per block of 256 columns, ask
// for the whole block (3 and 4 lines) some blocks ahead.
#define PFQ8 512
#define PFQ4 512
#define PFK4 576
#define PFQ6 630

// TRANSPOSE16 turns the 16 x 16 dwords of Z0-Z15 (Zr: row r) around (Zc: column c), through
// Z16-Z31, in four rounds of 16 shuffles: dwords of row pairs interleaved, then quadwords of
// row quads (Z(4g+c) holds, in 128-bit lane L, column 4L+c of rows 4g..4g+3), then lanes
// gathered twice with VSHUFI32X4 (0x88 takes lanes 0 and 2 of both sources, 0xdd lanes 1 and 3).
#define TRANSPOSE16 \
	VPUNPCKLDQ Z1, Z0, Z16 \
	VPUNPCKHDQ Z1, Z0, Z17 \
	VPUNPCKLDQ Z3, Z2, Z18 \
	VPUNPCKHDQ Z3, Z2, Z19 \
	VPUNPCKLDQ Z5, Z4, Z20 \
	VPUNPCKHDQ Z5, Z4, Z21 \
	VPUNPCKLDQ Z7, Z6, Z22 \
	VPUNPCKHDQ Z7, Z6, Z23 \
	VPUNPCKLDQ Z9, Z8, Z24 \
	VPUNPCKHDQ Z9, Z8, Z25 \
	VPUNPCKLDQ Z11, Z10, Z26 \
	VPUNPCKHDQ Z11, Z10, Z27 \
	VPUNPCKLDQ Z13, Z12, Z28 \
	VPUNPCKHDQ Z13, Z12, Z29 \
	VPUNPCKLDQ Z15, Z14, Z30 \
	VPUNPCKHDQ Z15, Z14, Z31 \
	VPUNPCKLQDQ Z18, Z16, Z0 \
	VPUNPCKHQDQ Z18, Z16, Z1 \
	VPUNPCKLQDQ Z19, Z17, Z2 \
	VPUNPCKHQDQ Z19, Z17, Z3 \
	VPUNPCKLQDQ Z22, Z20, Z4 \
	VPUNPCKHQDQ Z22, Z20, Z5 \
	VPUNPCKLQDQ Z23, Z21, Z6 \
	VPUNPCKHQDQ Z23, Z21, Z7 \
	VPUNPCKLQDQ Z26, Z24, Z8 \
	VPUNPCKHQDQ Z26, Z24, Z9 \
	VPUNPCKLQDQ Z27, Z25, Z10 \
	VPUNPCKHQDQ Z27, Z25, Z11 \
	VPUNPCKLQDQ Z30, Z28, Z12 \
	VPUNPCKHQDQ Z30, Z28, Z13 \
	VPUNPCKLQDQ Z31, Z29, Z14 \
	VPUNPCKHQDQ Z31, Z29, Z15 \
	VSHUFI32X4 $0x88, Z4, Z0, Z16 \
	VSHUFI32X4 $0xdd, Z4, Z0, Z20 \
	VSHUFI32X4 $0x88, Z12, Z8, Z24 \
	VSHUFI32X4 $0xdd, Z12, Z8, Z28 \
	VSHUFI32X4 $0x88, Z5, Z1, Z17 \
	VSHUFI32X4 $0xdd, Z5, Z1, Z21 \
	VSHUFI32X4 $0x88, Z13, Z9, Z25 \
	VSHUFI32X4 $0xdd, Z13, Z9, Z29 \
	VSHUFI32X4 $0x88, Z6, Z2, Z18 \
	VSHUFI32X4 $0xdd, Z6, Z2, Z22 \
	VSHUFI32X4 $0x88, Z14, Z10, Z26 \
	VSHUFI32X4 $0xdd, Z14, Z10, Z30 \
	VSHUFI32X4 $0x88, Z7, Z3, Z19 \
	VSHUFI32X4 $0xdd, Z7, Z3, Z23 \
	VSHUFI32X4 $0x88, Z15, Z11, Z27 \
	VSHUFI32X4 $0xdd, Z15, Z11, Z31 \
	VSHUFI32X4 $0x88, Z24, Z16, Z0 \
	VSHUFI32X4 $0xdd, Z24, Z16, Z8 \
	VSHUFI32X4 $0x88, Z28, Z20, Z4 \
	VSHUFI32X4 $0xdd, Z28, Z20, Z12 \
	VSHUFI32X4 $0x88, Z25, Z17, Z1 \
	VSHUFI32X4 $0xdd, Z25, Z17, Z9 \
	VSHUFI32X4 $0x88, Z29, Z21, Z5 \
	VSHUFI32X4 $0xdd, Z29, Z21, Z13 \
	VSHUFI32X4 $0x88, Z26, Z18, Z2 \
	VSHUFI32X4 $0xdd, Z26, Z18, Z10 \
	VSHUFI32X4 $0x88, Z30, Z22, Z6 \
	VSHUFI32X4 $0xdd, Z30, Z22, Z14 \
	VSHUFI32X4 $0x88, Z27, Z19, Z3 \
	VSHUFI32X4 $0xdd, Z27, Z19, Z11 \
	VSHUFI32X4 $0x88, Z31, Z23, Z7 \
	VSHUFI32X4 $0xdd, Z31, Z23, Z15

// STOREQ writes the 16 column pairs of Z0-Z15 to the pack, 128 bytes apart from off(DI).
#define STOREQ(off) \
	VMOVDQU32 Z0, off+0(DI) \
	VMOVDQU32 Z1, off+128(DI) \
	VMOVDQU32 Z2, off+256(DI) \
	VMOVDQU32 Z3, off+384(DI) \
	VMOVDQU32 Z4, off+512(DI) \
	VMOVDQU32 Z5, off+640(DI) \
	VMOVDQU32 Z6, off+768(DI) \
	VMOVDQU32 Z7, off+896(DI) \
	VMOVDQU32 Z8, off+1024(DI) \
	VMOVDQU32 Z9, off+1152(DI) \
	VMOVDQU32 Z10, off+1280(DI) \
	VMOVDQU32 Z11, off+1408(DI) \
	VMOVDQU32 Z12, off+1536(DI) \
	VMOVDQU32 Z13, off+1664(DI) \
	VMOVDQU32 Z14, off+1792(DI) \
	VMOVDQU32 Z15, off+1920(DI)

// ROWS16 decodes 16 rows with ROW(Zr, Yr, 4r, o1, o2) from the current block (ROW steps AX to
// the next row; o1 and o2 are offsets some decoders take).
#define ROWS16(ROW, o1, o2) \
	MOVQ SI, AX \
	ROW(Z0, Y0, 0, o1, o2) \
	ROW(Z1, Y1, 4, o1, o2) \
	ROW(Z2, Y2, 8, o1, o2) \
	ROW(Z3, Y3, 12, o1, o2) \
	ROW(Z4, Y4, 16, o1, o2) \
	ROW(Z5, Y5, 20, o1, o2) \
	ROW(Z6, Y6, 24, o1, o2) \
	ROW(Z7, Y7, 28, o1, o2) \
	ROW(Z8, Y8, 32, o1, o2) \
	ROW(Z9, Y9, 36, o1, o2) \
	ROW(Z10, Y10, 40, o1, o2) \
	ROW(Z11, Y11, 44, o1, o2) \
	ROW(Z12, Y12, 48, o1, o2) \
	ROW(Z13, Y13, 52, o1, o2) \
	ROW(Z14, Y14, 56, o1, o2) \
	ROW(Z15, Y15, 60, o1, o2)

// Q8ROW: a Q8_0 block's scale to s, its 32 int8 quants widened to int16.
#define Q8ROW(Z, Y, soff, o1, o2) \
	MOVWLZX (AX), BX \
	MOVL (R9)(BX*4), BX \
	MOVL BX, soff(DX) \
	VPMOVSXBW 2(AX), Z \
	PREFETCHT0 PFQ8(AX) \
	ADDQ R8, AX

// Q4ROW: a Q4_0 block's scale to s, its 16 bytes in both halves of Y, widened, shifted by
// nibshift and masked: low nibbles (columns 0-15) then high ones (16-31), minus 8. Z16-Z18 hold
// nibshift, 0x000f and 8 in every word.
#define Q4ROW(Z, Y, soff, o1, o2) \
	MOVWLZX (AX), BX \
	MOVL (R9)(BX*4), BX \
	MOVL BX, soff(DX) \
	VBROADCASTI128 2(AX), Y \
	VPMOVZXBW Y, Z \
	VPSRLVW Z16, Z, Z \
	VPANDD Z17, Z, Z \
	VPSUBW Z18, Z, Z \
	PREFETCHT0 PFQ4(AX) \
	ADDQ R8, AX

// K4SCALES: a Q4_K block's eight scales and minimums (q4KScaleMin) as 16 floats, d·scale in
// lanes 0-7 and dmin·min in 8-15 (K1 = 0xff00 puts dmin there). Z26-Z30 hold k4lo, k4hi,
// k4shift, k4mask and k4top.
#define K4SCALES(Z, Y, soff, o1, o2) \
	VMOVDQU32 4(AX), X19 \
	VPSHUFB X26, X19, X20 \
	VPSHUFB X27, X19, X21 \
	VPMOVZXBD X20, Z20 \
	VPMOVZXBD X21, Z21 \
	VPSRLVD Z28, Z20, Z20 \
	VPANDD Z29, Z20, Z20 \
	VPSRLD $6, Z21, Z21 \
	VPSLLD $4, Z21, Z21 \
	VPANDD Z30, Z21, Z21 \
	VPORD Z21, Z20, Z20 \
	VCVTDQ2PS Z20, Z20 \
	MOVWLZX (AX), BX \
	VBROADCASTSS (R9)(BX*4), Z \
	MOVWLZX 2(AX), BX \
	VBROADCASTSS (R9)(BX*4), K1, Z \
	VMULPS Z20, Z, Z \
	PREFETCHT0 PFK4+0(AX) \
	PREFETCHT0 PFK4+64(AX) \
	PREFETCHT0 PFK4+128(AX) \
	ADDQ R8, AX

// K4LO and K4HI: the low and high nibbles of a Q4_K block's 32 bytes at o1(AX) (two
// sub-blocks); Z16 holds 0x000f in every word.
#define K4LO(Z, Y, soff, o1, o2) \
	VPMOVZXBW o1(AX), Z \
	VPANDD Z16, Z, Z \
	ADDQ R8, AX

#define K4HI(Z, Y, soff, o1, o2) \
	VPMOVZXBW o1(AX), Z \
	VPSRLW $4, Z, Z \
	ADDQ R8, AX

// Q6SCALES: a Q6_K block's 16 int8 group scales times d, as floats.
#define Q6SCALES(Z, Y, soff, o1, o2) \
	VPMOVSXBD 192(AX), Z \
	VCVTDQ2PS Z, Z \
	MOVWLZX 208(AX), BX \
	VBROADCASTSS (R9)(BX*4), Z19 \
	VMULPS Z19, Z, Z \
	PREFETCHT0 PFQ6+0(AX) \
	PREFETCHT0 PFQ6+64(AX) \
	PREFETCHT0 PFQ6+128(AX) \
	PREFETCHT0 PFQ6+192(AX) \
	ADDQ R8, AX

// BF16ROW: 16 bfloat16 weights widened to float32 (the 16 bits on top of zeros, exactly as
// WidenBF16), for packBF16AVX512.
#define BF16ROW(Z, Y, soff, o1, o2) \
	VPMOVZXWD (AX), Z \
	VPSLLD $16, Z, Z \
	PREFETCHT0 PFQ8(AX) \
	ADDQ R8, AX

// Q6S0 .. Q6S3: the four 32-column spans of one half of a Q6_K block (widenQ6): ql's low
// nibbles of bytes 0-31 and 32-63, then their high nibbles, each with its two bits of qh
// (bits 0-1, 2-3, 4-5, 6-7) on top, minus 32. o1 and o2 are the half's ql and qh offsets;
// Z16, Z17, Z18 hold 0x000f, 0x0030 and 32 in every word.
#define Q6S0(Z, Y, soff, o1, o2) \
	VPMOVZXBW o1+0(AX), Z \
	VPMOVZXBW o2(AX), Z19 \
	VPANDD Z16, Z, Z \
	VPSLLW $4, Z19, Z19 \
	VPANDD Z17, Z19, Z19 \
	VPORD Z19, Z, Z \
	VPSUBW Z18, Z, Z \
	ADDQ R8, AX

#define Q6S1(Z, Y, soff, o1, o2) \
	VPMOVZXBW o1+32(AX), Z \
	VPMOVZXBW o2(AX), Z19 \
	VPANDD Z16, Z, Z \
	VPSLLW $2, Z19, Z19 \
	VPANDD Z17, Z19, Z19 \
	VPORD Z19, Z, Z \
	VPSUBW Z18, Z, Z \
	ADDQ R8, AX

#define Q6S2(Z, Y, soff, o1, o2) \
	VPMOVZXBW o1+0(AX), Z \
	VPMOVZXBW o2(AX), Z19 \
	VPSRLW $4, Z, Z \
	VPANDD Z17, Z19, Z19 \
	VPORD Z19, Z, Z \
	VPSUBW Z18, Z, Z \
	ADDQ R8, AX

#define Q6S3(Z, Y, soff, o1, o2) \
	VPMOVZXBW o1+32(AX), Z \
	VPMOVZXBW o2(AX), Z19 \
	VPSRLW $4, Z, Z \
	VPSRLW $2, Z19, Z19 \
	VPANDD Z17, Z19, Z19 \
	VPORD Z19, Z, Z \
	VPSUBW Z18, Z, Z \
	ADDQ R8, AX

// STORES writes Z0-Z15 (a block's scale rows, transposed) to s, 256 bytes (one scale block) apart.
#define STORES(base) \
	VMOVUPS Z0, base+0(DX) \
	VMOVUPS Z1, base+256(DX) \
	VMOVUPS Z2, base+512(DX) \
	VMOVUPS Z3, base+768(DX) \
	VMOVUPS Z4, base+1024(DX) \
	VMOVUPS Z5, base+1280(DX) \
	VMOVUPS Z6, base+1536(DX) \
	VMOVUPS Z7, base+1792(DX) \
	VMOVUPS Z8, base+2048(DX) \
	VMOVUPS Z9, base+2304(DX) \
	VMOVUPS Z10, base+2560(DX) \
	VMOVUPS Z11, base+2816(DX) \
	VMOVUPS Z12, base+3072(DX) \
	VMOVUPS Z13, base+3328(DX) \
	VMOVUPS Z14, base+3584(DX) \
	VMOVUPS Z15, base+3840(DX)

// ZEROMINS writes the zero minimum terms of 16 scale blocks (Q6_K has none).
#define ZEROMINS \
	VPXORD Z16, Z16, Z16 \
	VMOVDQU32 Z16, 128(DX) \
	VMOVDQU32 Z16, 384(DX) \
	VMOVDQU32 Z16, 640(DX) \
	VMOVDQU32 Z16, 896(DX) \
	VMOVDQU32 Z16, 1152(DX) \
	VMOVDQU32 Z16, 1408(DX) \
	VMOVDQU32 Z16, 1664(DX) \
	VMOVDQU32 Z16, 1920(DX) \
	VMOVDQU32 Z16, 2176(DX) \
	VMOVDQU32 Z16, 2432(DX) \
	VMOVDQU32 Z16, 2688(DX) \
	VMOVDQU32 Z16, 2944(DX) \
	VMOVDQU32 Z16, 3200(DX) \
	VMOVDQU32 Z16, 3456(DX) \
	VMOVDQU32 Z16, 3712(DX) \
	VMOVDQU32 Z16, 3968(DX)

// Q6CONSTS puts 0x000f, 0x0030 and 32 in every word of Z16, Z17, Z18 (TRANSPOSE16 overwrites them).
#define Q6CONSTS \
	MOVL $0x000f000f, BX \
	VPBROADCASTD BX, Z16 \
	MOVL $0x00300030, BX \
	VPBROADCASTD BX, Z17 \
	MOVL $0x00200020, BX \
	VPBROADCASTD BX, Z18

// func packQ8_0AVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)
//
// One Q8_0 block (32 columns) of 16 rows per step.
TEXT ·packQ8_0AVX512(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), DI
	MOVQ s+8(FP), DX
	MOVQ raw+16(FP), SI
	MOVQ rowBytes+24(FP), R8
	MOVQ nb+32(FP), CX
	MOVQ f16+40(FP), R9

q8block:
	ROWS16(Q8ROW, 0, 0)
	TRANSPOSE16
	STOREQ(0)
	VPXORD Z16, Z16, Z16
	VMOVDQU32 Z16, 128(DX)
	ADDQ $2048, DI
	ADDQ $34, SI
	ADDQ $256, DX
	DECQ CX
	JNE q8block
	VZEROUPPER
	RET

// func packQ4_0AVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)
//
// One Q4_0 block (32 columns) of 16 rows per step.
TEXT ·packQ4_0AVX512(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), DI
	MOVQ s+8(FP), DX
	MOVQ raw+16(FP), SI
	MOVQ rowBytes+24(FP), R8
	MOVQ nb+32(FP), CX
	MOVQ f16+40(FP), R9

q4block:
	VMOVDQU64 nibshift<>(SB), Z16
	MOVL $0x000f000f, BX
	VPBROADCASTD BX, Z17
	MOVL $0x00080008, BX
	VPBROADCASTD BX, Z18
	ROWS16(Q4ROW, 0, 0)
	TRANSPOSE16
	STOREQ(0)
	VPXORD Z16, Z16, Z16
	VMOVDQU32 Z16, 128(DX)
	ADDQ $2048, DI
	ADDQ $18, SI
	ADDQ $256, DX
	DECQ CX
	JNE q4block
	VZEROUPPER
	RET

// func packQ4_KAVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)
//
// One Q4_K block (256 columns, eight sub-blocks of 32) of 16 rows per step: the scales and
// minimums, then four times 32 bytes of quants, each two sub-blocks (low nibbles, high ones).
TEXT ·packQ4_KAVX512(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), DI
	MOVQ s+8(FP), DX
	MOVQ raw+16(FP), SI
	MOVQ rowBytes+24(FP), R8
	MOVQ nb+32(FP), CX
	MOVQ f16+40(FP), R9

	MOVL $0xff00, BX
	KMOVW BX, K1
k4block:
	VMOVDQU32 k4lo<>(SB), X26
	VMOVDQU32 k4hi<>(SB), X27
	VMOVDQU64 k4shift<>(SB), Z28
	VMOVDQU64 k4mask<>(SB), Z29
	VMOVDQU64 k4top<>(SB), Z30
	ROWS16(K4SCALES, 0, 0)
	TRANSPOSE16
	// Z0-Z7: the scales of sub-blocks 0-7 of the 16 rows, to S; Z8-Z15: their minimums, to S + 32 floats
	VMOVUPS Z0, 0(DX)
	VMOVUPS Z1, 256(DX)
	VMOVUPS Z2, 512(DX)
	VMOVUPS Z3, 768(DX)
	VMOVUPS Z4, 1024(DX)
	VMOVUPS Z5, 1280(DX)
	VMOVUPS Z6, 1536(DX)
	VMOVUPS Z7, 1792(DX)
	VMOVUPS Z8, 128(DX)
	VMOVUPS Z9, 384(DX)
	VMOVUPS Z10, 640(DX)
	VMOVUPS Z11, 896(DX)
	VMOVUPS Z12, 1152(DX)
	VMOVUPS Z13, 1408(DX)
	VMOVUPS Z14, 1664(DX)
	VMOVUPS Z15, 1920(DX)
	MOVL $0x000f000f, BX
	VPBROADCASTD BX, Z16
	ROWS16(K4LO, 16, 0)
	TRANSPOSE16
	STOREQ(0)
	ROWS16(K4HI, 16, 0)
	TRANSPOSE16
	STOREQ(2048)
	MOVL $0x000f000f, BX
	VPBROADCASTD BX, Z16
	ROWS16(K4LO, 48, 0)
	TRANSPOSE16
	STOREQ(4096)
	ROWS16(K4HI, 48, 0)
	TRANSPOSE16
	STOREQ(6144)
	MOVL $0x000f000f, BX
	VPBROADCASTD BX, Z16
	ROWS16(K4LO, 80, 0)
	TRANSPOSE16
	STOREQ(8192)
	ROWS16(K4HI, 80, 0)
	TRANSPOSE16
	STOREQ(10240)
	MOVL $0x000f000f, BX
	VPBROADCASTD BX, Z16
	ROWS16(K4LO, 112, 0)
	TRANSPOSE16
	STOREQ(12288)
	ROWS16(K4HI, 112, 0)
	TRANSPOSE16
	STOREQ(14336)
	ADDQ $16384, DI
	ADDQ $144, SI
	ADDQ $2048, DX
	DECQ CX
	JNE k4block
	VZEROUPPER
	RET

// func packQ6_KAVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)
//
// One Q6_K block (256 columns, sixteen scale groups of 16) of 16 rows per step: the scales,
// then each half's four 32-column spans.
TEXT ·packQ6_KAVX512(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), DI
	MOVQ s+8(FP), DX
	MOVQ raw+16(FP), SI
	MOVQ rowBytes+24(FP), R8
	MOVQ nb+32(FP), CX
	MOVQ f16+40(FP), R9

q6block:
	ROWS16(Q6SCALES, 0, 0)
	TRANSPOSE16
	STORES(0)
	ZEROMINS
	Q6CONSTS
	ROWS16(Q6S0, 0, 128)
	TRANSPOSE16
	STOREQ(0)
	Q6CONSTS
	ROWS16(Q6S1, 0, 128)
	TRANSPOSE16
	STOREQ(2048)
	Q6CONSTS
	ROWS16(Q6S2, 0, 128)
	TRANSPOSE16
	STOREQ(4096)
	Q6CONSTS
	ROWS16(Q6S3, 0, 128)
	TRANSPOSE16
	STOREQ(6144)
	Q6CONSTS
	ROWS16(Q6S0, 64, 160)
	TRANSPOSE16
	STOREQ(8192)
	Q6CONSTS
	ROWS16(Q6S1, 64, 160)
	TRANSPOSE16
	STOREQ(10240)
	Q6CONSTS
	ROWS16(Q6S2, 64, 160)
	TRANSPOSE16
	STOREQ(12288)
	Q6CONSTS
	ROWS16(Q6S3, 64, 160)
	TRANSPOSE16
	STOREQ(14336)
	ADDQ $16384, DI
	ADDQ $210, SI
	ADDQ $4096, DX
	DECQ CX
	JNE q6block
	VZEROUPPER
	RET

// func packBF16AVX512(pack *float32, w *uint16, rowBytes, n int)
//
// Tile's float pack (pack[j*32 + i] = row i's value j) of 16 bfloat16 rows, rowBytes apart, for
// n columns (a multiple of 16): per step 16 columns of the 16 rows, widened into Z0-Z15 and
// turned around by TRANSPOSE16, so that Zc is column c's 16 rows, stored 128 bytes apart as
// STOREQ stores column pairs. Registers: DI pack, SI w (the current columns of row 0), R8
// rowBytes, CX steps left, AX the row being read.
TEXT ·packBF16AVX512(SB), NOSPLIT, $0-32
	MOVQ pack+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ rowBytes+16(FP), R8
	MOVQ n+24(FP), CX
	SHRQ $4, CX

bfstep:
	ROWS16(BF16ROW, 0, 0)
	TRANSPOSE16
	STOREQ(0)
	ADDQ $2048, DI
	ADDQ $32, SI
	DECQ CX
	JNE  bfstep
	VZEROUPPER
	RET
