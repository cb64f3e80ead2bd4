#include "textflag.h"

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
