// Macros shared by the quantized dot kernels of one token (quant_avx2_amd64.s) and of several tokens
// (multi_avx2_amd64.s). Both kinds build every token's result with these same macros, so that they
// do the same float operations on every lane in the same order: a batch of tokens gets, bit for
// bit, what each token gets alone.
//
// The float formula of a row of Q8_0, Q4_0 or Q4_K blocks (they differ only in what a block is
// and in its scale c; Q6_K has its own, below):
//
//	acc = fma(float(P_b), c_b, acc)   for the blocks b of the row in order, lane by lane;
//	                                  P_b: eight int32 lanes of block b's integer products
//	                                  (exact), c_b = d_b·s_b: the weights' scale times the
//	                                  activations' (Q4_K: d·scale_j·s_j per sub-block)
//	dot = HSUM(acc)                   at the end of the row
//
// (Q4_K also subtracts its minimums' term once per super-block.) A block's eight lanes are
// scaled as they are, without first being summed into one integer: horizontal adds (VPHADDD)
// cost two cycles each on this machine, more than the multiply-adds. The chain of fused
// multiply-adds on one accumulator has the FMA's latency per block, so the one-token Q4_0 and
// Q4_K kernels work on four rows at a time (four chains), and the batched kernels on several
// tokens.

// GATHERD8(stride, p) gathers the float16 scales of eight blocks stride bytes apart from p into
// X3 and converts them to eight floats in Y3; AX is clobbered.
#define GATHERD8(stride, p) \
	MOVWLZX   (p), AX \
	VMOVQ      AX, X3 \
	VPINSRW   $1, stride(p), X3, X3 \
	VPINSRW   $2, 2*stride(p), X3, X3 \
	VPINSRW   $3, 3*stride(p), X3, X3 \
	VPINSRW   $4, 4*stride(p), X3, X3 \
	VPINSRW   $5, 5*stride(p), X3, X3 \
	VPINSRW   $6, 6*stride(p), X3, X3 \
	VPINSRW   $7, 7*stride(p), X3, X3 \
	VCVTPH2PS X3, Y3

// HSUM(y, x) sums the eight float lanes of y into the low lane of x (the same register); X1 is
// clobbered.
#define HSUM(y, x) \
	VEXTRACTF128 $1, y, X1 \
	VADDPS       X1, x, x \
	VHADDPS      x, x, x \
	VHADDPS      x, x, x

// ZHALVES(z, y, x, lo, hi) stores the two rows' sums of accumulator z (y, x: its low 256 and 128
// bits) at lo(AX) and hi(AX), each half summed as HSUM sums; X12 and X1 are clobbered.
#define ZHALVES(z, y, x, lo, hi) \
	VEXTRACTF64X4 $1, z, Y12 \
	HSUM(y, x) \
	VMOVSS        x, lo(AX) \
	HSUM(Y12, X12) \
	VMOVSS        X12, hi(AX)

// QFMA(cs, acc) finishes a 32-value block whose products, summed in pairs by VPMADDWD, are in Y5
// and Y6: their eight int32 lane sums converted to float, times the block's scale c (broadcast
// from cs), added to acc. Y6 is clobbered.
#define QFMA(cs, acc) \
	VPADDD       Y6, Y5, Y5 \
	VCVTDQ2PS    Y5, Y5 \
	VBROADCASTSS cs, Y6 \
	VFMADD231PS  Y6, Y5, acc

// QTOK(x0, x1, cs, acc) is one token's share of a 32-value block whose weights, widened to int16,
// are in Y1 (values 0-15) and Y2 (16-31): the products with the token's activations at x0 and
// x1, then QFMA.
#define QTOK(x0, x1, cs, acc) \
	VPMADDWD x0, Y1, Y5 \
	VPMADDWD x1, Y2, Y6 \
	QFMA(cs, acc)

// Q8W(off) widens the 32 int8 quants of the Q8_0 block at byte off of SI into Y1 and Y2.
#define Q8W(off) \
	VPMOVSXBW off+2(SI), Y1 \
	VPMOVSXBW off+18(SI), Y2

