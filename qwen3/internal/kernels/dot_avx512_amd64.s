#include "textflag.h"
#include "quant_amd64.h" // HSUM, ZHALVES

// The one-token BF16 dot in 512-bit registers, two rows to a register: the low 256 bits of an
// accumulator are one row's eight lanes, the high 256 bits the next row's, and each lane does what
// the AVX2 kernel's lane does (dot_amd64.h: acc = fma(w_j, x_j, acc) over the 8-column chunks j
// in order, HSUM at the end), so the two kernels, and the batched ones, give the same float32
// bits (TestDotFloatAVX512MatchesAVX2). A bfloat16 widens to float32 by a zero extension and a
// shift; here one VPMOVZXWD widens two chunks of a row at once, and one VSHUFI64X2 pairs a chunk
// of one row with the same chunk of the next: four instructions per 16 products where the AVX2
// kernel needs six, and eight rows (four accumulators, four chains of fused multiply-adds) at a
// time.

// BF2(off, p1, p2, x0, x1, acc): chunks j, j+1 (bytes off..off+31 of rows p1 and p2) times the inputs x0 = [x_j | x_j] and x1 = [x_j+1 | x_j+1], added to acc.
#define BF2(off, p1, p2, x0, x1, acc) \
	VPMOVZXWD   off(p1), Z14 \
	VPMOVZXWD   off(p2), Z15 \
	VSHUFI64X2  $0x44, Z15, Z14, Z5 \
	VSHUFI64X2  $0xee, Z15, Z14, Z6 \
	VPSLLD      $16, Z5, Z5 \
	VPSLLD      $16, Z6, Z6 \
	VFMADD231PS Z5, x0, acc \
	VFMADD231PS Z6, x1, acc

// BF8ROWS(off, x0, x1): chunks j, j+1 of the eight rows.
#define BF8ROWS(off, x0, x1) \
	BF2(off, SI, R14, x0, x1, Z8) \
	BF2(off, BX, R9, x0, x1, Z9) \
	BF2(off, R8, R11, x0, x1, Z10) \
	BF2(off, DX, AX, x0, x1, Z11)

// func dotBF16AVX512(w *uint16, stride, rows int, x *float32, n int, out *float32)
// out[r] = Σ_{i<n} w_r[i]·x[i] for rows a multiple of 8 and n a multiple of 32 (64 bytes of a
// row per step). Prefetching: one pointer (R12) walks the next group's rows in order, eight lines
// per step, where each row's pointer used to ask for the next group's row at its column (eight
// streams): two cores streaming BF16 rows went from 42-43 to 50 GB/s with memory reading 52, and
// BF16 decoding from 46 to 50 tok/s (alternated, 2026-11-27). n·2 lives at rowbytes-8(SP).
TEXT ·dotBF16AVX512(SB), NOSPLIT, $8-48
	MOVQ w+0(FP), SI
	MOVQ stride+8(FP), R10
	XORQ R13, R13
	MOVQ n+32(FP), R12
	SHLQ $1, R12
	MOVQ R12, rowbytes-8(SP)

bf8:
	CMPQ R13, rows+16(FP)
	JGE  bfdone
	LEAQ (SI)(R10*1), R14
	LEAQ (R14)(R10*1), BX
	LEAQ (BX)(R10*1), R9
	LEAQ (R9)(R10*1), R8
	LEAQ (R8)(R10*1), R11
	LEAQ (R11)(R10*1), DX
	LEAQ (DX)(R10*1), AX
	MOVQ x+24(FP), DI
	XORQ CX, CX
	LEAQ (SI)(R10*8), R12
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11

bfloop:
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	PREFETCHT0 128(R12)
	PREFETCHT0 192(R12)
	PREFETCHT0 256(R12)
	PREFETCHT0 320(R12)
	PREFETCHT0 384(R12)
	PREFETCHT0 448(R12)
	ADDQ       $512, R12
	VBROADCASTF64X4 0(DI), Z0
	VBROADCASTF64X4 32(DI), Z1
	VBROADCASTF64X4 64(DI), Z2
	VBROADCASTF64X4 96(DI), Z3
	BF8ROWS(0, Z0, Z1)
	BF8ROWS(32, Z2, Z3)
	ADDQ $128, DI
	ADDQ $64, SI
	ADDQ $64, R14
	ADDQ $64, BX
	ADDQ $64, R9
	ADDQ $64, R8
	ADDQ $64, R11
	ADDQ $64, DX
	ADDQ $64, AX
	ADDQ $64, CX
	CMPQ CX, rowbytes-8(SP)
	JLT  bfloop
	// the group's sums: out[R13..R13+7]
	SUBQ CX, SI
	MOVQ out+40(FP), AX
	LEAQ (AX)(R13*4), AX
	ZHALVES(Z8, Y8, X8, 0, 4)
	ZHALVES(Z9, Y9, X9, 8, 12)
	ZHALVES(Z10, Y10, X10, 16, 20)
	ZHALVES(Z11, Y11, X11, 24, 28)
	LEAQ (SI)(R10*8), SI
	ADDQ $8, R13
	JMP  bf8

bfdone:
	VZEROUPPER
	RET

// func dotQ8_0AVX512(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32
// The same as dotQ8_0AVX2 with 16 lanes: a block's 32 quants are two sign-extensions of 16 bytes,
// half the instructions per weight. Two accumulators alternate between even and odd blocks.
TEXT ·dotQ8_0AVX512(SB), NOSPLIT, $0-36
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ nblocks+16(FP), CX
	MOVQ f16+24(FP), R8
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1

q8zloop:
	CMPQ CX, $0
	JEQ  q8zdone
	PREFETCHT0   4096(SI)
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Z7
	VPMOVSXBD    2(SI), Z4
	VPMOVSXBD    18(SI), Z5
	VCVTDQ2PS    Z4, Z4
	VCVTDQ2PS    Z5, Z5
	VMULPS       (DI), Z4, Z9
	VFMADD231PS  64(DI), Z5, Z9
	VFMADD231PS  Z9, Z7, Z0
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JEQ          q8zdone
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Z8
	VPMOVSXBD    2(SI), Z10
	VPMOVSXBD    18(SI), Z11
	VCVTDQ2PS    Z10, Z10
	VCVTDQ2PS    Z11, Z11
	VMULPS       (DI), Z10, Z12
	VFMADD231PS  64(DI), Z11, Z12
	VFMADD231PS  Z12, Z8, Z1
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JMP          q8zloop

q8zdone:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	HSUM(Y0, X0)
	VZEROUPPER
	MOVSS X0, ret+32(FP)
	RET
