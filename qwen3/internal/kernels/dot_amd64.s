#include "textflag.h"

// func cpuid(eax, ecx uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eax+0(FP), AX
	MOVL ecx+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// REDUCE sums the 8 lanes of Y0 into the low lane of X0.
#define REDUCE \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS       X1, X0, X0 \
	VHADDPS      X0, X0, X0 \
	VHADDPS      X0, X0, X0

// Every loop asks for the weights 4 KB ahead (PREFETCHT0): a core on its own keeps too few
// memory reads in flight to stream at full speed. Measured on the course's 2-core machine: a
// pass over 1 GB of float32 rows ran at 9.7 GB/s without the prefetch and 17.9 GB/s with one
// 1 KB ahead; whole-model decoding gained another 10-30% going from 1 KB to 4 KB ahead (the
// Q8_0 and BF16 loops consume bytes more slowly, so they need the longer lead).
// (A prefetch past the end of the data is harmless: it is a hint and never faults.)

// The float dot kernels take several rows at once (one call per chunk of a matrix pass):
//	func dotXAVX2(w *T, stride, rows int, x *float32, n int, out *float32)
// out[r] = Σ_{i<n} w_r[i]·x[i] for each row r (stride bytes after the previous one), n a multiple of 8.

// func dotF32AVX2(w *float32, stride, rows int, x *float32, n int, out *float32)
// Four accumulators hide the FMA latency.
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), R12
	XORQ R13, R13

f32row:
	MOVQ   R12, SI
	MOVQ   x+24(FP), DI
	MOVQ   n+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f32loop32:
	CMPQ CX, $32
	JLT  f32loop8
	PREFETCHT0  4096(SI)
	PREFETCHT0  4160(SI)
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         f32loop32

f32loop8:
	CMPQ CX, $8
	JLT  f32done
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f32loop8

f32done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	REDUCE
	MOVQ   out+40(FP), AX
	VMOVSS X0, (AX)(R13*4)
	ADDQ   stride+8(FP), R12
	INCQ   R13
	CMPQ   R13, rows+16(FP)
	JLT    f32row
	VZEROUPPER
	RET

// func dotBF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)
// A bfloat16 is the top half of a float32: zero-extend each 16-bit value
// to 32 bits and shift it left by 16.
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), R12
	XORQ R13, R13

bf16row:
	MOVQ   R12, SI
	MOVQ   x+24(FP), DI
	MOVQ   n+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

bf16loop32:
	CMPQ CX, $32
	JLT  bf16loop8
	PREFETCHT0  4096(SI)
	VPMOVZXWD   (SI), Y4
	VPMOVZXWD   16(SI), Y5
	VPMOVZXWD   32(SI), Y6
	VPMOVZXWD   48(SI), Y7
	VPSLLD      $16, Y4, Y4
	VPSLLD      $16, Y5, Y5
	VPSLLD      $16, Y6, Y6
	VPSLLD      $16, Y7, Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         bf16loop32

bf16loop8:
	CMPQ CX, $8
	JLT  bf16done
	VPMOVZXWD   (SI), Y4
	VPSLLD      $16, Y4, Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         bf16loop8

bf16done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	REDUCE
	MOVQ   out+40(FP), AX
	VMOVSS X0, (AX)(R13*4)
	ADDQ   stride+8(FP), R12
	INCQ   R13
	CMPQ   R13, rows+16(FP)
	JLT    bf16row
	VZEROUPPER
	RET

// func dotF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)
// VCVTPH2PS (F16C) converts 8 halves to 8 floats exactly.
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), R12
	XORQ R13, R13