// The one-token kernels (quant_avx2_amd64.s), func dotXActAVX2(w *byte, stride, rows int, q *int16,
// scale, sum *float32, n int, out *float32). Those of Q4_0 and Q4_K work on four rows at a time,
// then one by one. Their registers: R12 the first row, R10 the row stride, R13 the first row's
// index; SI, R14, BX and R9 the four rows' blocks, R11 the prefetch pointer; DI the activations,
// DX their scales, CX the groups left; Y8..Y11 the four rows' sums; the frame holds each row's
// block scales c for a group (32 bytes per row).

// R4START begins four rows from R12 (R10 bytes apart): their blocks at SI, R14, BX and R9, the
// activation pointers at their starts, the group counter from n, the four sums Y8..Y11 cleared.
#define R4START \
	MOVQ   R12, SI \
	LEAQ   (R12)(R10*1), R14 \
	LEAQ   (R14)(R10*1), BX \
	LEAQ   (BX)(R10*1), R9 \
	MOVQ   q+24(FP), DI \
	MOVQ   scale+32(FP), DX \
	MOVQ   n+48(FP), CX \
	LEAQ   (R9)(R10*4), R11 \
	LEAQ   (R11)(R10*1), R11 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// R4END stores the four rows' sums in out[R13..R13+3] and moves R12, R13 to the next four rows.
#define R4END \
	MOVQ   out+56(FP), AX \
	LEAQ   (AX)(R13*4), AX \
	HSUM(Y8, X8) \
	VMOVSS X8, (AX) \
	HSUM(Y9, X9) \
	VMOVSS X9, 4(AX) \
	HSUM(Y10, X10) \
	VMOVSS X10, 8(AX) \
	HSUM(Y11, X11) \
	VMOVSS X11, 12(AX) \
	LEAQ   (R12)(R10*4), R12 \
	ADDQ   $4, R13

// R4ADVANCE moves the four rows' block pointers on by bytes.
#define R4ADVANCE(bytes) \
	ADDQ $bytes, SI \
	ADDQ $bytes, R14 \
	ADDQ $bytes, BX \
	ADDQ $bytes, R9

// R4LEFT jumps to one if fewer than four rows are left, and to done if none is.
#define R4LEFT(one, done) \
	MOVQ rows+16(FP), AX \
	SUBQ R13, AX \
	JEQ  done \
	CMPQ AX, $4 \
	JLT  one

// R1START and R1END: the same for one row (sum in Y8).
#define R1START \
	MOVQ   R12, SI \
	MOVQ   q+24(FP), DI \
	MOVQ   scale+32(FP), DX \
	MOVQ   n+48(FP), CX \
	VXORPS Y8, Y8, Y8

#define R1END \
	MOVQ   out+56(FP), AX \
	HSUM(Y8, X8) \
	VMOVSS X8, (AX)(R13*4) \
	ADDQ   R10, R12 \
	INCQ   R13

// SCALE4(stride) gathers the block scales d of the group of each of the four rows, multiplies
// them by the activations' scales and keeps the products c in the frame (32 bytes per row).
#define SCALE4(stride) \
	GATHERD8(stride, SI) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, (SP) \
	GATHERD8(stride, R14) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, 32(SP) \
	GATHERD8(stride, BX) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, 64(SP) \
	GATHERD8(stride, R9) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, 96(SP)


// Q4_K. A 144-byte super-block: float16 d and dmin, twelve bytes of 6-bit scales and minimums
// for its eight 32-value sub-blocks, 128 bytes of 4-bit quants (32 bytes per pair of sub-blocks:
// sub-block 2c in the low nibbles, 2c+1 in the high ones). Its formula, per super-block:
//
//	acc = acc − (dmin·min_j)·Sum_j        eight lanes j at once (Sum_j = s_j·Σ a over sub-block j)
//	acc = fma(float(P_j), c_j, acc)        j = 0..7, c_j = (d·scale_j)·s_j

