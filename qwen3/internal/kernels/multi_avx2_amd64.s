#include "textflag.h"
#include "quant_amd64.h"
#include "dot_amd64.h"

// The batched dot kernels of multi.go: a row's block of weights is decoded once into registers
// and multiplied with the inputs of eight, four or two tokens. Each token's lanes go through the
// same macros as in the one-token kernels (quant_amd64.h), in the same order, so each token's
// result is bit for bit the one-token kernel's.
//
//	func dotXActN{8,4,2}AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
//
// out[t*outStride+r] = row r · token t for r < rows and the kernel's tokens; token t's
// activations start cols values after token t−1's (q, scale and sum point at token 0's); n
// counts groups of eight blocks (Q8_0, Q4_0) or super-blocks (Q4_K, Q6_K) per row.
//
// Registers: R12 the row, R13 its index, SI its blocks; DI token 0's activations, R14 token 4's,
// R8 = one token's activations in bytes (R9 = three); DX token 0's activation scales, R10 = one
// token's scales in bytes (R11 = three); CX the groups left. Y8..Y15 are the tokens' sums; the
// frame holds each token's block scales c for the group (32 bytes per token).

// NSETUP loads the strides.
#define NSETUP \
	MOVQ w+0(FP), R12 \
	XORQ R13, R13 \
	MOVQ cols+72(FP), R8 \
	SHLQ $1, R8 \
	LEAQ (R8)(R8*2), R9 \
	MOVQ cols+72(FP), R10 \
	SHRQ $3, R10 \
	LEAQ (R10)(R10*2), R11

// NROWSTART begins row R13: pointers back at the row's and the tokens' starts, sums cleared.
#define NROWSTART \
	MOVQ   R12, SI \
	MOVQ   q+24(FP), DI \
	MOVQ   scale+32(FP), DX \
	MOVQ   n+48(FP), CX \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	VXORPS Y12, Y12, Y12 \
	VXORPS Y13, Y13, Y13 \
	VXORPS Y14, Y14, Y14 \
	VXORPS Y15, Y15, Y15

// NSTORE(y, x) stores one token's dot product of the row at AX and moves AX to the next token's.
#define NSTORE(y, x) \
	HSUM(y, x) \
	VMOVSS x, (AX) \
	ADDQ   BX, AX

// NROWNEXT moves to the next row, or returns.
#define NROWNEXT(again) \
	ADDQ stride+8(FP), R12 \
	INCQ R13 \
	CMPQ R13, rows+16(FP) \
	JLT  again \
	VZEROUPPER \
	RET

// NOUT points AX at out[R13] and BX at the output stride in bytes.
#define NOUT \
	MOVQ out+56(FP), AX \
	LEAQ (AX)(R13*4), AX \
	MOVQ outStride+64(FP), BX \
	SHLQ $2, BX

// SCALESN(p, foff) multiplies the group's weight scales in Y3 by four tokens' activation scales
// (from p, R10 bytes apart) into the frame from byte foff.
#define SCALESN(p, foff) \
	VMULPS  (p), Y3, Y4 \
	VMOVUPS Y4, foff(SP) \
	VMULPS  (p)(R10*1), Y3, Y4 \
	VMOVUPS Y4, foff+32(SP) \
	VMULPS  (p)(R10*2), Y3, Y4 \
	VMOVUPS Y4, foff+64(SP) \
	VMULPS  (p)(R11*1), Y3, Y4 \
	VMOVUPS Y4, foff+96(SP)

// SCALES2 is SCALESN for two tokens.
#define SCALES2 \
	VMULPS  (DX), Y3, Y4 \
	VMOVUPS Y4, (SP) \
	VMULPS  (DX)(R10*1), Y3, Y4 \
	VMOVUPS Y4, 32(SP)

// TOKS4(p, xoff, coff, a0, a1, a2, a3): the block in Y1, Y2 for four tokens whose activations
// start at p (R8 bytes apart), at byte xoff of each, their scales at byte coff of the frame.
#define TOKS4(p, xoff, coff, a0, a1, a2, a3) \
	QTOK(xoff(p), xoff+32(p), coff(SP), a0) \
	QTOK(xoff(p)(R8*1), xoff+32(p)(R8*1), coff+32(SP), a1) \
	QTOK(xoff(p)(R8*2), xoff+32(p)(R8*2), coff+64(SP), a2) \
	QTOK(xoff(p)(R9*1), xoff+32(p)(R9*1), coff+96(SP), a3)

