#include "textflag.h"

// The attention tiles (attn_amd64.s, tile_amd64.s) at the AVX512 level: a tile's sixteen lanes
// are one 512-bit register instead of two 256-bit halves. Each lane does the AVX2 kernel's
// operations in its order (one fused multiply-add per k step into the lane's accumulator, the
// input broadcast from memory; tile16x2's even and odd k steps in two accumulators added at the
// end; acc adds out last), so the results are the AVX2 kernels' bits
// (TestAttnTileAVX512MatchesAVX2). What changes is the count: six FMAs per k step for the six rows,
// not twelve.
//
// Labels are local to each TEXT, so the macros serve all four kernels.
//
// Arguments as the AVX2 kernels: pack, x, xstride, k, out, packStride, outStride, acc. Registers:
// SI pack, DI x (R9 = x + 3 rows), R8 bytes between rows of x, CX k left, DX out, R10 bytes
// between k steps of pack, R11 bytes between rows of out.

// LOADF32 and LOADF16 put a k step's sixteen packed values (at addr) into Z as float32 (float16 widened by
// VCVTPH2PS, exactly).
#define LOADF32(addr, Z) VMOVUPS addr, Z
#define LOADF16(addr, Z) VCVTPH2PS addr, Z

#define ARGS(shift) \
	MOVQ pack+0(FP), SI \
	MOVQ x+8(FP), DI \
	MOVQ xstride+16(FP), R8 \
	SHLQ $2, R8 \
	MOVQ k+24(FP), CX \
	MOVQ out+32(FP), DX \
	MOVQ packStride+40(FP), R10 \
	SHLQ $shift, R10 \
	MOVQ outStride+48(FP), R11 \
	SHLQ $2, R11

// TILE6(LOAD) is tile16x6 with six accumulators Z0-Z5 (row t in Zt).
#define TILE6(LOAD) \
	LEAQ   (DI)(R8*2), R9 \
	ADDQ   R8, R9 \
	VXORPS Z0, Z0, Z0 \
	VXORPS Z1, Z1, Z1 \
	VXORPS Z2, Z2, Z2 \
	VXORPS Z3, Z3, Z3 \
	VXORPS Z4, Z4, Z4 \
	VXORPS Z5, Z5, Z5 \
	TESTQ  CX, CX \
	JEQ    tstore \
tloop: \
	LOAD((SI), Z6) \
	VFMADD231PS.BCST (DI), Z6, Z0 \
	VFMADD231PS.BCST (DI)(R8*1), Z6, Z1 \
	VFMADD231PS.BCST (DI)(R8*2), Z6, Z2 \
	VFMADD231PS.BCST (R9), Z6, Z3 \
	VFMADD231PS.BCST (R9)(R8*1), Z6, Z4 \
	VFMADD231PS.BCST (R9)(R8*2), Z6, Z5 \
	ADDQ             R10, SI \
	ADDQ             $4, DI \
	ADDQ             $4, R9 \
	DECQ             CX \
	JNE              tloop \
tstore: \
	CMPQ   acc+56(FP), $0 \
	JEQ    tput \
	MOVQ   DX, AX \
	VADDPS (AX), Z0, Z0 \
	ADDQ   R11, AX \
	VADDPS (AX), Z1, Z1 \
	ADDQ   R11, AX \
	VADDPS (AX), Z2, Z2 \
	ADDQ   R11, AX \
	VADDPS (AX), Z3, Z3 \
	ADDQ   R11, AX \
	VADDPS (AX), Z4, Z4 \
	ADDQ   R11, AX \
	VADDPS (AX), Z5, Z5 \
tput: \
	VMOVUPS Z0, (DX) \
	ADDQ    R11, DX \
	VMOVUPS Z1, (DX) \
	ADDQ    R11, DX \
	VMOVUPS Z2, (DX) \
	ADDQ    R11, DX \
	VMOVUPS Z3, (DX) \
	ADDQ    R11, DX \
	VMOVUPS Z4, (DX) \
	ADDQ    R11, DX \
	VMOVUPS Z5, (DX) \
	VZEROUPPER \
	RET

// TILE2(LOAD) is tile16x2: even k steps into Z0 (row 0) and Z1 (row 1), odd ones into Z2 and Z3,
// added at the end as the AVX2 kernel adds its two sets.
#define TILE2(LOAD) \
	VXORPS Z0, Z0, Z0 \
	VXORPS Z1, Z1, Z1 \
	VXORPS Z2, Z2, Z2 \
	VXORPS Z3, Z3, Z3 \
tloop: \
	CMPQ CX, $2 \
	JLT  ttail \
	LOAD((SI), Z6) \
	LOAD((SI)(R10*1), Z7) \
	VFMADD231PS.BCST (DI), Z6, Z0 \
	VFMADD231PS.BCST (DI)(R8*1), Z6, Z1 \
	VFMADD231PS.BCST 4(DI), Z7, Z2 \
	VFMADD231PS.BCST 4(DI)(R8*1), Z7, Z3 \
	LEAQ             (SI)(R10*2), SI \
	ADDQ             $8, DI \
	SUBQ             $2, CX \
	JMP              tloop \
ttail: \
	TESTQ CX, CX \
	JEQ   tsum \
	LOAD((SI), Z6) \
	VFMADD231PS.BCST (DI), Z6, Z0 \
	VFMADD231PS.BCST (DI)(R8*1), Z6, Z1 \
tsum: \
	VADDPS Z2, Z0, Z0 \
	VADDPS Z3, Z1, Z1 \
	CMPQ   acc+56(FP), $0 \
	JEQ    tput \
	VADDPS (DX), Z0, Z0 \
	VADDPS (DX)(R11*1), Z1, Z1 \
tput: \
	VMOVUPS Z0, (DX) \
	VMOVUPS Z1, (DX)(R11*1) \
	VZEROUPPER \
	RET

// func tile16x6AVX512(pack *float32, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
TEXT ·tile16x6AVX512(SB), NOSPLIT, $0-64
	ARGS(2)
	TILE6(LOADF32)

// func tile16x2AVX512(pack *float32, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
TEXT ·tile16x2AVX512(SB), NOSPLIT, $0-64
	ARGS(2)
	TILE2(LOADF32)

// func tile16x6F16AVX512(pack *uint16, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
TEXT ·tile16x6F16AVX512(SB), NOSPLIT, $0-64
	ARGS(1)
	TILE6(LOADF16)

// func tile16x2F16AVX512(pack *uint16, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
TEXT ·tile16x2F16AVX512(SB), NOSPLIT, $0-64
	ARGS(1)
	TILE2(LOADF16)