// The 6-bit scales and minimums, unpacked from the words u0, u1, u2 of the twelve bytes:
//	scales 0-3 = u0 & 0x3f3f3f3f      scales 4-7 = (u2 & 0x0f0f0f0f) | ((u0 >> 2) & 0x30303030)
//	mins 0-3   = u1 & 0x3f3f3f3f      mins 4-7   = ((u2 >> 4) & 0x0f0f0f0f) | ((u1 >> 2) & 0x30303030)
DATA q4kshift<>+0(SB)/8, $0
DATA q4kshift<>+8(SB)/8, $0x0000000400000000
GLOBL q4kshift<>(SB), RODATA|NOPTR, $16
DATA q4kmask1<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA q4kmask1<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL q4kmask1<>(SB), RODATA|NOPTR, $16
DATA q4kmask2<>+0(SB)/8, $0x3030303000000000
DATA q4kmask2<>+8(SB)/8, $0x3030303000000000
GLOBL q4kmask2<>(SB), RODATA|NOPTR, $16

// Q4KSC(p) unpacks the scales of the super-block at p: Y3 = d·scale_j and Y4 = dmin·min_j for
// j = 0..7. X1, X2, X5, X6 are clobbered. The same products as chapter 01's d·float(scale).
#define Q4KSC(p) \
	VMOVDQU     4(p), X5 \
	VPSHUFD     $0x98, X5, X6 \
	VPSRLVD     q4kshift<>(SB), X6, X6 \
	VPAND       q4kmask1<>(SB), X6, X6 \
	VPSHUFD     $0x50, X5, X1 \
	VPSRLD      $2, X1, X1 \
	VPAND       q4kmask2<>(SB), X1, X1 \
	VPOR        X1, X6, X6 \
	VPMOVZXBD   X6, Y1 \
	VCVTDQ2PS   Y1, Y1 \
	VPSHUFD     $0xee, X6, X6 \
	VPMOVZXBD   X6, Y2 \
	VCVTDQ2PS   Y2, Y2 \
	VPBROADCASTW (p), X5 \
	VCVTPH2PS   X5, Y5 \
	VMULPS      Y1, Y5, Y3 \
	VPBROADCASTW 2(p), X5 \
	VCVTPH2PS   X5, Y5 \
	VMULPS      Y2, Y5, Y4

// LO4W sets Y0 to 0x000F in every 16-bit lane.
#define LO4W \
	VPCMPEQW Y0, Y0, Y0 \
	VPSRLW   $12, Y0, Y0

// Q4KLO(q, p) widens the 32 quant bytes at byte q of p into Y3, Y4 (16-bit lanes) and puts the
// low nibbles (sub-block 2c) in Y1 and Y2; Q4KHI then puts the high nibbles (2c+1) there.
#define Q4KLO(q, p) \
	VPMOVZXBW q(p), Y3 \
	VPMOVZXBW q+16(p), Y4 \
	VPAND     Y0, Y3, Y1 \
	VPAND     Y0, Y4, Y2

#define Q4KHI \
	VPSRLW $4, Y3, Y1 \
	VPSRLW $4, Y4, Y2

// Q4KROW(q, p, coff, acc) is one row's pair of sub-blocks for one token whose activations are in
// Y1, Y2 (sub-block 2c) and Y12, Y13 (2c+1); their scales at coff and coff+4 in the frame.
#define Q4KROW(q, p, coff, acc) \
	VPMOVZXBW q(p), Y14 \
	VPMOVZXBW q+16(p), Y15 \
	VPAND     Y0, Y14, Y5 \
	VPAND     Y0, Y15, Y6 \
	VPMADDWD  Y1, Y5, Y5 \
	VPMADDWD  Y2, Y6, Y6 \
	QFMA(coff(SP), acc) \
	VPSRLW    $4, Y14, Y5 \
	VPSRLW    $4, Y15, Y6 \
	VPMADDWD  Y12, Y5, Y5 \
	VPMADDWD  Y13, Y6, Y6 \
	QFMA(coff+4(SP), acc)

