#include "textflag.h"

// func tile32x8AVX512(pack *float32, x *float32, xstride int, k int, out *float32)
//
// tile32x12AVX512 (tile_amd64.s) for 8 tokens: out[t*32+i] = Σ_j pack[j*32+i] · x[t*xstride+j]
// for t < 8 (rows 8-11 of out are not written), i < 32, j < k. A chunk's last tile when 8 or fewer
// of its tokens are left (128 = 10·12 + 8). Each token's sums are the 12-token kernel's, the
// same FMAs in the same order, so its bits are too (TestTilePart). Per k step two loads of 16
// packed weights, eight broadcast inputs (into Z26-Z31, Z16, Z17) and 16 FMAs
// into Z0..Z15 (token t: rows 0-15 in Z(2t), 16-31 in Z(2t+1)).
TEXT ·tile32x8AVX512(SB), NOSPLIT, $0-40
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
	TESTQ CX, CX
	JEQ   z8store

z8loop:
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
	VBROADCASTSS (R10), Z16
	VFMADD231PS  Z24, Z16, Z12
	VFMADD231PS  Z25, Z16, Z13
	VBROADCASTSS (R10)(R8*1), Z17
	VFMADD231PS  Z24, Z17, Z14
	VFMADD231PS  Z25, Z17, Z15
	ADDQ $128, SI
	ADDQ $4, DI
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNE  z8loop

z8store:
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
	VZEROUPPER
	RET
