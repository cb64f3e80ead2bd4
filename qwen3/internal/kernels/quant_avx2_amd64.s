#include "textflag.h"
#include "quant_amd64.h"

// Kernels of quant.go: activations rounded to int16 blocks (an Act), dot products of quantized
// weight rows with an Act, and row decoders for prompt packing. AVX2 with F16C throughout.

// Constants: 16-bit lanes of 1, 32-bit lanes of 0x7FFFFFFF, and 32767.0.
DATA ones16<>+0(SB)/8, $0x0001000100010001
DATA ones16<>+8(SB)/8, $0x0001000100010001
DATA ones16<>+16(SB)/8, $0x0001000100010001
DATA ones16<>+24(SB)/8, $0x0001000100010001
GLOBL ones16<>(SB), RODATA|NOPTR, $32
DATA absmask<>+0(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+8(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+16(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+24(SB)/8, $0x7fffffff7fffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $32
DATA actmax<>+0(SB)/4, $32767.0
GLOBL actmax<>(SB), RODATA|NOPTR, $4

// REDUCE8 sums the 8 float lanes of Y0 into the low lane of X0.
#define REDUCE8 HSUM(Y0, X0)

// ROWSTART begins row R13 (from 0) of a multi-row dot kernel: SI at the row's weights (R12),
// the activation pointers back at their starts, the block counter from the argument n.
#define ROWSTART \
	MOVQ   R12, SI \
	MOVQ   q+24(FP), DI \
	MOVQ   scale+32(FP), DX \
	MOVQ   n+48(FP), CX \
	VXORPS Y0, Y0, Y0

// ROWEND stores row R13's sum (Y0) in out[R13] and moves to the next row until rows are done.
#define ROWEND(again) \
	REDUCE8 \
	MOVQ   out+56(FP), AX \
	VMOVSS X0, (AX)(R13*4) \
	ADDQ   stride+8(FP), R12 \
	INCQ   R13 \
	CMPQ   R13, rows+16(FP) \
	JLT    again \
	VZEROUPPER \
	RET

// func quantizeActAVX2(q *int16, scale, sum *float32, sum16 *int32, x *float32, nblocks int)
// Per block of 32: amax = max|x|; scale = amax/32767; q = round-to-even(x · (32767/amax)) (0 when
// amax is 0); sum16 = Σq of each half; sum = scale · Σq. The same operations, in the same float32
// order, as quantizeActGeneric.
TEXT ·quantizeActAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), DI
	MOVQ scale+8(FP), DX
	MOVQ sum+16(FP), R8
	MOVQ sum16+24(FP), R9
	MOVQ x+32(FP), SI
	MOVQ nblocks+40(FP), CX
	VMOVSS actmax<>(SB), X14
	VXORPS X13, X13, X13
	TESTQ  CX, CX
	JEQ    qadone

qaloop:
	VMOVUPS  (SI), Y0
	VMOVUPS  32(SI), Y1
	VMOVUPS  64(SI), Y2
	VMOVUPS  96(SI), Y3
	VANDPS   absmask<>(SB), Y0, Y4
	VANDPS   absmask<>(SB), Y1, Y5
	VANDPS   absmask<>(SB), Y2, Y6
	VANDPS   absmask<>(SB), Y3, Y7
	VMAXPS   Y5, Y4, Y4
	VMAXPS   Y7, Y6, Y6
	VMAXPS   Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPS   X5, X4, X4
	VPERMILPS $0x4e, X4, X5
	VMAXPS   X5, X4, X4
	VPERMILPS $0xb1, X4, X5
	VMAXPS   X5, X4, X4            // every lane: amax
	VDIVSS   X14, X4, X5           // scale = amax / 32767
	VDIVSS   X4, X14, X6           // inv = 32767 / amax
	VCMPSS   $4, X13, X4, X7       // amax != 0
	VANDPS   X7, X6, X6
	VANDPS   X7, X5, X5
	VMOVSS   X5, (DX)
	VBROADCASTSS X6, Y6
	VMULPS   Y6, Y0, Y0
	VMULPS   Y6, Y1, Y1
	VMULPS   Y6, Y2, Y2
	VMULPS   Y6, Y3, Y3
	VCVTPS2DQ Y0, Y0               // rounds to nearest even
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y2, Y2
	VCVTPS2DQ Y3, Y3
	VPACKSSDW Y1, Y0, Y0           // q0-3 q8-11 | q4-7 q12-15
	VPACKSSDW Y3, Y2, Y2
	VPERMQ   $0xd8, Y0, Y0         // q0-15 in order
	VPERMQ   $0xd8, Y2, Y2
	VMOVDQU  Y0, (DI)
	VMOVDQU  Y2, 32(DI)
	VPMADDWD ones16<>(SB), Y0, Y0  // pairwise sums, 32 bits: q0-15
	VPMADDWD ones16<>(SB), Y2, Y2  // q16-31
	VPHADDD  Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD   X1, X0, X0
	VPHADDD  X0, X0, X0            // Σq0-15, Σq16-31, ...
	VMOVQ    X0, (R9)
	VPSHUFD  $1, X0, X1
	VPADDD   X1, X0, X0
	VCVTDQ2PS X0, X0
	VMULSS   X5, X0, X0
	VMOVSS   X0, (R8)
	ADDQ     $128, SI
	ADDQ     $64, DI
	ADDQ     $4, DX
	ADDQ     $4, R8
	ADDQ     $8, R9
	DECQ     CX
	JNE      qaloop

qadone:
	VZEROUPPER
	RET

// The dot kernels take several rows at once (one call per chunk of a matrix pass) and the same
// activations for each:
//	func dotXActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// out[r] = row r (stride bytes from the previous one) · the activations; n counts groups of eight
// blocks (Q8_0, Q4_0) or super-blocks (Q4_K, Q6_K) per row; sum is read by Q4_K (its Sum) and
// Q6_K (its Sum16) only. Their formulas and macros are in quant_amd64.h, shared with the batched
// kernels (multi_avx2_amd64.s).

// func dotQ8_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// One row at a time: per group of eight 34-byte blocks, the blocks' scales d gathered and
// converted at once (F16C) and multiplied by the activations' scales into c; then block by block
// the int8 quants widened, multiplied (VPMADDWD) and added to the sum with weight c
// (quant_amd64.h). (Four rows side by side, as the 4-bit kernels do, compute 11% faster in cache
// but streamed Q8_0 rows from memory 10-25% slower: Q8_0 is the one type here whose decoding is
// bound by memory, and the one-row loop keeps a single stream for the prefetchers.)
TEXT ·dotQ8_0ActAVX2(SB), NOSPLIT, $32-64
	MOVQ w+0(FP), R12
	MOVQ stride+8(FP), R10
	XORQ R13, R13
	CMPQ R13, rows+16(FP)
	JGE  q8adone

q8a1:
	R1START

q8a1loop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4160(SI)
	PREFETCHT0 4224(SI)
	PREFETCHT0 4288(SI)
	PREFETCHT0 4352(SI)
	GATHERD8(34, SI)
	VMULPS  (DX), Y3, Y3
	VMOVUPS Y3, (SP)
	Q8W(0)
	QTOK(0(DI), 32(DI), 0(SP), Y8)
	Q8W(34)
	QTOK(64(DI), 96(DI), 4(SP), Y8)
	Q8W(68)
	QTOK(128(DI), 160(DI), 8(SP), Y8)
	Q8W(102)
	QTOK(192(DI), 224(DI), 12(SP), Y8)
	Q8W(136)
	QTOK(256(DI), 288(DI), 16(SP), Y8)
	Q8W(170)
	QTOK(320(DI), 352(DI), 20(SP), Y8)
	Q8W(204)
	QTOK(384(DI), 416(DI), 24(SP), Y8)
	Q8W(238)
	QTOK(448(DI), 480(DI), 28(SP), Y8)
	ADDQ $272, SI
	ADDQ $512, DI
	ADDQ $32, DX
	DECQ CX
	JNE  q8a1loop
	R1END
	CMPQ R13, rows+16(FP)
	JLT  q8a1

q8adone:
	VZEROUPPER
	RET

// func dotQ4_0ActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// dotQ8_0ActAVX2 for 18-byte Q4_0 blocks: each block's nibbles widened and centred (q−8).
TEXT ·dotQ4_0ActAVX2(SB), NOSPLIT, $128-64
	MOVQ w+0(FP), R12
	MOVQ stride+8(FP), R10
	XORQ R13, R13
	LO4W
	W8W

q40a4:
	R4LEFT(q40a1, q40done)
	R4START

q40a4loop:
	PFLIN9
	SCALE4(18)
	Q40R4(0, 0, 0)
	Q40R4(18, 64, 4)
	Q40R4(36, 128, 8)
	Q40R4(54, 192, 12)
	Q40R4(72, 256, 16)
	Q40R4(90, 320, 20)
	Q40R4(108, 384, 24)
	Q40R4(126, 448, 28)
	R4ADVANCE(144)
	ADDQ $512, DI
	ADDQ $32, DX
	DECQ CX
	JNE  q40a4loop
	R4END
	JMP  q40a4

q40a1:
	R1START

q40a1loop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4160(SI)
	PREFETCHT0 4224(SI)
	GATHERD8(18, SI)
	VMULPS  (DX), Y3, Y3
	VMOVUPS Y3, (SP)
	Q40W(0)
	QTOK(0(DI), 32(DI), 0(SP), Y8)
	Q40W(18)
	QTOK(64(DI), 96(DI), 4(SP), Y8)
	Q40W(36)
	QTOK(128(DI), 160(DI), 8(SP), Y8)
	Q40W(54)
	QTOK(192(DI), 224(DI), 12(SP), Y8)
	Q40W(72)
	QTOK(256(DI), 288(DI), 16(SP), Y8)
	Q40W(90)
	QTOK(320(DI), 352(DI), 20(SP), Y8)
	Q40W(108)
	QTOK(384(DI), 416(DI), 24(SP), Y8)
	Q40W(126)
	QTOK(448(DI), 480(DI), 28(SP), Y8)
	ADDQ $144, SI
	ADDQ $512, DI
	ADDQ $32, DX
	DECQ CX
	JNE  q40a1loop
	R1END
	CMPQ R13, rows+16(FP)
	JLT  q40a1

q40done:
	VZEROUPPER
	RET

// Q4KSCALES unpacks the twelve bytes of 6-bit scales and minimums at 4(SI) into eight scale bytes
// (R11) and eight minimum bytes (R9), with u0, u1, u2 the three 32-bit words:
//	scales 0-3 = u0 & 0x3f3f3f3f      scales 4-7 = (u2 & 0x0f0f0f0f) | ((u0>>6) & 0x03030303)<<4
//	mins 0-3   = u1 & 0x3f3f3f3f      mins 4-7   = ((u2>>4) & 0x0f0f0f0f) | ((u1>>6) & 0x03030303)<<4
#define Q4KSCALES \
	MOVL 4(SI), AX \
	MOVL 8(SI), BX \
	MOVL 12(SI), R9 \
	MOVL AX, R10 \
	ANDL $0x3f3f3f3f, R10 \
	SHRL $6, AX \
	ANDL $0x03030303, AX \
	SHLL $4, AX \
	MOVL R9, R11 \
	ANDL $0x0f0f0f0f, R11 \
	ORL  AX, R11 \
	SHLQ $32, R11 \
	ORQ  R10, R11 \
	MOVL BX, R10 \
	ANDL $0x3f3f3f3f, R10 \
	SHRL $6, BX \
	ANDL $0x03030303, BX \
	SHLL $4, BX \
	SHRL $4, R9 \
	ANDL $0x0f0f0f0f, R9 \
	ORL  BX, R9 \
	SHLQ $32, R9 \
	ORQ  R10, R9

// func dotQ4_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// Four rows at a time (then one), a 256-value super-block per step: each row's scales unpacked
// with vector instructions (Q4KSC) and its minimums' term subtracted at once; then, a pair of
// sub-blocks at a time, the activations loaded once for the four rows and each row's nibbles
// widened, multiplied and added with weight c_j (quant_amd64.h).
TEXT ·dotQ4_KActAVX2(SB), NOSPLIT, $128-64
	MOVQ w+0(FP), R12
	MOVQ stride+8(FP), R10
	XORQ R13, R13
	LO4W

q4k4:
	R4LEFT(q4k1, q4kdone)
	R4START
	MOVQ sum+40(FP), R8

q4k4loop:
	PFLIN9
	Q4KR4SC(SI, 0, Y8)
	Q4KR4SC(R14, 32, Y9)
	Q4KR4SC(BX, 64, Y10)
	Q4KR4SC(R9, 96, Y11)
	Q4KR4CHUNK(0)
	Q4KR4CHUNK(1)
	Q4KR4CHUNK(2)
	Q4KR4CHUNK(3)
	R4ADVANCE(144)
	ADDQ $512, DI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNE  q4k4loop
	R4END
	JMP  q4k4

q4k1:
	R1START
	MOVQ sum+40(FP), R8

q4k1loop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4160(SI)
	PREFETCHT0 4224(SI)
	Q4KSC(SI)
	VFNMADD231PS (R8), Y4, Y8
	VMULPS       (DX), Y3, Y3
	VMOVUPS      Y3, (SP)
	Q4KLO(16, SI)
	QTOK(0(DI), 32(DI), 0(SP), Y8)
	Q4KHI
	QTOK(64(DI), 96(DI), 4(SP), Y8)
	Q4KLO(48, SI)
	QTOK(128(DI), 160(DI), 8(SP), Y8)
	Q4KHI
	QTOK(192(DI), 224(DI), 12(SP), Y8)
	Q4KLO(80, SI)
	QTOK(256(DI), 288(DI), 16(SP), Y8)
	Q4KHI
	QTOK(320(DI), 352(DI), 20(SP), Y8)
	Q4KLO(112, SI)
	QTOK(384(DI), 416(DI), 24(SP), Y8)
	Q4KHI
	QTOK(448(DI), 480(DI), 28(SP), Y8)
	ADDQ $144, SI
	ADDQ $512, DI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNE  q4k1loop
	R1END
	CMPQ R13, rows+16(FP)
	JLT  q4k1

q4kdone:
	VZEROUPPER
	RET

// Q6KHALF(qoff, hoff, soff): one half of the super-block at SI for the token (activations at DI,
// scales at DX, 16-value sums at R8), added to Y0 with d from the frame.
#define Q6KHALF(qoff, hoff, soff) \
	Q6KW(qoff, hoff) \
	VPMOVSXBD   soff(SI), Y7 \
	VCVTDQ2PS   Y7, Y7 \
	Q6KSUM(DI, DX, R8) \
	VFMADD231PS (SP), Y1, Y0

// func dotQ6_KActAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32)
// Per half of a 210-byte super-block: the quants widened into eight registers, the eight 16-value
// group sums in the lanes of one vector, then in float: acc += d·(Σ(q−32)·a · scale_g · s_b(g))
// (quant_amd64.h). sum points to the Act's Sum16 (int32 sums of 16 activations), not to its Sum.
TEXT ·dotQ6_KActAVX2(SB), NOSPLIT, $32-64
	MOVQ w+0(FP), R12
	XORQ R13, R13

q6krow:
	ROWSTART
	MOVQ sum+40(FP), R8

q6kloop:
	PREFETCHT0   4096(SI)
	PREFETCHT0   4160(SI)
	PREFETCHT0   4224(SI)
	PREFETCHT0   4288(SI)
	MOVWLZX      208(SI), AX
	VMOVQ        AX, X1
	VCVTPH2PS    X1, X1
	VBROADCASTSS X1, Y1
	VMOVUPS      Y1, (SP)
	Q6KHALF(0, 128, 192)
	ADDQ $256, DI
	ADDQ $16, DX
	ADDQ $32, R8
	Q6KHALF(64, 160, 200)
	ADDQ $256, DI
	ADDQ $16, DX
	ADDQ $32, R8
	ADDQ $210, SI
	DECQ CX
	JNE  q6kloop
	ROWEND(q6krow)

// func decodeQ4_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)
// dst[j] = (q_j − 8)·d, exactly as chapter 01: the integer is converted exactly, then one product.
TEXT ·decodeQ4_0AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nblocks+16(FP), CX
	MOVQ f16+24(FP), R8
	VPCMPEQD Y6, Y6, Y6
	VPSRLD   $28, Y6, Y6            // 0x0000000F per lane
	VPCMPEQD Y5, Y5, Y5
	VPSRLD   $31, Y5, Y5
	VPSLLD   $3, Y5, Y5             // 8 per lane

d40loop:
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Y7
	VPMOVZXBD    2(SI), Y0          // bytes 0-7
	VPMOVZXBD    10(SI), Y1         // bytes 8-15
	VPAND        Y6, Y0, Y2         // values 0-7
	VPAND        Y6, Y1, Y3         // values 8-15
	VPSRLD       $4, Y0, Y0         // values 16-23
	VPSRLD       $4, Y1, Y1         // values 24-31
	VPSUBD       Y5, Y2, Y2
	VPSUBD       Y5, Y3, Y3
	VPSUBD       Y5, Y0, Y0
	VPSUBD       Y5, Y1, Y1
	VCVTDQ2PS    Y2, Y2
	VCVTDQ2PS    Y3, Y3
	VCVTDQ2PS    Y0, Y0
	VCVTDQ2PS    Y1, Y1
	VMULPS       Y7, Y2, Y2
	VMULPS       Y7, Y3, Y3
	VMULPS       Y7, Y0, Y0
	VMULPS       Y7, Y1, Y1
	VMOVUPS      Y2, (DI)
	VMOVUPS      Y3, 32(DI)
	VMOVUPS      Y0, 64(DI)
	VMOVUPS      Y1, 96(DI)
	ADDQ         $18, SI
	ADDQ         $128, DI
	DECQ         CX
	JNE          d40loop

	VZEROUPPER
	RET

// D4KSUB writes the 32 values of one Q4_K sub-block from the 32 quant bytes at qoff(SI): shift 0
// for the low nibbles, 4 for the high ones; Y7 = d·scale, Y5 = dmin·min (products rounded as in
// chapter 01, then (d·scale)·q − dmin·min without a fused multiply-add).
#define D4KSUB(qoff, shift, doff) \
	VPMOVZXBD qoff(SI), Y0 \
	VPMOVZXBD qoff+8(SI), Y1 \
	VPMOVZXBD qoff+16(SI), Y2 \
	VPMOVZXBD qoff+24(SI), Y3 \
	VPSRLD    $shift, Y0, Y0 \
	VPSRLD    $shift, Y1, Y1 \
	VPSRLD    $shift, Y2, Y2 \
	VPSRLD    $shift, Y3, Y3 \
	VPAND     Y6, Y0, Y0 \
	VPAND     Y6, Y1, Y1 \
	VPAND     Y6, Y2, Y2 \
	VPAND     Y6, Y3, Y3 \
	VCVTDQ2PS Y0, Y0 \
	VCVTDQ2PS Y1, Y1 \
	VCVTDQ2PS Y2, Y2 \
	VCVTDQ2PS Y3, Y3 \
	VMULPS    Y7, Y0, Y0 \
	VMULPS    Y7, Y1, Y1 \
	VMULPS    Y7, Y2, Y2 \
	VMULPS    Y7, Y3, Y3 \
	VSUBPS    Y5, Y0, Y0 \
	VSUBPS    Y5, Y1, Y1 \
	VSUBPS    Y5, Y2, Y2 \
	VSUBPS    Y5, Y3, Y3 \
	VMOVUPS   Y0, doff(DI) \
	VMOVUPS   Y1, doff+32(DI) \
	VMOVUPS   Y2, doff+64(DI) \
	VMOVUPS   Y3, doff+96(DI)

// D4KSCALE broadcasts sub-block j's d·scale into Y7 and dmin·min into Y5 from the frame.
#define D4KSCALE(j) \
	VBROADCASTSS 4*j(SP), Y7 \
	VBROADCASTSS 32+4*j(SP), Y5

// func decodeQ4_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)
// The frame holds the eight d·scale products (at 0(SP)) and the eight dmin·min products (32(SP)).
TEXT ·decodeQ4_KAVX2(SB), NOSPLIT, $64-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), CX
	MOVQ f16+24(FP), R8
	VPCMPEQD Y6, Y6, Y6
	VPSRLD   $28, Y6, Y6            // 0x0000000F per lane

d4kloop:
	Q4KSCALES
	VMOVQ         R11, X2
	VPMOVZXBD    X2, Y2
	VCVTDQ2PS    Y2, Y2
	VMOVQ         R9, X3
	VPMOVZXBD    X3, Y3
	VCVTDQ2PS    Y3, Y3
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Y4
	MOVWLZX      2(SI), AX
	VBROADCASTSS (R8)(AX*4), Y5
	VMULPS       Y4, Y2, Y2
	VMULPS       Y5, Y3, Y3
	VMOVUPS      Y2, (SP)
	VMOVUPS      Y3, 32(SP)
	D4KSCALE(0)
	D4KSUB(16, 0, 0)
	D4KSCALE(1)
	D4KSUB(16, 4, 128)
	D4KSCALE(2)
	D4KSUB(48, 0, 256)
	D4KSCALE(3)
	D4KSUB(48, 4, 384)
	D4KSCALE(4)
	D4KSUB(80, 0, 512)
	D4KSCALE(5)
	D4KSUB(80, 4, 640)
	D4KSCALE(6)
	D4KSUB(112, 0, 768)
	D4KSCALE(7)
	D4KSUB(112, 4, 896)
	ADDQ $144, SI
	ADDQ $1024, DI
	DECQ CX
	JNE  d4kloop

	VZEROUPPER
	RET

// D6K8 writes eight Q6_K values: low bits from the 8 ql bytes at qloff(SI) (shift 0 or 4), high
// bits from the 8 qh bytes at qhoff(SI) (shift 0, 2, 4 or 6), centred, times Y7 = d·scale.
#define D6K8(qloff, lshift, qhoff, hshift, doff) \
	VPMOVZXBD qloff(SI), Y0 \
	VPMOVZXBD qhoff(SI), Y1 \
	VPSRLD    $lshift, Y0, Y0 \
	VPSRLD    $hshift, Y1, Y1 \
	VPAND     Y6, Y0, Y0 \
	VPAND     Y5, Y1, Y1 \
	VPSLLD    $4, Y1, Y1 \
	VPOR      Y1, Y0, Y0 \
	VPSUBD    Y4, Y0, Y0 \
	VCVTDQ2PS Y0, Y0 \
	VMULPS    Y7, Y0, Y0 \
	VMOVUPS   Y0, doff(DI)

// D6KGROUP writes the 16 values of group g (l from l0, quarter k) of a half whose ql starts at
// qoff, qh at hoff, into byte doff of DI, with the scale products of the half in the frame.
#define D6KGROUP(g, qoff, lshift, hoff, hshift, doff) \
	VBROADCASTSS 4*g(SP), Y7 \
	D6K8(qoff, lshift, hoff, hshift, doff) \
	D6K8(qoff+8, lshift, hoff+8, hshift, doff+32)

// D6KHALF: one half (128 values): groups 2k (l 0-15) and 2k+1 (l 16-31) of quarters k = 0..3.
// Quarter k reads ql[l + 32(k%2)] >> 4(k/2) and qh[l] >> 2k.
#define D6KHALF(qoff, hoff, soff, doff) \
	VPMOVSXBD    soff(SI), Y2 \
	VCVTDQ2PS    Y2, Y2 \
	VMULPS       Y3, Y2, Y2 \
	VMOVUPS      Y2, (SP) \
	D6KGROUP(0, qoff, 0, hoff, 0, doff) \
	D6KGROUP(1, qoff+16, 0, hoff+16, 0, doff+64) \
	D6KGROUP(2, qoff+32, 0, hoff, 2, doff+128) \
	D6KGROUP(3, qoff+48, 0, hoff+16, 2, doff+192) \
	D6KGROUP(4, qoff, 4, hoff, 4, doff+256) \
	D6KGROUP(5, qoff+16, 4, hoff+16, 4, doff+320) \
	D6KGROUP(6, qoff+32, 4, hoff, 6, doff+384) \
	D6KGROUP(7, qoff+48, 4, hoff+16, 6, doff+448)

// func decodeQ6_KAVX2(dst *float32, src *byte, nb int, f16 *[65536]float32)
// dst = (d·scale)·(q − 32), the product d·scale rounded first, as chapter 01.
TEXT ·decodeQ6_KAVX2(SB), NOSPLIT, $64-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), CX
	MOVQ f16+24(FP), R8
	VPCMPEQD Y6, Y6, Y6
	VPSRLD   $28, Y6, Y6            // 0x0F per lane
	VPCMPEQD Y5, Y5, Y5
	VPSRLD   $30, Y5, Y5            // 0x03 per lane
	VPSRLD   $1, Y5, Y4
	VPSLLD   $5, Y4, Y4             // 32 per lane