// Q4KR4SC(p, sum, foff, acc): one of the four rows' super-block scales (Q4KSC), its minimums'
// term subtracted from its sum at once, and its c_j = d·scale_j·s_j kept in the frame at foff.
#define Q4KR4SC(p, foff, acc) \
	Q4KSC(p) \
	VFNMADD231PS (R8), Y4, acc \
	VMULPS       (DX), Y3, Y3 \
	VMOVUPS      Y3, foff(SP)

// Q4KR4CHUNK(c): chunk c (sub-blocks 2c, 2c+1) of the four rows.
#define Q4KR4CHUNK(c) \
	VMOVDQU 128*c(DI), Y1 \
	VMOVDQU 128*c+32(DI), Y2 \
	VMOVDQU 128*c+64(DI), Y12 \
	VMOVDQU 128*c+96(DI), Y13 \
	Q4KROW(16+32*c, SI, 8*c, Y8) \
	Q4KROW(16+32*c, R14, 32+8*c, Y9) \
	Q4KROW(16+32*c, BX, 64+8*c, Y10) \
	Q4KROW(16+32*c, R9, 96+8*c, Y11)

// Q4_0. An 18-byte block: float16 d, then 16 bytes holding quant j in the low nibble and quant
// j+16 in the high one; the weights are d·(q−8). Y0 holds 0x000F and Y7 8 in every 16-bit lane.
#define W8W \
	VPCMPEQW Y7, Y7, Y7 \
	VPSRLW   $15, Y7, Y7 \
	VPSLLW   $3, Y7, Y7

// Q40W(off) widens and centres the 32 quants of the block at byte off of SI into Y1 and Y2.
#define Q40W(off) \
	VPMOVZXBW off+2(SI), Y2 \
	VPAND     Y0, Y2, Y1 \
	VPSRLW    $4, Y2, Y2 \
	VPSUBW    Y7, Y1, Y1 \
	VPSUBW    Y7, Y2, Y2

// Q40ROW(off, p, cs, acc) is one row's share of a block for one token whose activations are in
// Y1 and Y2: the row's Q4_0 block at byte off of p widened and centred into Y5 and Y6,
// multiplied, then QFMA.
#define Q40ROW(off, p, cs, acc) \
	VPMOVZXBW off+2(p), Y6 \
	VPAND     Y0, Y6, Y5 \
	VPSRLW    $4, Y6, Y6 \
	VPSUBW    Y7, Y5, Y5 \
	VPSUBW    Y7, Y6, Y6 \
	VPMADDWD  Y1, Y5, Y5 \
	VPMADDWD  Y2, Y6, Y6 \
	QFMA(cs, acc)

// Q40R4(off, xoff, coff): block b (byte off of each row, activations at byte xoff, scale at
// byte coff of each row's 32 in the frame) of the four rows.
#define Q40R4(off, xoff, coff) \
	VMOVDQU xoff(DI), Y1 \
	VMOVDQU xoff+32(DI), Y2 \
	Q40ROW(off, SI, coff(SP), Y8) \
	Q40ROW(off, R14, coff+32(SP), Y9) \
	Q40ROW(off, BX, coff+64(SP), Y10) \
	Q40ROW(off, R9, coff+96(SP), Y11)

// Q6_K. A 210-byte super-block: 128 bytes of low 4 bits (ql), 64 bytes of high 2 bits (qh), 16
// int8 group scales and float16 d; each half (128 values) has eight 16-value groups. In 16-bit
// lanes, quant l+32k of a half takes its low bits from ql[l+32(k%2)] (low nibble for k < 2, high
// for k >= 2) and bits 4-5 from qh[l] >> 2k. The quants are multiplied uncentred (0..63) and the
// centring applied to the sums: Σ(q−32)·a = Σq·a − 32·Σa, with Σa over each 16-value group from
// the Act (Sum16). Its formula, per half:
//
//	acc = fma(float(Σ(q−32)·a over group g)·scale_g·s_b(g), d, acc)     eight lanes g at once
DATA q6lo4<>+0(SB)/8, $0x000f000f000f000f
DATA q6lo4<>+8(SB)/8, $0x000f000f000f000f
DATA q6lo4<>+16(SB)/8, $0x000f000f000f000f
DATA q6lo4<>+24(SB)/8, $0x000f000f000f000f
GLOBL q6lo4<>(SB), RODATA|NOPTR, $32
DATA q6hi2<>+0(SB)/8, $0x0030003000300030
DATA q6hi2<>+8(SB)/8, $0x0030003000300030
DATA q6hi2<>+16(SB)/8, $0x0030003000300030
DATA q6hi2<>+24(SB)/8, $0x0030003000300030
GLOBL q6hi2<>(SB), RODATA|NOPTR, $32