#define TOKS8(xoff, coff) \
	TOKS4(DI, xoff, coff, Y8, Y9, Y10, Y11) \
	TOKS4(R14, xoff, coff+128, Y12, Y13, Y14, Y15)

#define TOKS2(xoff, coff) \
	QTOK(xoff(DI), xoff+32(DI), coff(SP), Y8) \
	QTOK(xoff(DI)(R8*1), xoff+32(DI)(R8*1), coff+32(SP), Y9)

// Q8_0: eight blocks per group.
#define Q8GROUP(TOKS) \
	Q8W(0) \
	TOKS(0, 0) \
	Q8W(34) \
	TOKS(64, 4) \
	Q8W(68) \
	TOKS(128, 8) \
	Q8W(102) \
	TOKS(192, 12) \
	Q8W(136) \
	TOKS(256, 16) \
	Q8W(170) \
	TOKS(320, 20) \
	Q8W(204) \
	TOKS(384, 24) \
	Q8W(238) \
	TOKS(448, 28) \
	ADDQ $272, SI \
	ADDQ $512, DI \
	ADDQ $32, DX

#define Q8PREFETCH \
	PREFETCHT0 4096(SI) \
	PREFETCHT0 4160(SI) \
	PREFETCHT0 4224(SI) \
	PREFETCHT0 4288(SI) \
	PREFETCHT0 4352(SI)

// func dotQ8_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ8_0ActN8AVX2(SB), NOSPLIT, $256-80
	NSETUP

q8n8row:
	NROWSTART

q8n8loop:
	Q8PREFETCH
	GATHERD8(34, SI)
	LEAQ (DX)(R10*4), AX
	SCALESN(DX, 0)
	SCALESN(AX, 128)
	LEAQ (DI)(R8*4), R14
	Q8GROUP(TOKS8)
	DECQ CX
	JNE  q8n8loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NSTORE(Y10, X10)
	NSTORE(Y11, X11)
	NSTORE(Y12, X12)
	NSTORE(Y13, X13)
	NSTORE(Y14, X14)
	NSTORE(Y15, X15)
	NROWNEXT(q8n8row)

#define TOKS4A(xoff, coff) TOKS4(DI, xoff, coff, Y8, Y9, Y10, Y11)

// func dotQ8_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ8_0ActN4AVX2(SB), NOSPLIT, $128-80
	NSETUP

q8n4row:
	NROWSTART

q8n4loop:
	Q8PREFETCH
	GATHERD8(34, SI)
	SCALESN(DX, 0)
	Q8GROUP(TOKS4A)
	DECQ CX
	JNE  q8n4loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NSTORE(Y10, X10)
	NSTORE(Y11, X11)
	NROWNEXT(q8n4row)

// func dotQ8_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ8_0ActN2AVX2(SB), NOSPLIT, $64-80
	NSETUP

q8n2row:
	NROWSTART

q8n2loop:
	Q8PREFETCH
	GATHERD8(34, SI)
	SCALES2
	Q8GROUP(TOKS2)
	DECQ CX
	JNE  q8n2loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NROWNEXT(q8n2row)

// Q4_K: a super-block per step; BX walks token 0's activation sums (Sum: the minimums' term).
#define Q4KPREFETCH \
	PREFETCHT0 4096(SI) \
	PREFETCHT0 4160(SI) \
	PREFETCHT0 4224(SI)

// MINS4(p, a0, a1, a2, a3) subtracts the minimums' term (Y4 = dmin·min_j) times four tokens'
// activation sums (from p, R10 bytes apart) from their sums.
#define MINS4(p, a0, a1, a2, a3) \
	VFNMADD231PS (p), Y4, a0 \
	VFNMADD231PS (p)(R10*1), Y4, a1 \
	VFNMADD231PS (p)(R10*2), Y4, a2 \
	VFNMADD231PS (p)(R11*1), Y4, a3

// Q4KSB(TOKS): the quants of a super-block, two sub-blocks per 32 bytes, for TOKS's tokens.
#define Q4KSB(TOKS) \
	Q4KLO(16, SI) \
	TOKS(0, 0) \
	Q4KHI \
	TOKS(64, 4) \
	Q4KLO(48, SI) \
	TOKS(128, 8) \
	Q4KHI \
	TOKS(192, 12) \
	Q4KLO(80, SI) \
	TOKS(256, 16) \
	Q4KHI \
	TOKS(320, 20) \
	Q4KLO(112, SI) \
	TOKS(384, 24) \
	Q4KHI \
	TOKS(448, 28) \
	ADDQ $144, SI \
	ADDQ $512, DI \
	ADDQ $32, DX \
	ADDQ $32, BX

