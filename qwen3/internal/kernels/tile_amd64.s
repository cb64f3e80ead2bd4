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

// func axpyAVX2(y *float32, a float32, x *float32, n int)
// y[i] += a·x[i] for n a multiple of 8.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), DI
	VBROADCASTSS a+8(FP), Y0
	MOVQ         x+16(FP), SI
	MOVQ         n+24(FP), CX

axloop32:
	CMPQ CX, $32
	JLT  axloop8
	VMOVUPS     (DI), Y1
	VMOVUPS     32(DI), Y2
	VMOVUPS     64(DI), Y3
	VMOVUPS     96(DI), Y4
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS     Y1, (DI)
	VMOVUPS     Y2, 32(DI)
	VMOVUPS     Y3, 64(DI)
	VMOVUPS     Y4, 96(DI)
	ADDQ        $128, DI
	ADDQ        $128, SI
	SUBQ        $32, CX
	JMP         axloop32

axloop8:
	CMPQ CX, $8
	JLT  axdone
	VMOVUPS     (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS     Y1, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	SUBQ        $8, CX
	JMP         axloop8

axdone:
	VZEROUPPER
	RET

// func tile32x12AVX512(pack *float32, x *float32, xstride int, k int, out *float32)
//
// out[t*32+i] = Σ_j pack[j*32+i] · x[t*xstride+j]   for t < 12, i < 32, j < k.
//
// The Tile kernel with 16-lane registers: per k step, two loads of 16 packed weights serve twelve
// broadcast inputs: 24 FMAs into 24 accumulators (Z0..Z23) that stay in registers for the whole
// k loop, against 14 loads, so the FMA units, not the loads, set the pace.
TEXT ·tile32x12AVX512(SB), NOSPLIT, $0-40
	MOVQ pack+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xstride+16(FP), R8
	SHLQ $2, R8
	MOVQ k+24(FP), CX
	MOVQ out+32(FP), DX
	LEAQ (DI)(R8*2), R9
	ADDQ R8, R9                 // x + 3 rows
	LEAQ (R9)(R8*2), R10
	ADDQ R8, R10                // x + 6 rows
	LEAQ (R10)(R8*2), R11
	ADDQ R8, R11                // x + 9 rows
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	VXORPS Z14, Z14, Z14
	VXORPS Z15, Z15, Z15
	VXORPS Z16, Z16, Z16
	VXORPS Z17, Z17, Z17
	VXORPS Z18, Z18, Z18
	VXORPS Z19, Z19, Z19
	VXORPS Z20, Z20, Z20
	VXORPS Z21, Z21, Z21
	VXORPS Z22, Z22, Z22
	VXORPS Z23, Z23, Z23
	TESTQ CX, CX
	JEQ   zstore

zloop:
	VMOVUPS (SI), Z24
	VMOVUPS 64(SI), Z25
	VBROADCASTSS (DI), Z26
	VFMADD231PS  Z24, Z26, Z0
	VFMADD231PS  Z25, Z26, Z1
	VBROADCASTSS (DI)(R8*1), Z27
	VFMADD231PS  Z24, Z27, Z2
	VFMADD231PS  Z25, Z27, Z3
	VBROADCASTSS (DI)(R8*2), Z28
	VFMADD231PS  Z24, Z28, Z4
	VFMADD231PS  Z25, Z28, Z5
	VBROADCASTSS (R9), Z29
	VFMADD231PS  Z24, Z29, Z6
	VFMADD231PS  Z25, Z29, Z7
	VBROADCASTSS (R9)(R8*1), Z30
	VFMADD231PS  Z24, Z30, Z8
	VFMADD231PS  Z25, Z30, Z9
	VBROADCASTSS (R9)(R8*2), Z31
	VFMADD231PS  Z24, Z31, Z10
	VFMADD231PS  Z25, Z31, Z11
	VBROADCASTSS (R10), Z26
	VFMADD231PS  Z24, Z26, Z12
	VFMADD231PS  Z25, Z26, Z13
	VBROADCASTSS (R10)(R8*1), Z27
	VFMADD231PS  Z24, Z27, Z14
	VFMADD231PS  Z25, Z27, Z15
	VBROADCASTSS (R10)(R8*2), Z28
	VFMADD231PS  Z24, Z28, Z16
	VFMADD231PS  Z25, Z28, Z17
	VBROADCASTSS (R11), Z29
	VFMADD231PS  Z24, Z29, Z18
	VFMADD231PS  Z25, Z29, Z19
	VBROADCASTSS (R11)(R8*1), Z30
	VFMADD231PS  Z24, Z30, Z20
	VFMADD231PS  Z25, Z30, Z21
	VBROADCASTSS (R11)(R8*2), Z31
	VFMADD231PS  Z24, Z31, Z22
	VFMADD231PS  Z25, Z31, Z23
	ADDQ $128, SI
	ADDQ $4, DI
	ADDQ $4, R9
	ADDQ $4, R10
	ADDQ $4, R11
	DECQ CX
	JNE  zloop

zstore:
	VMOVUPS Z0, 0(DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, 128(DX)
	VMOVUPS Z3, 192(DX)
	VMOVUPS Z4, 256(DX)
	VMOVUPS Z5, 320(DX)
	VMOVUPS Z6, 384(DX)
	VMOVUPS Z7, 448(DX)
	VMOVUPS Z8, 512(DX)
	VMOVUPS Z9, 576(DX)
	VMOVUPS Z10, 640(DX)
	VMOVUPS Z11, 704(DX)
	VMOVUPS Z12, 768(DX)
	VMOVUPS Z13, 832(DX)
	VMOVUPS Z14, 896(DX)
	VMOVUPS Z15, 960(DX)
	VMOVUPS Z16, 1024(DX)
	VMOVUPS Z17, 1088(DX)
	VMOVUPS Z18, 1152(DX)
	VMOVUPS Z19, 1216(DX)
	VMOVUPS Z20, 1280(DX)
	VMOVUPS Z21, 1344(DX)
	VMOVUPS Z22, 1408(DX)
	VMOVUPS Z23, 1472(DX)
	VZEROUPPER
	RET
