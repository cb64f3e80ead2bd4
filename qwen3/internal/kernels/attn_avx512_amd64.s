#include "textflag.h"

// The attention tiles (attn_avx2_amd64.s, tile_amd64.s) at the AVX512 level: a tile's sixteen lanes
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

// TILE6W(LOAD, shift) is two TILE6 side by side, the 32-lane tile of AttnTile32: lanes 0-15 of
// row t in Zt from pack, lanes 16-31 in Z(6+t) from pack + second (BX, in elements, shifted into
// bytes); per k step two loads and six broadcasts (Z14-Z19) serve twelve FMAs, so the FMA units
// rather than the twelve accumulators' latency or the loads set the pace. Each lane's operations
// are TILE6's.
#define TILE6W(LOAD, shift) \
	MOVQ   second+8(FP), BX \
	SHLQ   $shift, BX \
	LEAQ   (DI)(R8*2), R9 \
	ADDQ   R8, R9 \
	VXORPS Z0, Z0, Z0 \
	VXORPS Z1, Z1, Z1 \
	VXORPS Z2, Z2, Z2 \
	VXORPS Z3, Z3, Z3 \
	VXORPS Z4, Z4, Z4 \
	VXORPS Z5, Z5, Z5 \
	VXORPS Z6, Z6, Z6 \
	VXORPS Z7, Z7, Z7 \
	VXORPS Z8, Z8, Z8 \
	VXORPS Z9, Z9, Z9 \
	VXORPS Z10, Z10, Z10 \
	VXORPS Z11, Z11, Z11 \
	TESTQ  CX, CX \
	JEQ    tstore \
tloop: \
	LOAD((SI), Z12) \
	LOAD((SI)(BX*1), Z13) \
	VBROADCASTSS (DI), Z14 \
	VFMADD231PS  Z12, Z14, Z0 \
	VFMADD231PS  Z13, Z14, Z6 \
	VBROADCASTSS (DI)(R8*1), Z15 \
	VFMADD231PS  Z12, Z15, Z1 \
	VFMADD231PS  Z13, Z15, Z7 \
	VBROADCASTSS (DI)(R8*2), Z16 \
	VFMADD231PS  Z12, Z16, Z2 \
	VFMADD231PS  Z13, Z16, Z8 \
	VBROADCASTSS (R9), Z17 \
	VFMADD231PS  Z12, Z17, Z3 \
	VFMADD231PS  Z13, Z17, Z9 \
	VBROADCASTSS (R9)(R8*1), Z18 \
	VFMADD231PS  Z12, Z18, Z4 \
	VFMADD231PS  Z13, Z18, Z10 \
	VBROADCASTSS (R9)(R8*2), Z19 \
	VFMADD231PS  Z12, Z19, Z5 \
	VFMADD231PS  Z13, Z19, Z11 \
	ADDQ         R10, SI \
	ADDQ         $4, DI \
	ADDQ         $4, R9 \
	DECQ         CX \
	JNE          tloop \
tstore: \
	CMPQ   acc+64(FP), $0 \
	JEQ    tput \
	MOVQ   DX, AX \
	VADDPS (AX), Z0, Z0 \
	VADDPS 64(AX), Z6, Z6 \
	ADDQ   R11, AX \
	VADDPS (AX), Z1, Z1 \
	VADDPS 64(AX), Z7, Z7 \
	ADDQ   R11, AX \
	VADDPS (AX), Z2, Z2 \
	VADDPS 64(AX), Z8, Z8 \
	ADDQ   R11, AX \
	VADDPS (AX), Z3, Z3 \
	VADDPS 64(AX), Z9, Z9 \
	ADDQ   R11, AX \
	VADDPS (AX), Z4, Z4 \
	VADDPS 64(AX), Z10, Z10 \
	ADDQ   R11, AX \
	VADDPS (AX), Z5, Z5 \
	VADDPS 64(AX), Z11, Z11 \
tput: \
	VMOVUPS Z0, (DX) \
	VMOVUPS Z6, 64(DX) \
	ADDQ    R11, DX \
	VMOVUPS Z1, (DX) \
	VMOVUPS Z7, 64(DX) \
	ADDQ    R11, DX \
	VMOVUPS Z2, (DX) \
	VMOVUPS Z8, 64(DX) \
	ADDQ    R11, DX \
	VMOVUPS Z3, (DX) \
	VMOVUPS Z9, 64(DX) \
	ADDQ    R11, DX \
	VMOVUPS Z4, (DX) \
	VMOVUPS Z10, 64(DX) \
	ADDQ    R11, DX \
	VMOVUPS Z5, (DX) \
	VMOVUPS Z11, 64(DX) \
	VZEROUPPER \
	RET

