#include "textflag.h"
#include "quant_amd64.h" // HSUM, ZHALVES

// The batched float dots (F32, BF16, F16 weights) in 512-bit registers, two rows to a register
// as in the one-token BF16 kernel (dot_avx512_amd64.s): the low 256 bits of an accumulator are
// row r's eight lanes for one token, the high 256 bits row r+1's, and each lane does what the
// AVX2 kernels' lane does (dot_amd64.h: acc = fma(w_j, x_j, acc) over the 8-column chunks j in
// order, HSUM at the end), so they give the one-token kernels' float32 bits (TestDotFloatRowsN).
// Four rows and up to eight tokens at a time: 16 accumulators (Z16-Z31), each 16-column step
// widens the four rows' two chunks once (W2) and multiplies them with every token's inputs,
// broadcast to both halves (VBROADCASTF64X4). The AVX2 kernels do eight products per fused
// multiply-add; these do sixteen, and the widening is shared by all the tokens.
//
// func dotXN{8,4,2}AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
// out[t*outStride+r] = Σ_{i<n} w_r[i]·x[t*xstride+i] for rows a multiple of 4, n a multiple of
// 16, and the kernel's tokens t.

// W2F32, W2BF16, W2F16(off, pa, pb, d0, d1): chunks j, j+1 of rows pa and pb (byte off of each)
// as float32, paired: d0 = [pa's chunk j | pb's chunk j], d1 = the same for chunk j+1. Z0 and Z1
// are clobbered.
#define W2F32(off, pa, pb, d0, d1) \
	VMOVUPS    off(pa), Z0 \
	VMOVUPS    off(pb), Z1 \
	VSHUFF64X2 $0x44, Z1, Z0, d0 \
	VSHUFF64X2 $0xee, Z1, Z0, d1

#define W2BF16(off, pa, pb, d0, d1) \
	VPMOVZXWD  off(pa), Z0 \
	VPMOVZXWD  off(pb), Z1 \
	VPSLLD     $16, Z0, Z0 \
	VPSLLD     $16, Z1, Z1 \
	VSHUFI64X2 $0x44, Z1, Z0, d0 \
	VSHUFI64X2 $0xee, Z1, Z0, d1

#define W2F16(off, pa, pb, d0, d1) \
	VCVTPH2PS  off(pa), Z0 \
	VCVTPH2PS  off(pb), Z1 \
	VSHUFF64X2 $0x44, Z1, Z0, d0 \
	VSHUFF64X2 $0xee, Z1, Z0, d1

// TOK(m, a0, a1, xa, xb): one token's inputs at m (chunk j) and 32+m (chunk j+1) times the four
// rows' chunks (Z2, Z3: rows 0 and 1; Z4, Z5: rows 2 and 3), added to its accumulators a0 (rows
// 0, 1) and a1 (rows 2, 3), chunk j before chunk j+1 in each.
#define TOK(m0, m1, a0, a1, xa, xb) \
	VBROADCASTF64X4 m0, xa \
	VBROADCASTF64X4 m1, xb \
	VFMADD231PS     Z2, xa, a0 \
	VFMADD231PS     Z4, xa, a1 \
	VFMADD231PS     Z3, xb, a0 \
	VFMADD231PS     Z5, xb, a1

// The tokens' addresses: token t's inputs at DI + t·xstride for t < 4, R10 + (t-4)·xstride after
// (R8 = xstride, R9 = 3·xstride, in bytes).
#define ZTOKS2 \
	TOK((DI), 32(DI), Z16, Z17, Z8, Z9) \
	TOK((DI)(R8*1), 32(DI)(R8*1), Z18, Z19, Z10, Z11)

#define ZTOKS4 \
	ZTOKS2 \
	TOK((DI)(R8*2), 32(DI)(R8*2), Z20, Z21, Z12, Z13) \
	TOK((DI)(R9*1), 32(DI)(R9*1), Z22, Z23, Z14, Z15)

#define ZTOKS8 \
	ZTOKS4 \
	TOK((R10), 32(R10), Z24, Z25, Z8, Z9) \
	TOK((R10)(R8*1), 32(R10)(R8*1), Z26, Z27, Z10, Z11) \
	TOK((R10)(R8*2), 32(R10)(R8*2), Z28, Z29, Z12, Z13) \
	TOK((R10)(R9*1), 32(R10)(R9*1), Z30, Z31, Z14, Z15)

