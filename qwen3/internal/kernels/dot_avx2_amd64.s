#include "textflag.h"
#include "quant_amd64.h"
#include "dot_amd64.h"

// The float dot kernels take several rows at once (one call per chunk of a matrix pass):
//	func dotXAVX2(w *T, stride, rows int, x *float32, n int, out *float32)
// out[r] = Σ_{i<n} w_r[i]·x[i] for each row r (stride bytes after the previous one), n a multiple
// of 8; their formula and loop are FDOT's (dot_amd64.h), shared with the batched kernels.
//
// Every loop asks for the weights 4 KB ahead (PREFETCHT0): a core on its own keeps too few
// memory reads in flight to stream at full speed. Measured on the course's 2-core machine: a
// pass over 1 GB of float32 rows ran at 9.7 GB/s without the prefetch and 17.9 GB/s with one
// 1 KB ahead; whole-model decoding gained another 10-30% going from 1 KB to 4 KB ahead (the
// Q8_0 and BF16 loops consume bytes more slowly, so they need the longer lead). Four rows side by
// side keep four streams in flight (F32 decoding went from 6.2-6.7 to 8.0-9.7 tok/s with them).
// (A prefetch past the end of the data is harmless: it is a hint and never faults.)

// func dotF32AVX2(w *float32, stride, rows int, x *float32, n int, out *float32)
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-48
	FDOT(FMAF32, 32)

// func dotBF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-48
	FDOT(FMABF16, 16)

// func dotF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-48
	FDOT(FMAF16, 16)

// REDUCE sums the 8 lanes of Y0 into the low lane of X0.
#define REDUCE HSUM(Y0, X0)

// func dotQ8_0AVX2(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32
// Each 34-byte block is {f16 d; int8 q[32]}. Per block: p = Σ_j q_j·x_j in 8 lanes (sign-extend
// 8 quants to int32, convert to float, multiply-add), then acc += d·p. The scale d is looked up
// in a table of all 65,536 halves (a load and a broadcast from memory: cheaper than converting).
// Two accumulators alternate between even and odd blocks.
TEXT ·dotQ8_0AVX2(SB), NOSPLIT, $0-36
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ nblocks+16(FP), CX
	MOVQ f16+24(FP), R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

q8loop:
	CMPQ CX, $0
	JEQ  q8done
	PREFETCHT0   4096(SI)
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Y7
	VPMOVSXBD    2(SI), Y4
	VPMOVSXBD    10(SI), Y5
	VPMOVSXBD    18(SI), Y6
	VPMOVSXBD    26(SI), Y8
	VCVTDQ2PS    Y4, Y4
	VCVTDQ2PS    Y5, Y5
	VCVTDQ2PS    Y6, Y6
	VCVTDQ2PS    Y8, Y8
	VMULPS       (DI), Y4, Y9
	VMULPS       32(DI), Y5, Y10
	VFMADD231PS  64(DI), Y6, Y9
	VFMADD231PS  96(DI), Y8, Y10
	VADDPS       Y10, Y9, Y9
	VFMADD231PS  Y9, Y7, Y0
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JEQ          q8done
	PREFETCHT0   4096(SI)
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Y7
	VPMOVSXBD    2(SI), Y4
	VPMOVSXBD    10(SI), Y5
	VPMOVSXBD    18(SI), Y6
	VPMOVSXBD    26(SI), Y8
	VCVTDQ2PS    Y4, Y4
	VCVTDQ2PS    Y5, Y5
	VCVTDQ2PS    Y6, Y6
	VCVTDQ2PS    Y8, Y8
	VMULPS       (DI), Y4, Y9
	VMULPS       32(DI), Y5, Y10
	VFMADD231PS  64(DI), Y6, Y9
	VFMADD231PS  96(DI), Y8, Y10
	VADDPS       Y10, Y9, Y9
	VFMADD231PS  Y9, Y7, Y1
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JMP          q8loop

q8done:
	VADDPS Y1, Y0, Y0
	REDUCE
	VZEROUPPER
	MOVSS X0, ret+32(FP)
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