// TILE2W(LOAD, shift) is two TILE2 side by side: lanes 0-15 of rows 0 and 1 in Z0, Z1 (even k
// steps) and Z2, Z3 (odd), lanes 16-31 in Z4, Z5 and Z6, Z7. Every two k steps it asks for two
// lines of pf (R12), then moves pfStep (R13) on: decoding's stream of requests for the next keys
// or values (AttnTile32).
#define TILE2W(LOAD, shift) \
	MOVQ   pf+72(FP), R12 \
	MOVQ   pfStep+80(FP), R13 \
	MOVQ   second+8(FP), BX \
	SHLQ   $shift, BX \
	VXORPS Z0, Z0, Z0 \
	VXORPS Z1, Z1, Z1 \
	VXORPS Z2, Z2, Z2 \
	VXORPS Z3, Z3, Z3 \
	VXORPS Z4, Z4, Z4 \
	VXORPS Z5, Z5, Z5 \
	VXORPS Z6, Z6, Z6 \
	VXORPS Z7, Z7, Z7 \
	LEAQ   (SI)(BX*1), R9 \
tloop: \
	CMPQ CX, $2 \
	JLT  ttail \
	LOAD((SI), Z8) \
	LOAD((R9), Z9) \
	LOAD((SI)(R10*1), Z10) \
	LOAD((R9)(R10*1), Z11) \
	VBROADCASTSS (DI), Z12 \
	VBROADCASTSS (DI)(R8*1), Z13 \
	VBROADCASTSS 4(DI), Z14 \
	VBROADCASTSS 4(DI)(R8*1), Z15 \
	VFMADD231PS Z8, Z12, Z0 \
	VFMADD231PS Z8, Z13, Z1 \
	VFMADD231PS Z9, Z12, Z4 \
	VFMADD231PS Z9, Z13, Z5 \
	VFMADD231PS Z10, Z14, Z2 \
	VFMADD231PS Z10, Z15, Z3 \
	VFMADD231PS Z11, Z14, Z6 \
	VFMADD231PS Z11, Z15, Z7 \
	PREFETCHT0  (R12) \
	PREFETCHT0  64(R12) \
	ADDQ        R13, R12 \
	LEAQ        (SI)(R10*2), SI \
	LEAQ        (R9)(R10*2), R9 \
	ADDQ        $8, DI \
	SUBQ        $2, CX \
	JMP         tloop \
ttail: \
	TESTQ CX, CX \
	JEQ   tsum \
	LOAD((SI), Z8) \
	LOAD((R9), Z9) \
	VBROADCASTSS (DI), Z12 \
	VBROADCASTSS (DI)(R8*1), Z13 \
	VFMADD231PS Z8, Z12, Z0 \
	VFMADD231PS Z8, Z13, Z1 \
	VFMADD231PS Z9, Z12, Z4 \
	VFMADD231PS Z9, Z13, Z5 \
tsum: \
	VADDPS Z2, Z0, Z0 \
	VADDPS Z3, Z1, Z1 \
	VADDPS Z6, Z4, Z4 \
	VADDPS Z7, Z5, Z5 \
	CMPQ   acc+64(FP), $0 \
	JEQ    tput \
	VADDPS (DX), Z0, Z0 \
	VADDPS 64(DX), Z4, Z4 \
	VADDPS (DX)(R11*1), Z1, Z1 \
	VADDPS 64(DX)(R11*1), Z5, Z5 \
tput: \
	VMOVUPS Z0, (DX) \
	VMOVUPS Z4, 64(DX) \
	VMOVUPS Z1, (DX)(R11*1) \
	VMOVUPS Z5, 64(DX)(R11*1) \
	VZEROUPPER \
	RET

// ARGSW(shift) loads the arguments of the 32-lane kernels: pack, second, x, xstride, k, out,
// packStride, outStride, acc (second is read by TILE6W and TILE2W).
#define ARGSW(shift) \
	MOVQ pack+0(FP), SI \
	MOVQ x+16(FP), DI \
	MOVQ xstride+24(FP), R8 \
	SHLQ $2, R8 \
	MOVQ k+32(FP), CX \
	MOVQ out+40(FP), DX \
	MOVQ packStride+48(FP), R10 \
	SHLQ $shift, R10 \
	MOVQ outStride+56(FP), R11 \
	SHLQ $2, R11

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

// func tile32x6AVX512(pack *float32, second int, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)
TEXT ·tile32x6AVX512(SB), NOSPLIT, $0-88
	ARGSW(2)
	TILE6W(LOADF32, 2)

// func tile32x2AVX512(pack *float32, second int, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)
TEXT ·tile32x2AVX512(SB), NOSPLIT, $0-88
	ARGSW(2)
	TILE2W(LOADF32, 2)

// func tile32x6F16AVX512(pack *uint16, second int, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)
TEXT ·tile32x6F16AVX512(SB), NOSPLIT, $0-88
	ARGSW(1)
	TILE6W(LOADF16, 1)

// func tile32x2F16AVX512(pack *uint16, second int, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)
TEXT ·tile32x2F16AVX512(SB), NOSPLIT, $0-88
	ARGSW(1)
	TILE2W(LOADF16, 1)