// Q6KW(qoff, hoff) widens a half's quants (ql at qoff, qh at hoff of SI), uncentred, into Y8..Y15.
#define Q6KW(qoff, hoff) \
	VPMOVZXBW qoff(SI), Y1 \
	VPMOVZXBW qoff+16(SI), Y2 \
	VPMOVZXBW qoff+32(SI), Y3 \
	VPMOVZXBW qoff+48(SI), Y4 \
	VPMOVZXBW hoff(SI), Y5 \
	VPMOVZXBW hoff+16(SI), Y7 \
	VPAND     q6lo4<>(SB), Y1, Y8 \
	VPSLLW    $4, Y5, Y6 \
	VPAND     q6hi2<>(SB), Y6, Y6 \
	VPOR      Y6, Y8, Y8 \
	VPAND     q6lo4<>(SB), Y2, Y9 \
	VPSLLW    $4, Y7, Y6 \
	VPAND     q6hi2<>(SB), Y6, Y6 \
	VPOR      Y6, Y9, Y9 \
	VPAND     q6lo4<>(SB), Y3, Y10 \
	VPSLLW    $2, Y5, Y6 \
	VPAND     q6hi2<>(SB), Y6, Y6 \
	VPOR      Y6, Y10, Y10 \
	VPAND     q6lo4<>(SB), Y4, Y11 \
	VPSLLW    $2, Y7, Y6 \
	VPAND     q6hi2<>(SB), Y6, Y6 \
	VPOR      Y6, Y11, Y11 \
	VPSRLW    $4, Y1, Y12 \
	VPAND     q6hi2<>(SB), Y5, Y6 \
	VPOR      Y6, Y12, Y12 \
	VPSRLW    $4, Y2, Y13 \
	VPAND     q6hi2<>(SB), Y7, Y6 \
	VPOR      Y6, Y13, Y13 \
	VPSRLW    $4, Y3, Y14 \
	VPSRLW    $2, Y5, Y6 \
	VPAND     q6hi2<>(SB), Y6, Y6 \
	VPOR      Y6, Y14, Y14 \
	VPSRLW    $4, Y4, Y15 \
	VPSRLW    $2, Y7, Y6 \
	VPAND     q6hi2<>(SB), Y6, Y6 \
	VPOR      Y6, Y15, Y15