// func dotQ4_KActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ4_KActN8AVX2(SB), NOSPLIT, $256-80
	NSETUP
	LO4W

q4kn8row:
	NROWSTART
	MOVQ sum+40(FP), BX

q4kn8loop:
	Q4KPREFETCH
	Q4KSC(SI)
	MINS4(BX, Y8, Y9, Y10, Y11)
	LEAQ (BX)(R10*4), AX
	MINS4(AX, Y12, Y13, Y14, Y15)
	LEAQ (DX)(R10*4), AX
	SCALESN(DX, 0)
	SCALESN(AX, 128)
	LEAQ (DI)(R8*4), R14
	Q4KSB(TOKS8)
	DECQ CX
	JNE  q4kn8loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NSTORE(Y10, X10)
	NSTORE(Y11, X11)
	NSTORE(Y12, X12)
	NSTORE(Y13, X13)
	NSTORE(Y14, X14)
	NSTORE(Y15, X15)
	NROWNEXT(q4kn8row)

// func dotQ4_KActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ4_KActN4AVX2(SB), NOSPLIT, $128-80
	NSETUP
	LO4W

q4kn4row:
	NROWSTART
	MOVQ sum+40(FP), BX

q4kn4loop:
	Q4KPREFETCH
	Q4KSC(SI)
	MINS4(BX, Y8, Y9, Y10, Y11)
	SCALESN(DX, 0)
	Q4KSB(TOKS4A)
	DECQ CX
	JNE  q4kn4loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NSTORE(Y10, X10)
	NSTORE(Y11, X11)
	NROWNEXT(q4kn4row)

// func dotQ4_KActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ4_KActN2AVX2(SB), NOSPLIT, $64-80
	NSETUP
	LO4W

q4kn2row:
	NROWSTART
	MOVQ sum+40(FP), BX

q4kn2loop:
	Q4KPREFETCH
	Q4KSC(SI)
	VFNMADD231PS (BX), Y4, Y8
	VFNMADD231PS (BX)(R10*1), Y4, Y9
	SCALES2
	Q4KSB(TOKS2)
	DECQ CX
	JNE  q4kn2loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NROWNEXT(q4kn2row)

// Q4_0: eight blocks per group, as Q8_0.
#define Q40GROUP(TOKS) \
	Q40W(0) \
	TOKS(0, 0) \
	Q40W(18) \
	TOKS(64, 4) \
	Q40W(36) \
	TOKS(128, 8) \
	Q40W(54) \
	TOKS(192, 12) \
	Q40W(72) \
	TOKS(256, 16) \
	Q40W(90) \
	TOKS(320, 20) \
	Q40W(108) \
	TOKS(384, 24) \
	Q40W(126) \
	TOKS(448, 28) \
	ADDQ $144, SI \
	ADDQ $512, DI \
	ADDQ $32, DX

#define Q40PREFETCH \
	PREFETCHT0 4096(SI) \
	PREFETCHT0 4160(SI) \
	PREFETCHT0 4224(SI)

// func dotQ4_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ4_0ActN8AVX2(SB), NOSPLIT, $256-80
	NSETUP
	LO4W
	W8W

q40n8row:
	NROWSTART

q40n8loop:
	Q40PREFETCH
	GATHERD8(18, SI)
	LEAQ (DX)(R10*4), AX
	SCALESN(DX, 0)
	SCALESN(AX, 128)
	LEAQ (DI)(R8*4), R14
	Q40GROUP(TOKS8)
	DECQ CX
	JNE  q40n8loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NSTORE(Y10, X10)
	NSTORE(Y11, X11)
	NSTORE(Y12, X12)
	NSTORE(Y13, X13)
	NSTORE(Y14, X14)
	NSTORE(Y15, X15)
	NROWNEXT(q40n8row)

// func dotQ4_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ4_0ActN4AVX2(SB), NOSPLIT, $128-80
	NSETUP
	LO4W
	W8W

q40n4row:
	NROWSTART

q40n4loop:
	Q40PREFETCH
	GATHERD8(18, SI)
	SCALESN(DX, 0)
	Q40GROUP(TOKS4A)
	DECQ CX
	JNE  q40n4loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NSTORE(Y10, X10)
	NSTORE(Y11, X11)
	NROWNEXT(q40n4row)

// func dotQ4_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)
TEXT ·dotQ4_0ActN2AVX2(SB), NOSPLIT, $64-80
	NSETUP
	LO4W
	W8W

q40n2row:
	NROWSTART