d6kloop:
	MOVWLZX      208(SI), AX
	VBROADCASTSS (R8)(AX*4), Y3
	D6KHALF(0, 128, 192, 0)
	D6KHALF(64, 160, 200, 512)
	ADDQ $210, SI
	ADDQ $1024, DI
	DECQ CX
	JNE  d6kloop

	VZEROUPPER
	RET

// func decodeQ8_0AVX2(dst *float32, src *byte, nblocks int, f16 *[65536]float32)
// dst[32b+j] = d_b·q_bj for every block b.
TEXT ·decodeQ8_0AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nblocks+16(FP), CX
	MOVQ f16+24(FP), R8
	TESTQ CX, CX
	JEQ  dqdone

dqloop:
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Y7
	VPMOVSXBD    2(SI), Y0
	VPMOVSXBD    10(SI), Y1
	VPMOVSXBD    18(SI), Y2
	VPMOVSXBD    26(SI), Y3
	VCVTDQ2PS    Y0, Y0
	VCVTDQ2PS    Y1, Y1
	VCVTDQ2PS    Y2, Y2
	VCVTDQ2PS    Y3, Y3
	VMULPS       Y7, Y0, Y0
	VMULPS       Y7, Y1, Y1
	VMULPS       Y7, Y2, Y2
	VMULPS       Y7, Y3, Y3
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JNE          dqloop

dqdone:
	VZEROUPPER
	RET
