#include "textflag.h"

// Kernels of attention and of the MLP's activation: a 16-lane x 2-row tile for one token's two
// query heads, e^x for softmax and SiLU.

// Constants, eight float32 lanes each (bias127: eight int32 127s). e^x follows Cephes' expf:
// x = n·ln2 + r with |r| <= ln2/2 (ln2 split in two so n·ln2hi is exact), e^r by a degree-6
// polynomial, 2^n put into the exponent bits. Inputs are clamped to [-87, 88] so that 2^n stays
// a normal float32: e^-87 = 1.6e-38 stands for anything smaller (softmax weights that small are 0
// to float32 sums), e^88 = 1.7e38 for anything larger.
DATA exphi<>+0(SB)/8, $0x42b0000042b00000
DATA exphi<>+8(SB)/8, $0x42b0000042b00000
DATA exphi<>+16(SB)/8, $0x42b0000042b00000
DATA exphi<>+24(SB)/8, $0x42b0000042b00000
GLOBL exphi<>(SB), RODATA|NOPTR, $32
DATA explo<>+0(SB)/8, $0xc2ae0000c2ae0000
DATA explo<>+8(SB)/8, $0xc2ae0000c2ae0000
DATA explo<>+16(SB)/8, $0xc2ae0000c2ae0000
DATA explo<>+24(SB)/8, $0xc2ae0000c2ae0000
GLOBL explo<>(SB), RODATA|NOPTR, $32
DATA log2e<>+0(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA log2e<>+8(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA log2e<>+16(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA log2e<>+24(SB)/8, $0x3fb8aa3b3fb8aa3b
GLOBL log2e<>(SB), RODATA|NOPTR, $32
DATA ln2hi<>+0(SB)/8, $0x3f3180003f318000
DATA ln2hi<>+8(SB)/8, $0x3f3180003f318000
DATA ln2hi<>+16(SB)/8, $0x3f3180003f318000
DATA ln2hi<>+24(SB)/8, $0x3f3180003f318000
GLOBL ln2hi<>(SB), RODATA|NOPTR, $32
DATA ln2lo<>+0(SB)/8, $0xb95e8083b95e8083
DATA ln2lo<>+8(SB)/8, $0xb95e8083b95e8083
DATA ln2lo<>+16(SB)/8, $0xb95e8083b95e8083
DATA ln2lo<>+24(SB)/8, $0xb95e8083b95e8083
GLOBL ln2lo<>(SB), RODATA|NOPTR, $32
DATA expp0<>+0(SB)/8, $0x3950696739506967
DATA expp0<>+8(SB)/8, $0x3950696739506967
DATA expp0<>+16(SB)/8, $0x3950696739506967
DATA expp0<>+24(SB)/8, $0x3950696739506967
GLOBL expp0<>(SB), RODATA|NOPTR, $32
DATA expp1<>+0(SB)/8, $0x3ab743ce3ab743ce
DATA expp1<>+8(SB)/8, $0x3ab743ce3ab743ce
DATA expp1<>+16(SB)/8, $0x3ab743ce3ab743ce
DATA expp1<>+24(SB)/8, $0x3ab743ce3ab743ce
GLOBL expp1<>(SB), RODATA|NOPTR, $32
DATA expp2<>+0(SB)/8, $0x3c0889083c088908
DATA expp2<>+8(SB)/8, $0x3c0889083c088908
DATA expp2<>+16(SB)/8, $0x3c0889083c088908
DATA expp2<>+24(SB)/8, $0x3c0889083c088908
GLOBL expp2<>(SB), RODATA|NOPTR, $32
DATA expp3<>+0(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expp3<>+8(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expp3<>+16(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expp3<>+24(SB)/8, $0x3d2aa9c13d2aa9c1
GLOBL expp3<>(SB), RODATA|NOPTR, $32
DATA expp4<>+0(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expp4<>+8(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expp4<>+16(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expp4<>+24(SB)/8, $0x3e2aaaaa3e2aaaaa
GLOBL expp4<>(SB), RODATA|NOPTR, $32
DATA expp5<>+0(SB)/8, $0x3f0000003f000000
DATA expp5<>+8(SB)/8, $0x3f0000003f000000
DATA expp5<>+16(SB)/8, $0x3f0000003f000000
DATA expp5<>+24(SB)/8, $0x3f0000003f000000
GLOBL expp5<>(SB), RODATA|NOPTR, $32
DATA one<>+0(SB)/8, $0x3f8000003f800000
DATA one<>+8(SB)/8, $0x3f8000003f800000
DATA one<>+16(SB)/8, $0x3f8000003f800000
DATA one<>+24(SB)/8, $0x3f8000003f800000
GLOBL one<>(SB), RODATA|NOPTR, $32
DATA bias127<>+0(SB)/8, $0x0000007f0000007f
DATA bias127<>+8(SB)/8, $0x0000007f0000007f
DATA bias127<>+16(SB)/8, $0x0000007f0000007f
DATA bias127<>+24(SB)/8, $0x0000007f0000007f
GLOBL bias127<>(SB), RODATA|NOPTR, $32

// EXP8 replaces Y0 by e^Y0 (clamped as above); it uses Y1, Y2, Y3 and the constants in
// Y8 (hi), Y9 (lo), Y10 (log2e), Y11 (ln2hi), Y12 (ln2lo), Y13 (p0), Y14 (1).
#define EXP8 \
	VMINPS       Y8, Y0, Y0 \
	VMAXPS       Y9, Y0, Y0 \
	VMULPS       Y10, Y0, Y1 \
	VROUNDPS     $0, Y1, Y1 \
	VFNMADD231PS Y11, Y1, Y0 \
	VFNMADD231PS Y12, Y1, Y0 \
	VMOVAPS      Y13, Y2 \
	VFMADD213PS  expp1<>(SB), Y0, Y2 \
	VFMADD213PS  expp2<>(SB), Y0, Y2 \
	VFMADD213PS  expp3<>(SB), Y0, Y2 \
	VFMADD213PS  expp4<>(SB), Y0, Y2 \
	VFMADD213PS  expp5<>(SB), Y0, Y2 \
	VMULPS       Y0, Y0, Y3 \
	VFMADD213PS  Y0, Y3, Y2 \
	VADDPS       Y14, Y2, Y2 \
	VCVTPS2DQ    Y1, Y1 \
	VPADDD       bias127<>(SB), Y1, Y1 \
	VPSLLD       $23, Y1, Y1 \
	VMULPS       Y1, Y2, Y0

#define EXPCONSTS \
	VMOVUPS exphi<>(SB), Y8 \
	VMOVUPS explo<>(SB), Y9 \
	VMOVUPS log2e<>(SB), Y10 \
	VMOVUPS ln2hi<>(SB), Y11 \
	VMOVUPS ln2lo<>(SB), Y12 \
	VMOVUPS expp0<>(SB), Y13 \
	VMOVUPS one<>(SB), Y14

// func expSubAVX2(x *float32, n int, m float32) float32
// x[i] = e^(x[i]−m) for n a multiple of 8; returns the sum of the new values.
TEXT ·expSubAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS m+16(FP), Y15
	EXPCONSTS
	VXORPS       Y4, Y4, Y4
	SHRQ         $3, CX
	JEQ          esdone

esloop:
	VMOVUPS (SI), Y0
	VSUBPS  Y15, Y0, Y0
	EXP8
	VMOVUPS Y0, (SI)
	VADDPS  Y0, Y4, Y4
	ADDQ    $32, SI
	DECQ    CX
	JNE     esloop

esdone:
	VEXTRACTF128 $1, Y4, X1
	VADDPS       X1, X4, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func siluMulAVX2(dst, gate, u *float32, n int)
// dst[i] = gate[i] / (1 + e^−gate[i]) · u[i] for n a multiple of 8.
TEXT ·siluMulAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ gate+8(FP), SI
	MOVQ u+16(FP), DX
	MOVQ n+24(FP), CX
	EXPCONSTS
	VXORPS Y15, Y15, Y15
	SHRQ   $3, CX
	JEQ    smdone

smloop:
	VMOVUPS (SI), Y5
	VSUBPS  Y5, Y15, Y0         // −g
	EXP8
	VADDPS  Y14, Y0, Y0         // 1 + e^−g
	VDIVPS  Y0, Y5, Y5          // g / (1 + e^−g)
	VMULPS  (DX), Y5, Y5
	VMOVUPS Y5, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNE     smloop

smdone:
	VZEROUPPER
	RET

// func tile16x2AVX2(pack *float32, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
//
// out[t*outStride+i] (+)= Σ_j pack[j*packStride+i] · x[t*xstride+j]   for t < 2, i < 16, j < k:
// tile16x6AVX2 for two rows (one token's two query heads of a key/value head when decoding).
// Two k steps per iteration into two sets of four accumulators, so that the FMA latency of one
// accumulator does not set the pace.
TEXT ·tile16x2AVX2(SB), NOSPLIT, $0-64
	MOVQ pack+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xstride+16(FP), R8
	SHLQ $2, R8
	MOVQ k+24(FP), CX
	MOVQ out+32(FP), DX
	MOVQ packStride+40(FP), R10
	SHLQ $2, R10
	MOVQ outStride+48(FP), R11
	SHLQ $2, R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

t2loop:
	CMPQ CX, $2
	JLT  t2tail
	VMOVUPS      (SI), Y8
	VMOVUPS      32(SI), Y9
	VBROADCASTSS (DI), Y10
	VBROADCASTSS (DI)(R8*1), Y11
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VMOVUPS      (SI)(R10*1), Y12
	VMOVUPS      32(SI)(R10*1), Y13
	VBROADCASTSS 4(DI), Y14
	VBROADCASTSS 4(DI)(R8*1), Y15
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	LEAQ         (SI)(R10*2), SI
	ADDQ         $8, DI
	SUBQ         $2, CX
	JMP          t2loop

t2tail:
	TESTQ CX, CX
	JEQ   t2sum
	VMOVUPS      (SI), Y8
	VMOVUPS      32(SI), Y9
	VBROADCASTSS (DI), Y10
	VBROADCASTSS (DI)(R8*1), Y11
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3

t2sum:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	MOVQ   acc+56(FP), AX
	TESTQ  AX, AX
	JEQ    t2put
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	VADDPS (DX)(R11*1), Y2, Y2
	VADDPS 32(DX)(R11*1), Y3, Y3

t2put:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R11*1)
	VMOVUPS Y3, 32(DX)(R11*1)
	VZEROUPPER
	RET

// func maxAVX2(x *float32, n int) float32
// The largest of x[0..n), n a multiple of 8.
TEXT ·maxAVX2(SB), NOSPLIT, $0-20
	MOVQ    x+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVUPS (SI), Y0
	ADDQ    $32, SI
	SHRQ    $3, CX
	DECQ    CX
	JEQ     mxdone

mxloop:
	VMAXPS (SI), Y0, Y0
	ADDQ   $32, SI
	DECQ   CX
	JNE    mxloop

mxdone:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VZEROUPPER
	MOVSS X0, ret+16(FP)
	RET

// func scaleAVX2(dst, x *float32, a float32, n int)
// dst[i] = a·x[i] for n a multiple of 8.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	VBROADCASTSS a+16(FP), Y1
	MOVQ         n+24(FP), CX
	SHRQ         $3, CX
	JEQ          scdone

scloop:
	VMULPS  (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNE     scloop

scdone:
	VZEROUPPER
	RET

// The float16 KV cache: the two attention tiles above with their keys or values stored as IEEE
// half precision and widened by VCVTPH2PS (F16C, exact) as they are loaded, so that attention
// reads half the bytes of a float32 cache and never a float32 copy of it. packStride counts
// uint16 elements.

// func tile16x6F16AVX2(pack *uint16, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
//
// out[t*outStride+i] (+)= Σ_j f16(pack[j*packStride+i]) · x[t*xstride+j]   for t < 6, i < 16, j < k:
// per k step sixteen halves widened into two registers, times six broadcast inputs, twelve FMAs
// into twelve accumulators held for the whole loop.
TEXT ·tile16x6F16AVX2(SB), NOSPLIT, $0-64
	MOVQ pack+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xstride+16(FP), R8
	SHLQ $2, R8                 // bytes between rows of x
	MOVQ k+24(FP), CX
	MOVQ out+32(FP), DX
	MOVQ packStride+40(FP), R10
	SHLQ $1, R10                // bytes between k steps of pack
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
	JEQ   h6store

h6loop:
	VCVTPH2PS    (SI), Y12
	VCVTPH2PS    16(SI), Y13
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
	JNE          h6loop

h6store:
	MOVQ  acc+56(FP), AX
	TESTQ AX, AX
	JEQ   h6put
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

h6put:
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

// func tile16x2F16AVX2(pack *uint16, x *float32, xstride int, k int, out *float32, packStride, outStride, acc int)
//
// tile16x6F16AVX2 for two rows (decoding: one token's two query heads of a key/value head), two k
// steps per iteration into two sets of accumulators, as tile16x2AVX2.
TEXT ·tile16x2F16AVX2(SB), NOSPLIT, $0-64
	MOVQ pack+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xstride+16(FP), R8
	SHLQ $2, R8
	MOVQ k+24(FP), CX
	MOVQ out+32(FP), DX
	MOVQ packStride+40(FP), R10
	SHLQ $1, R10
	MOVQ outStride+48(FP), R11
	SHLQ $2, R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

h2loop:
	CMPQ CX, $2
	JLT  h2tail
	VCVTPH2PS    (SI), Y8
	VCVTPH2PS    16(SI), Y9
	VBROADCASTSS (DI), Y10
	VBROADCASTSS (DI)(R8*1), Y11
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VCVTPH2PS    (SI)(R10*1), Y12
	VCVTPH2PS    16(SI)(R10*1), Y13
	VBROADCASTSS 4(DI), Y14
	VBROADCASTSS 4(DI)(R8*1), Y15
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	LEAQ         (SI)(R10*2), SI
	ADDQ         $8, DI
	SUBQ         $2, CX
	JMP          h2loop

h2tail:
	TESTQ CX, CX
	JEQ   h2sum
	VCVTPH2PS    (SI), Y8
	VCVTPH2PS    16(SI), Y9
	VBROADCASTSS (DI), Y10
	VBROADCASTSS (DI)(R8*1), Y11
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3

h2sum:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	MOVQ   acc+56(FP), AX
	TESTQ  AX, AX
	JEQ    h2put
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	VADDPS (DX)(R11*1), Y2, Y2
	VADDPS 32(DX)(R11*1), Y3, Y3

h2put:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R11*1)
	VMOVUPS Y3, 32(DX)(R11*1)
	VZEROUPPER
	RET

// func narrowF16AVX2(dst *uint16, src *float32, n int)
// dst[i] = the float16 nearest to src[i] (VCVTPS2PH with rounding mode 0: to nearest, ties to
// even) for n a multiple of 8.
TEXT ·narrowF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JEQ  nhdone

nhloop:
	VMOVUPS   (SI), Y0
	VCVTPS2PH $0, Y0, X1
	VMOVDQU   X1, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	DECQ      CX
	JNE       nhloop

nhdone:
	VZEROUPPER
	RET