q40n2loop:
	Q40PREFETCH
	GATHERD8(18, SI)
	SCALES2
	Q40GROUP(TOKS2)
	DECQ CX
	JNE  q40n2loop
	NOUT
	NSTORE(Y8, X8)
	NSTORE(Y9, X9)
	NROWNEXT(q40n2row)

// Q6_K's batched kernel: a half's quants are widened once, into Y8..Y15 (Q6KW), and each token's
// part is formed from them (Q6KSUM, as in the one-token kernel) in a loop over the tokens, whose
// sums live in the frame (32 bytes per token).
//
//	func dotQ6_KActNAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols, tokens int)
//
// tokens is 1..8; sum points at token 0's Sum16. Registers: R12 the row, R13 its index, SI its
// super-blocks, CX the super-blocks left; DI, DX, BX the half's activations, scales and 16-value
// sums of token 0, and R9, R11, R14 those of token AX/4 in the loop over tokens; R8 = one token's
// activations in bytes, R10 = one token's scales in bytes (two for its 16-value sums). Y0 is d,
// Y7 the half's group scales as floats.
// func dotQ6_KActNAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols, tokens int)
TEXT ·dotQ6_KActNAVX2(SB), NOSPLIT, $256-88
	MOVQ w+0(FP), R12
	XORQ R13, R13
	MOVQ cols+72(FP), R8
	SHLQ $1, R8
	MOVQ cols+72(FP), R10
	SHRQ $3, R10
	SHLQ $2, tokens+80(FP)

q6nrow:
	MOVQ   R12, SI
	MOVQ   q+24(FP), DI
	MOVQ   scale+32(FP), DX
	MOVQ   sum+40(FP), BX
	MOVQ   n+48(FP), CX
	VXORPS Y1, Y1, Y1
	XORQ   AX, AX

q6nzero:
	VMOVUPS Y1, (SP)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, tokens+80(FP)
	JLT     q6nzero

q6nloop:
	PREFETCHT0   4096(SI)
	PREFETCHT0   4160(SI)
	PREFETCHT0   4224(SI)
	PREFETCHT0   4288(SI)
	MOVWLZX      208(SI), AX
	VMOVQ        AX, X0
	VCVTPH2PS    X0, X0
	VBROADCASTSS X0, Y0
	Q6KNHALF(0, 128, 192, q6nhalf0)
	Q6KNHALF(64, 160, 200, q6nhalf1)
	ADDQ $210, SI
	DECQ CX
	JNE  q6nloop
	MOVQ out+56(FP), R9
	LEAQ (R9)(R13*4), R9
	MOVQ outStride+64(FP), R11
	SHLQ $2, R11
	XORQ AX, AX

q6nstore:
	VMOVUPS (SP)(AX*8), Y0
	HSUM(Y0, X0)
	VMOVSS  X0, (R9)
	ADDQ    R11, R9
	ADDQ    $4, AX
	CMPQ    AX, tokens+80(FP)
	JLT     q6nstore
	ADDQ    stride+8(FP), R12
	INCQ    R13
	CMPQ    R13, rows+16(FP)
	JLT     q6nrow
	VZEROUPPER
	RET

// func dotF32N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF32N8AVX2(SB), NOSPLIT, $0-64
	FDOTN(WF32, 32, FTOKS8, FSTORES8)

// func dotF32N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF32N4AVX2(SB), NOSPLIT, $0-64
	FDOTN(WF32, 32, FTOKS4, FSTORES4)

// func dotF32N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF32N2AVX2(SB), NOSPLIT, $0-64
	FDOTN(WF32, 32, FTOKS2, FSTORES2)

// func dotBF16N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotBF16N8AVX2(SB), NOSPLIT, $0-64
	FDOTN(WBF16, 16, FTOKS8, FSTORES8)

// func dotBF16N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotBF16N4AVX2(SB), NOSPLIT, $0-64
	FDOTN(WBF16, 16, FTOKS4, FSTORES4)

// func dotBF16N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotBF16N2AVX2(SB), NOSPLIT, $0-64
	FDOTN(WBF16, 16, FTOKS2, FSTORES2)

// func dotF16N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF16N8AVX2(SB), NOSPLIT, $0-64
	FDOTN(WF16, 16, FTOKS8, FSTORES8)

// func dotF16N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF16N4AVX2(SB), NOSPLIT, $0-64
	FDOTN(WF16, 16, FTOKS4, FSTORES4)

// func dotF16N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
TEXT ·dotF16N2AVX2(SB), NOSPLIT, $0-64
	FDOTN(WF16, 16, FTOKS2, FSTORES2)
