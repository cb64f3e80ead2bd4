#include "textflag.h"

// func tile16x6AVX2(pack *float32, x *float32, xstride int, k int, out *float32)
//
// out[t*16+i] = Σ_j pack[j*16+i] · x[t*xstride+j]   for t < 6, i < 16, j < k.
//
// pack holds 16 weight rows transposed (k-major: the 16 rows' values at column j are adjacent),
// so one k step is an outer product: two 8-lane loads of weights times six broadcast inputs,
// twelve FMAs into twelve accumulators that stay in registers for the whole k loop. Each weight
// loaded serves six tokens, each input loaded serves sixteen rows.
TEXT ·tile16x6AVX2(SB), NOSPLIT, $0-40
	MOVQ pack+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xstride+16(FP), R8
	SHLQ $2, R8                 // stride in bytes
	MOVQ k+24(FP), CX
	MOVQ out+32(FP), DX
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
	ADDQ         $64, SI
	ADDQ         $4, DI
	ADDQ         $4, R9
	DECQ         CX
	JNE          tloop

tstore:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VMOVUPS Y4, 128(DX)
	VMOVUPS Y5, 160(DX)
	VMOVUPS Y6, 192(DX)
	VMOVUPS Y7, 224(DX)
	VMOVUPS Y8, 256(DX)
	VMOVUPS Y9, 288(DX)
	VMOVUPS Y10, 320(DX)
	VMOVUPS Y11, 352(DX)
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

// func tile16x12AVX512(pack *float32, x *float32, xstride int, k int, out *float32)
//
// The Tile kernel with 16-lane registers: one load of 16 packed weights per k step serves twelve
// broadcast inputs, twelve FMAs into twelve accumulators (out[t*16+i], t < 12).
TEXT ·tile16x12AVX512(SB), NOSPLIT, $0-40
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
	TESTQ CX, CX
	JEQ   zstore

zloop:
	VMOVUPS (SI), Z12
	VBROADCASTSS (DI), Z13
	VFMADD231PS  Z12, Z13, Z0
	VBROADCASTSS (DI)(R8*1), Z14
	VFMADD231PS  Z12, Z14, Z1
	VBROADCASTSS (DI)(R8*2), Z15
	VFMADD231PS  Z12, Z15, Z2
	VBROADCASTSS (R9), Z16
	VFMADD231PS  Z12, Z16, Z3
	VBROADCASTSS (R9)(R8*1), Z17
	VFMADD231PS  Z12, Z17, Z4
	VBROADCASTSS (R9)(R8*2), Z18
	VFMADD231PS  Z12, Z18, Z5
	VBROADCASTSS (R10), Z19
	VFMADD231PS  Z12, Z19, Z6
	VBROADCASTSS (R10)(R8*1), Z20
	VFMADD231PS  Z12, Z20, Z7
	VBROADCASTSS (R10)(R8*2), Z21
	VFMADD231PS  Z12, Z21, Z8
	VBROADCASTSS (R11), Z22
	VFMADD231PS  Z12, Z22, Z9
	VBROADCASTSS (R11)(R8*1), Z23
	VFMADD231PS  Z12, Z23, Z10
	VBROADCASTSS (R11)(R8*2), Z24
	VFMADD231PS  Z12, Z24, Z11
	ADDQ $64, SI
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
	VZEROUPPER
	RET
