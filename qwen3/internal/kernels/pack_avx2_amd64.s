#include "textflag.h"

// func widenNibblesAVX2(lo, hi *int16, src *byte, n, bias int)
//
// lo[l] = src[l]&15 − bias, hi[l] = src[l]>>4 − bias for l < n (a multiple of 16): the 4-bit
// quants of Q4_0 (bias 8) and Q4_K (bias 0) as int16.
TEXT ·widenNibblesAVX2(SB), NOSPLIT, $0-40
	MOVQ         lo+0(FP), DI
	MOVQ         hi+8(FP), DX
	MOVQ         src+16(FP), SI
	MOVQ         n+24(FP), CX
	MOVQ         bias+32(FP), AX
	VMOVQ        AX, X3
	VPBROADCASTW X3, Y3
	VPCMPEQW     Y4, Y4, Y4
	VPSRLW       $12, Y4, Y4     // 0x000f in every word

nloop:
	VPMOVZXBW (SI), Y0
	VPAND     Y4, Y0, Y1
	VPSRLW    $4, Y0, Y2
	VPSUBW    Y3, Y1, Y1
	VPSUBW    Y3, Y2, Y2
	VMOVDQU   Y1, (DI)
	VMOVDQU   Y2, (DX)
	ADDQ      $16, SI
	ADDQ      $32, DI
	ADDQ      $32, DX
	SUBQ      $16, CX
	JGT       nloop
	VZEROUPPER
	RET

// func widenBytesAVX2(dst *int16, src *byte, n int)
//
// dst[l] = int8(src[l]) for l < n (a multiple of 16): Q8_0's quants as int16.
TEXT ·widenBytesAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

bloop:
	VPMOVSXBW (SI), Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $16, CX
	JGT       bloop
	VZEROUPPER
	RET

// func widenQ6AVX2(dst *int16, ql, qh *byte)
//
// The 128 quants of one half of a Q6_K block as int16, centred (q − 32): for l < 32,
// dst[l], dst[32+l], dst[64+l], dst[96+l] take the low nibble of ql[l], of ql[32+l], the high
// nibble of ql[l], of ql[32+l], each with its two bits of qh[l] (bits 0-1, 2-3, 4-5, 6-7) on top.
TEXT ·widenQ6AVX2(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         ql+8(FP), SI
	MOVQ         qh+16(FP), DX
	VPCMPEQW     Y6, Y6, Y6
	VPSRLW       $12, Y6, Y6     // 0x000f
	VPCMPEQW     Y7, Y7, Y7
	VPSRLW       $14, Y7, Y7     // 0x0003
	VPSLLW       $4, Y7, Y7      // 0x0030
	VPCMPEQW     Y8, Y8, Y8
	VPSRLW       $15, Y8, Y8
	VPSLLW       $5, Y8, Y8      // 32
	MOVQ         $2, CX

q6loop:
	VPMOVZXBW (SI), Y0           // a = ql[l..l+16]
	VPMOVZXBW 32(SI), Y1         // b = ql[32+l..]
	VPMOVZXBW (DX), Y2           // h = qh[l..]
	VPSLLW    $4, Y2, Y3
	VPAND     Y7, Y3, Y3         // (h&3)<<4
	VPAND     Y6, Y0, Y4
	VPOR      Y3, Y4, Y4
	VPSUBW    Y8, Y4, Y4
	VMOVDQU   Y4, (DI)
	VPSLLW    $2, Y2, Y3
	VPAND     Y7, Y3, Y3         // (h>>2&3)<<4
	VPAND     Y6, Y1, Y4
	VPOR      Y3, Y4, Y4
	VPSUBW    Y8, Y4, Y4
	VMOVDQU   Y4, 64(DI)
	VPAND     Y7, Y2, Y3         // (h>>4&3)<<4
	VPSRLW    $4, Y0, Y4
	VPOR      Y3, Y4, Y4
	VPSUBW    Y8, Y4, Y4
	VMOVDQU   Y4, 128(DI)
	VPSRLW    $2, Y2, Y3
	VPAND     Y7, Y3, Y3         // (h>>6)<<4
	VPSRLW    $4, Y1, Y4
	VPOR      Y3, Y4, Y4
	VPSUBW    Y8, Y4, Y4
	VMOVDQU   Y4, 192(DI)
	ADDQ      $16, SI
	ADDQ      $16, DX
	ADDQ      $32, DI
	DECQ      CX
	JNE       q6loop
	VZEROUPPER
	RET
