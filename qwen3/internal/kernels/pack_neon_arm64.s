#include "textflag.h"

// func widenNibblesNEON(lo, hi *int16, src *byte, n, bias int)
//
// lo[l] = src[l]&15 − bias, hi[l] = src[l]>>4 − bias for l < n (a multiple of 16): the 4-bit
// quants of Q4_0 (bias 8) and Q4_K (bias 0) as int16.
TEXT ·widenNibblesNEON(SB), NOSPLIT, $0-40
	MOVD  lo+0(FP), R0
	MOVD  hi+8(FP), R1
	MOVD  src+16(FP), R2
	MOVD  n+24(FP), R3
	MOVD  bias+32(FP), R4
	VDUP  R4, V3.H8
	VMOVI $15, V4.B16

nloop:
	VLD1.P 16(R2), [V0.B16]
	VAND   V4.B16, V0.B16, V1.B16
	VUSHR  $4, V0.B16, V2.B16
	VUXTL  V1.B8, V5.H8
	VUXTL2 V1.B16, V6.H8
	VUXTL  V2.B8, V7.H8
	VUXTL2 V2.B16, V8.H8
	VSUB   V3.H8, V5.H8, V5.H8
	VSUB   V3.H8, V6.H8, V6.H8
	VSUB   V3.H8, V7.H8, V7.H8
	VSUB   V3.H8, V8.H8, V8.H8
	VST1.P [V5.H8, V6.H8], 32(R0)
	VST1.P [V7.H8, V8.H8], 32(R1)
	SUBS   $16, R3
	BNE    nloop
	RET

// func widenBytesNEON(dst *int16, src *byte, n int)
//
// dst[l] = int8(src[l]) for l < n (a multiple of 16): Q8_0's quants as int16.
TEXT ·widenBytesNEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

bloop:
	VLD1.P 16(R1), [V0.B16]
	WORD   $0x0f08a401 // sxtl v1.8h, v0.8b
	WORD   $0x4f08a402 // sxtl2 v2.8h, v0.16b
	VST1.P [V1.H8, V2.H8], 32(R0)
	SUBS   $16, R2
	BNE    bloop
	RET

// func widenQ6NEON(dst *int16, ql, qh *byte)
//
// The 128 quants of one half of a Q6_K block as int16, centred (q − 32): for l < 32, dst[l],
// dst[32+l], dst[64+l], dst[96+l] take the low nibble of ql[l], of ql[32+l], the high nibble of
// ql[l], of ql[32+l], each with its two bits of qh[l] (bits 0-1, 2-3, 4-5, 6-7) on top. Built as
// bytes as in Q6KHALF (quant_neon_arm64.s), centred, then sign-extended.
TEXT ·widenQ6NEON(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  ql+8(FP), R1
	MOVD  qh+16(FP), R2
	VMOVI $0x30, V28.B16
	VMOVI $0x0f, V29.B16
	VMOVI $0x3f, V30.B16
	VMOVI $32, V31.B16
	VLD1  (R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD1  (R2), [V4.B16, V5.B16]
	VAND  V29.B16, V0.B16, V6.B16
	VSLI  $4, V4.B16, V6.B16
	VAND  V30.B16, V6.B16, V6.B16
	VAND  V29.B16, V1.B16, V7.B16
	VSLI  $4, V5.B16, V7.B16
	VAND  V30.B16, V7.B16, V7.B16
	VUSHR $2, V4.B16, V14.B16
	VUSHR $2, V5.B16, V24.B16
	VAND  V29.B16, V2.B16, V8.B16
	VSLI  $4, V14.B16, V8.B16
	VAND  V30.B16, V8.B16, V8.B16
	VAND  V29.B16, V3.B16, V9.B16
	VSLI  $4, V24.B16, V9.B16
	VAND  V30.B16, V9.B16, V9.B16
	VUSHR $4, V0.B16, V10.B16
	VAND  V28.B16, V4.B16, V25.B16
	VORR  V25.B16, V10.B16, V10.B16
	VUSHR $4, V1.B16, V11.B16
	VAND  V28.B16, V5.B16, V25.B16
	VORR  V25.B16, V11.B16, V11.B16
	VUSHR $4, V2.B16, V12.B16
	VAND  V28.B16, V14.B16, V25.B16
	VORR  V25.B16, V12.B16, V12.B16
	VUSHR $4, V3.B16, V13.B16
	VAND  V28.B16, V24.B16, V25.B16
	VORR  V25.B16, V13.B16, V13.B16
	VSUB   V31.B16, V6.B16, V6.B16
	VSUB   V31.B16, V7.B16, V7.B16
	VSUB   V31.B16, V8.B16, V8.B16
	VSUB   V31.B16, V9.B16, V9.B16
	VSUB   V31.B16, V10.B16, V10.B16
	VSUB   V31.B16, V11.B16, V11.B16
	VSUB   V31.B16, V12.B16, V12.B16
	VSUB   V31.B16, V13.B16, V13.B16
	WORD   $0x0f08a4d0 // sxtl v16.8h, v6.8b
	WORD   $0x4f08a4d1 // sxtl2 v17.8h, v6.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a4f0 // sxtl v16.8h, v7.8b
	WORD   $0x4f08a4f1 // sxtl2 v17.8h, v7.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a510 // sxtl v16.8h, v8.8b
	WORD   $0x4f08a511 // sxtl2 v17.8h, v8.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a530 // sxtl v16.8h, v9.8b
	WORD   $0x4f08a531 // sxtl2 v17.8h, v9.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a550 // sxtl v16.8h, v10.8b
	WORD   $0x4f08a551 // sxtl2 v17.8h, v10.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a570 // sxtl v16.8h, v11.8b
	WORD   $0x4f08a571 // sxtl2 v17.8h, v11.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a590 // sxtl v16.8h, v12.8b
	WORD   $0x4f08a591 // sxtl2 v17.8h, v12.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	WORD   $0x0f08a5b0 // sxtl v16.8h, v13.8b
	WORD   $0x4f08a5b1 // sxtl2 v17.8h, v13.16b
	VST1.P [V16.H8, V17.H8], 32(R0)
	RET