// ZSTORE(a0, a1): one token's sums of the four rows at 0..12(AX), then AX moves to the next
// token's (CX = outStride in bytes). ZHALVES needs a low register for HSUM's VEX instructions.
#define ZSTORE(a0, a1) \
	VMOVAPS a0, Z8 \
	ZHALVES(Z8, Y8, X8, 0, 4) \
	VMOVAPS a1, Z9 \
	ZHALVES(Z9, Y9, X9, 8, 12) \
	ADDQ    CX, AX

#define ZSTORES2 \
	ZSTORE(Z16, Z17) \
	ZSTORE(Z18, Z19)

#define ZSTORES4 \
	ZSTORES2 \
	ZSTORE(Z20, Z21) \
	ZSTORE(Z22, Z23)

#define ZSTORES8 \
	ZSTORES4 \
	ZSTORE(Z24, Z25) \
	ZSTORE(Z26, Z27) \
	ZSTORE(Z28, Z29) \
	ZSTORE(Z30, Z31)

// ZZERO(n): the first n accumulators set to zero.
#define ZZERO2 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19

#define ZZERO4 \
	ZZERO2 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23

#define ZZERO8 \
	ZZERO4 \
	VPXORD Z24, Z24, Z24 \
	VPXORD Z25, Z25, Z25 \
	VPXORD Z26, Z26, Z26 \
	VPXORD Z27, Z27, Z27 \
	VPXORD Z28, Z28, Z28 \
	VPXORD Z29, Z29, Z29 \
	VPXORD Z30, Z30, Z30 \
	VPXORD Z31, Z31, Z31

// ZDOTN(W2, wb, ZERO, TOKS, STORES) is the body of a kernel; wb is the bytes of 16 weights. Rows
// SI, R11, R12, R13 from DX (the group's first row), R14 = stride; BX counts the rows done. Each
// step asks for the same columns of the next group's four rows (a whole row's time ahead).
#define ZDOTN(W2, wb, ZERO, TOKS, STORES) \
	MOVQ w+0(FP), DX \
	MOVQ stride+8(FP), R14 \
	MOVQ xstride+32(FP), R8 \
	SHLQ $2, R8 \
	LEAQ (R8)(R8*2), R9 \
	XORQ BX, BX \
group: \
	CMPQ BX, rows+16(FP) \
	JGE  done \
	MOVQ DX, SI \
	LEAQ (SI)(R14*1), R11 \
	LEAQ (R11)(R14*1), R12 \
	LEAQ (R12)(R14*1), R13 \
	MOVQ x+24(FP), DI \
	LEAQ (DI)(R8*4), R10 \
	MOVQ n+40(FP), CX \
	ZERO \
step: \
	PREFETCHT0 (SI)(R14*4) \
	PREFETCHT0 (R11)(R14*4) \
	PREFETCHT0 (R12)(R14*4) \
	PREFETCHT0 (R13)(R14*4) \
	W2(0, SI, R11, Z2, Z3) \
	W2(0, R12, R13, Z4, Z5) \
	TOKS \
	ADDQ $wb, SI \
	ADDQ $wb, R11 \
	ADDQ $wb, R12 \
	ADDQ $wb, R13 \
	ADDQ $64, DI \
	ADDQ $64, R10 \
	SUBQ $16, CX \
	JNE  step \
	MOVQ out+48(FP), AX \
	LEAQ (AX)(BX*4), AX \
	MOVQ outStride+56(FP), CX \
	SHLQ $2, CX \
	STORES \
	LEAQ (DX)(R14*4), DX \
	ADDQ $4, BX \
	JMP  group \
done: \
	VZEROUPPER \
	RET

// func dotF32N8AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF32N8AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2F32, 64, ZZERO8, ZTOKS8, ZSTORES8)

// func dotF32N4AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF32N4AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2F32, 64, ZZERO4, ZTOKS4, ZSTORES4)

// func dotF32N2AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF32N2AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2F32, 64, ZZERO2, ZTOKS2, ZSTORES2)

// func dotBF16N8AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotBF16N8AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2BF16, 32, ZZERO8, ZTOKS8, ZSTORES8)

// func dotBF16N4AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotBF16N4AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2BF16, 32, ZZERO4, ZTOKS4, ZSTORES4)

// func dotBF16N2AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotBF16N2AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2BF16, 32, ZZERO2, ZTOKS2, ZSTORES2)

// func dotF16N8AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF16N8AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2F16, 32, ZZERO8, ZTOKS8, ZSTORES8)

// func dotF16N4AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF16N4AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2F16, 32, ZZERO4, ZTOKS4, ZSTORES4)

// func dotF16N2AVX512(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF16N2AVX512(SB), NOSPLIT, $0-64
	ZDOTN(W2F16, 32, ZZERO2, ZTOKS2, ZSTORES2)
