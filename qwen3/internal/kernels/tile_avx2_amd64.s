#include "textflag.h"

// func tile16x6AVX2(pack *float32, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
//
// out[t*outStride+i] = Σ_j pack[j*packStride+i] · x[t*xstride+j]   for t < 6, i < 16, j < k;
// with acc != 0 the sums are added to out instead of replacing it.
//
// pack holds weight rows transposed (k-major: the rows' values at column j are adjacent), so one
// k step is an outer product: two 8-lane loads of weights times six broadcast inputs, twelve FMAs
// into twelve accumulators that stay in registers for the whole k loop. Each weight loaded serves
// six tokens, each input loaded serves sixteen rows.
TEXT ·tile16x6AVX2(SB), NOSPLIT, $0-64
	MOVQ pack+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xstride+16(FP), R8
	SHLQ $2, R8                 // stride in bytes
	MOVQ k+24(FP), CX
	MOVQ out+32(FP), DX
	MOVQ packStride+40(FP), R10
	SHLQ $2, R10
	MOVQ outStride+48(FP), R11
	SHLQ $2, R11
	LEAQ (DI)(R8*2), R9
	ADDQ R8, R9                 // R9 = x + 3 rows
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ CX, CX
	JEQ   tstore

tloop:
	VMOVUPS      (SI), Y12
	VMOVUPS      32(SI), Y13
	VBROADCASTSS (DI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (DI)(R8*1), Y15
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS (DI)(R8*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R9), Y15
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS (R9)(R8*1), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (R9)(R8*2), Y15
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         R10, SI
	ADDQ         $4, DI
	ADDQ         $4, R9
	DECQ         CX
	JNE          tloop

tstore:
	MOVQ  acc+56(FP), AX
	TESTQ AX, AX
	JEQ   tput
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	LEAQ   (DX)(R11*1), AX
	VADDPS (AX), Y2, Y2
	VADDPS 32(AX), Y3, Y3
	ADDQ   R11, AX
	VADDPS (AX), Y4, Y4
	VADDPS 32(AX), Y5, Y5
	ADDQ   R11, AX
	VADDPS (AX), Y6, Y6
	VADDPS 32(AX), Y7, Y7
	ADDQ   R11, AX
	VADDPS (AX), Y8, Y8
	VADDPS 32(AX), Y9, Y9
	ADDQ   R11, AX
	VADDPS (AX), Y10, Y10
	VADDPS 32(AX), Y11, Y11

tput:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ    R11, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ    R11, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R11, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ    R11, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ    R11, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	VZEROUPPER
	RET


// func addRowsAVX2(y *float32, yStride int, x *float32, n int)
//
// y[t*yStride+i] += x[t*32+i] for t < n (n > 0), i < 32: four 8-lane loads, additions and stores
// per row. Each sum is the float32 addition the portable loop does, so the bits are its bits.
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ yStride+8(FP), R8
	SHLQ $2, R8
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX

aloop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VADDPS  (SI), Y0, Y0
	VADDPS  32(SI), Y1, Y1
	VADDPS  64(SI), Y2, Y2
	VADDPS  96(SI), Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    R8, DI
	ADDQ    $128, SI
	DECQ    CX
	JNE     aloop
	VZEROUPPER
	RET

// func copyRowsAVX2(y *float32, yStride int, x *float32, n int)
//
// y[t*yStride+i] = x[t*32+i] for t < n (n > 0), i < 32.
TEXT ·copyRowsAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ yStride+8(FP), R8
	SHLQ $2, R8
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX

cloop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    R8, DI
	ADDQ    $128, SI
	DECQ    CX
	JNE     cloop
	VZEROUPPER
	RET