f16row:
	MOVQ   R12, SI
	MOVQ   x+24(FP), DI
	MOVQ   n+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f16loop32:
	CMPQ CX, $32
	JLT  f16loop8
	PREFETCHT0  4096(SI)
	VCVTPH2PS   (SI), Y4
	VCVTPH2PS   16(SI), Y5
	VCVTPH2PS   32(SI), Y6
	VCVTPH2PS   48(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         f16loop32

f16loop8:
	CMPQ CX, $8
	JLT  f16done
	VCVTPH2PS   (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f16loop8

f16done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	REDUCE
	MOVQ   out+40(FP), AX
	VMOVSS X0, (AX)(R13*4)
	ADDQ   stride+8(FP), R12
	INCQ   R13
	CMPQ   R13, rows+16(FP)
	JLT    f16row
	VZEROUPPER
	RET

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

// func dotQ8_0AVX512(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32
// The same as dotQ8_0AVX2 with 16 lanes: a block's 32 quants are two sign-extensions of 16 bytes,
// half the instructions per weight. Two accumulators alternate between even and odd blocks.
TEXT ·dotQ8_0AVX512(SB), NOSPLIT, $0-36
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ nblocks+16(FP), CX
	MOVQ f16+24(FP), R8
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1

q8zloop:
	CMPQ CX, $0
	JEQ  q8zdone
	PREFETCHT0   4096(SI)
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Z7
	VPMOVSXBD    2(SI), Z4
	VPMOVSXBD    18(SI), Z5
	VCVTDQ2PS    Z4, Z4
	VCVTDQ2PS    Z5, Z5
	VMULPS       (DI), Z4, Z9
	VFMADD231PS  64(DI), Z5, Z9
	VFMADD231PS  Z9, Z7, Z0
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JEQ          q8zdone
	MOVWLZX      (SI), AX
	VBROADCASTSS (R8)(AX*4), Z8
	VPMOVSXBD    2(SI), Z10
	VPMOVSXBD    18(SI), Z11
	VCVTDQ2PS    Z10, Z10
	VCVTDQ2PS    Z11, Z11
	VMULPS       (DI), Z10, Z12
	VFMADD231PS  64(DI), Z11, Z12
	VFMADD231PS  Z12, Z8, Z1
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JMP          q8zloop

q8zdone:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	REDUCE
	VZEROUPPER
	MOVSS X0, ret+32(FP)
	RET

// func dotF32x4AVX2(w *float32, stride, rows int, x *float32, n int, out *float32)
// dotF32AVX2 for rows a multiple of 4 and n a multiple of 16, four rows at a time: each step
// loads 16 inputs once for four rows, and the four rows stream from memory side by side, which
// keeps more reads in flight than one row after another (F32 decoding is bound by them).
TEXT ·dotF32x4AVX2(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), R12
	MOVQ stride+8(FP), R10
	LEAQ (R10)(R10*2), R11          // 3 strides
	XORQ R13, R13

f4row:
	MOVQ   R12, SI
	MOVQ   x+24(FP), DI
	MOVQ   n+32(FP), CX
	SHRQ   $4, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

f4loop:
	PREFETCHT0  4096(SI)
	PREFETCHT0  4096(SI)(R10*1)
	PREFETCHT0  4096(SI)(R10*2)
	PREFETCHT0  4096(SI)(R11*1)
	VMOVUPS     (DI), Y8
	VMOVUPS     32(DI), Y9
	VFMADD231PS (SI), Y8, Y0
	VFMADD231PS 32(SI), Y9, Y1
	VFMADD231PS (SI)(R10*1), Y8, Y2
	VFMADD231PS 32(SI)(R10*1), Y9, Y3
	VFMADD231PS (SI)(R10*2), Y8, Y4
	VFMADD231PS 32(SI)(R10*2), Y9, Y5
	VFMADD231PS (SI)(R11*1), Y8, Y6
	VFMADD231PS 32(SI)(R11*1), Y9, Y7
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNE         f4loop

	MOVQ out+40(FP), AX
	LEAQ (AX)(R13*4), AX
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	// four horizontal sums at once: lanes of Y0, Y2, Y4, Y6 into the four floats of X0
	VHADDPS Y2, Y0, Y0              // r0 01 23, r2... per 128-bit half
	VHADDPS Y6, Y4, Y4
	VHADDPS Y4, Y0, Y0              // [r0 r1 r2 r3 | r0 r1 r2 r3] partial sums
	VEXTRACTF128 $1, Y0, X1
	VADDPS  X1, X0, X0
	VMOVUPS X0, (AX)
	LEAQ    (R12)(R10*4), R12
	ADDQ    $4, R13
	CMPQ    R13, rows+16(FP)
	JLT     f4row
	VZEROUPPER
	RET