// Q6KSUM(x, s, h) is one token's part of a half whose quants are in Y8..Y15 and group scales
// (as floats) in Y7, activations at x, their scales at s and 16-value sums at h: the eight
// products summed in pairs (VPMADDWD), reduced to one vector of eight group sums by unpacking
// (an exact integer sum, as VPHADDD would give, at a third of its cost here), centred, converted
// and scaled into Y1 = float(Σ(q−32)·a)·scale_g·s_b(g). Y2..Y6 are clobbered.
#define Q6KSUM(x, s, h) \
	VPMADDWD    0(x), Y8, Y1 \
	VPMADDWD    32(x), Y9, Y2 \
	VPUNPCKLDQ  Y2, Y1, Y3 \
	VPUNPCKHDQ  Y2, Y1, Y4 \
	VPADDD      Y4, Y3, Y1 \
	VPMADDWD    64(x), Y10, Y2 \
	VPMADDWD    96(x), Y11, Y3 \
	VPUNPCKLDQ  Y3, Y2, Y4 \
	VPUNPCKHDQ  Y3, Y2, Y5 \
	VPADDD      Y5, Y4, Y2 \
	VPUNPCKLQDQ Y2, Y1, Y3 \
	VPUNPCKHQDQ Y2, Y1, Y4 \
	VPADDD      Y4, Y3, Y1 \
	VPMADDWD    128(x), Y12, Y2 \
	VPMADDWD    160(x), Y13, Y3 \
	VPUNPCKLDQ  Y3, Y2, Y4 \
	VPUNPCKHDQ  Y3, Y2, Y5 \
	VPADDD      Y5, Y4, Y2 \
	VPMADDWD    192(x), Y14, Y3 \
	VPMADDWD    224(x), Y15, Y4 \
	VPUNPCKLDQ  Y4, Y3, Y5 \
	VPUNPCKHDQ  Y4, Y3, Y6 \
	VPADDD      Y6, Y5, Y3 \
	VPUNPCKLQDQ Y3, Y2, Y4 \
	VPUNPCKHQDQ Y3, Y2, Y5 \
	VPADDD      Y5, Y4, Y2 \
	VPERM2I128  $0x20, Y2, Y1, Y3 \
	VPERM2I128  $0x31, Y2, Y1, Y4 \
	VPADDD      Y4, Y3, Y1 \
	VMOVDQU     (h), Y2 \
	VPSLLD      $5, Y2, Y2 \
	VPSUBD      Y2, Y1, Y1 \
	VCVTDQ2PS   Y1, Y1 \
	VMULPS      Y7, Y1, Y1 \
	VMOVUPS     (s), X2 \
	VUNPCKLPS   X2, X2, X3 \
	VUNPCKHPS   X2, X2, X4 \
	VINSERTF128 $1, X4, Y3, Y3 \
	VMULPS      Y3, Y1, Y1


// Q6KNHALF(qoff, hoff, soff, again) is one half for each token of the batched kernel
// (multi_avx2_amd64.s): the token's sum at AX*8 in the frame, its activations, scales and 16-value
// sums at R9, R11, R14.
#define Q6KNHALF(qoff, hoff, soff, again) \
	Q6KW(qoff, hoff) \
	VPMOVSXBD soff(SI), Y7 \
	VCVTDQ2PS Y7, Y7 \
	MOVQ      DI, R9 \
	MOVQ      DX, R11 \
	MOVQ      BX, R14 \
	XORQ      AX, AX \
again: \
	Q6KSUM(R9, R11, R14) \
	VMOVUPS      (SP)(AX*8), Y2 \
	VFMADD231PS  Y0, Y1, Y2 \
	VMOVUPS      Y2, (SP)(AX*8) \
	ADDQ      R8, R9 \
	ADDQ      R10, R11 \
	LEAQ      (R14)(R10*2), R14 \
	ADDQ      $4, AX \
	CMPQ      AX, tokens+80(FP) \
	JLT       again \
	ADDQ      $256, DI \
	ADDQ      $16, DX \
	ADDQ      $32, BX


// PFLIN9 asks for the next nine lines (576 bytes: one step of four Q4_0 or Q4_K rows) two groups
// of four rows ahead (R11), in memory order, and moves R11 on. A group of four rows is read in
// four interleaved pieces, which the processor's own prefetchers do not follow (without this,
// four Q4_K rows streamed from memory at 2 GB/s on one core), and a fixed distance ahead of each
// row would mostly land in the group being read.
#define PFLIN9 \
	PF8(0) \
	PREFETCHT0 512(R11) \
	ADDQ       $576, R11

// PFLIN17 is PFLIN9 for four rows of Q8_0 (4 x 272 bytes a step: 17 lines).
#define PFLIN17 \
	PF8(0) \
	PF8(512) \
	PREFETCHT0 1024(R11) \
	ADDQ       $1088, R11

// PF8(off) asks for the eight lines from byte off of R11.
#define PF8(off) \
	PREFETCHT0 off(R11) \
	PREFETCHT0 off+64(R11) \
	PREFETCHT0 off+128(R11) \
	PREFETCHT0 off+192(R11) \
	PREFETCHT0 off+256(R11) \
	PREFETCHT0 off+320(R11) \
	PREFETCHT0 off+384(R11) \
	PREFETCHT0 off+448(R11)

