#include "textflag.h"

// func transpose8AVX2(dst *float32, dstStride int, src *float32, srcStride int, k int)
//
// dst[j*dstStride+i] = src[i*srcStride+j] for i < 8 rows and j < k (k a multiple of 8): eight
// rows become eight-value columns. Each step loads an 8x8 block (one 8-float piece of each row),
// transposes it in registers (unpack, shuffle, swap 128-bit halves) and stores eight columns.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R12
	SHLQ $2, R12                // dst stride in bytes
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	SHLQ $2, R8                 // src stride in bytes
	MOVQ k+32(FP), CX
	LEAQ (SI)(R8*2), R9
	ADDQ R8, R9                 // row 3
	LEAQ (R9)(R8*2), R10
	ADDQ R8, R10                // row 6
	LEAQ (R12)(R12*2), R13      // 3 dst strides
	SHRQ $3, CX
	JEQ  trdone

trloop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (R9), Y3
	VMOVUPS (R9)(R8*1), Y4
	VMOVUPS (R9)(R8*2), Y5
	VMOVUPS (R10), Y6
	VMOVUPS (R10)(R8*1), Y7
	VUNPCKLPS Y1, Y0, Y8        // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9        // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0  // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1  // a1 b1 c1 d1 | a5 ...
	VSHUFPS $0x44, Y11, Y9, Y2  // a2 ... | a6 ...
	VSHUFPS $0xEE, Y11, Y9, Y3  // a3 ... | a7 ...
	VSHUFPS $0x44, Y14, Y12, Y4 // e0 f0 g0 h0 | e4 ...
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8  // column 0
	VPERM2F128 $0x20, Y5, Y1, Y9  // column 1
	VPERM2F128 $0x20, Y6, Y2, Y10 // column 2
	VPERM2F128 $0x20, Y7, Y3, Y11 // column 3
	VPERM2F128 $0x31, Y4, Y0, Y12 // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13 // column 5
	VPERM2F128 $0x31, Y6, Y2, Y14 // column 6
	VPERM2F128 $0x31, Y7, Y3, Y15 // column 7
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, (DI)(R12*1)
	VMOVUPS Y10, (DI)(R12*2)
	VMOVUPS Y11, (DI)(R13*1)
	LEAQ    (DI)(R12*4), DX
	VMOVUPS Y12, (DX)
	VMOVUPS Y13, (DX)(R12*1)
	VMOVUPS Y14, (DX)(R12*2)
	VMOVUPS Y15, (DX)(R13*1)
	LEAQ    (DX)(R12*4), DI
	ADDQ    $32, SI
	ADDQ    $32, R9
	ADDQ    $32, R10
	DECQ    CX
	JNE     trloop

trdone:
	VZEROUPPER
	RET

// func widenBF16AVX2(dst *float32, src *uint16, n int)
// dst[i] = bf16(src[i]) for n a multiple of 8.
TEXT ·widenBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JEQ  wbdone

wbloop:
	VPMOVZXWD (SI), Y0
	VPSLLD    $16, Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNE       wbloop

wbdone:
	VZEROUPPER
	RET

// func widenF16AVX2(dst *float32, src *uint16, n int)
// dst[i] = f16(src[i]) for n a multiple of 8.
TEXT ·widenF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JEQ  whdone

whloop:
	VCVTPH2PS (SI), Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNE       whloop

whdone:
	VZEROUPPER
	RET
