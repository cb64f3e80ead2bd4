// Macros shared by the float dot kernels of one token (dot_avx2_amd64.s) and of several tokens
// (multi_avx2_amd64.s), so that both do the same float operations on every lane in the same order.
//
// The formula of a row, for F32, BF16 and F16 weights alike:
//
//	acc = fma(w_j, x_j, acc)    over the row's 8-column chunks j in order, eight lanes
//	dot = HSUM(acc)             (quant_amd64.h)
//
// One accumulator per row and token: its chain of fused multiply-adds advances one chunk per FMA
// latency, so the one-token kernels take four rows at a time and the batched kernels several
// tokens, which gives enough independent chains to run at memory speed.

// FMAF32, FMABF16, FMAF16(off, p, x, acc) add the 8 weights at byte off of p times the 8 inputs
// in register x to acc (Y5 is clobbered). A bfloat16 is the top half of a float32; F16C widens
// half precision exactly.
#define FMAF32(off, p, x, acc) \
	VFMADD231PS off(p), x, acc

#define FMABF16(off, p, x, acc) \
	VPMOVZXWD   off(p), Y5 \
	VPSLLD      $16, Y5, Y5 \
	VFMADD231PS Y5, x, acc

#define FMAF16(off, p, x, acc) \
	VCVTPH2PS   off(p), Y5 \
	VFMADD231PS Y5, x, acc

// WF32, WBF16, WF16(off, p, dst) widen the 8 weights at byte off of p into dst.
#define WF32(off, p, dst) \
	VMOVUPS off(p), dst

#define WBF16(off, p, dst) \
	VPMOVZXWD off(p), dst \
	VPSLLD    $16, dst, dst

#define WF16(off, p, dst) \
	VCVTPH2PS off(p), dst

// FCHUNK4(FMA, woff, xoff): one 8-column chunk of the four rows SI, R14, BX, R9 (weights at
// byte woff of each), inputs at byte xoff of DI.
#define FCHUNK4(FMA, woff, xoff) \
	VMOVUPS xoff(DI), Y4 \
	FMA(woff, SI, Y4, Y8) \
	FMA(woff, R14, Y4, Y9) \
	FMA(woff, BX, Y4, Y10) \
	FMA(woff, R9, Y4, Y11)

// FDOT(FMA, wb) is the body of a one-token float kernel
//	func dotXAVX2(w *T, stride, rows int, x *float32, n int, out *float32)
// out[r] = Σ_{i<n} w_r[i]·x[i] for each row r (stride bytes after the previous one), n a multiple
// of 8, wb the bytes of 8 weights: four rows at a time, 32 columns per step with the weights
// asked for 4 KB ahead, then 8 columns per step; then the rows left one by one.
#define FDOT(FMA, wb) \
	MOVQ w+0(FP), R12 \
	MOVQ stride+8(FP), R10 \
	XORQ R13, R13 \
four: \
	MOVQ rows+16(FP), AX \
	SUBQ R13, AX \
	JEQ  done \
	CMPQ AX, $4 \
	JLT  one \
	MOVQ R12, SI \
	LEAQ (R12)(R10*1), R14 \
	LEAQ (R14)(R10*1), BX \
	LEAQ (BX)(R10*1), R9 \
	MOVQ x+24(FP), DI \
	MOVQ n+32(FP), CX \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
four32: \
	CMPQ CX, $32 \
	JLT  four8 \
	PREFETCHT0 (SI)(R10*8) \
	PREFETCHT0 (R14)(R10*8) \
	PREFETCHT0 (BX)(R10*8) \
	PREFETCHT0 (R9)(R10*8) \
	PREFETCHT0 2*wb(SI)(R10*8) \
	PREFETCHT0 2*wb(R14)(R10*8) \
	PREFETCHT0 2*wb(BX)(R10*8) \
	PREFETCHT0 2*wb(R9)(R10*8) \
	FCHUNK4(FMA, 0, 0) \
	FCHUNK4(FMA, wb, 32) \
	FCHUNK4(FMA, 2*wb, 64) \
	FCHUNK4(FMA, 3*wb, 96) \
	ADDQ $4*wb, SI \
	ADDQ $4*wb, R14 \
	ADDQ $4*wb, BX \
	ADDQ $4*wb, R9 \
	ADDQ $128, DI \
	SUBQ $32, CX \
	JMP  four32 \
four8: \
	CMPQ CX, $8 \
	JLT  fourend \
	FCHUNK4(FMA, 0, 0) \
	ADDQ $wb, SI \
	ADDQ $wb, R14 \
	ADDQ $wb, BX \
	ADDQ $wb, R9 \
	ADDQ $32, DI \
	SUBQ $8, CX \
	JMP  four8 \
fourend: \
	MOVQ   out+40(FP), AX \
	LEAQ   (AX)(R13*4), AX \
	HSUM(Y8, X8) \
	VMOVSS X8, (AX) \
	HSUM(Y9, X9) \
	VMOVSS X9, 4(AX) \
	HSUM(Y10, X10) \
	VMOVSS X10, 8(AX) \
	HSUM(Y11, X11) \
	VMOVSS X11, 12(AX) \
	LEAQ   (R12)(R10*4), R12 \
	ADDQ   $4, R13 \
	JMP    four \
one: \
	MOVQ   R12, SI \
	MOVQ   x+24(FP), DI \
	MOVQ   n+32(FP), CX \
	VXORPS Y8, Y8, Y8 \
one8: \
	CMPQ CX, $8 \
	JLT  oneend \
	PREFETCHT0 4096(SI) \
	VMOVUPS (DI), Y4 \
	FMA(0, SI, Y4, Y8) \
	ADDQ $wb, SI \
	ADDQ $32, DI \
	SUBQ $8, CX \
	JMP  one8 \
oneend: \
	MOVQ   out+40(FP), AX \
	HSUM(Y8, X8) \
	VMOVSS X8, (AX)(R13*4) \
	ADDQ   R10, R12 \
	INCQ   R13 \
	JMP    four \
done: \
	VZEROUPPER \
	RET

// The batched float kernels (multi_avx2_amd64.s):
//	func dotXN{8,4,2}AVX2(w *T, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
// out[t*outStride+r] = Σ_{i<n} w_r[i]·x[t*xstride+i] for the kernel's tokens t: each 8-column
// chunk of a row widened once (W) and multiplied with every token's inputs (DI + t·R8 bytes;
// R14 = token 4's), one accumulator per token, Y8 up. FDOTN(W, wb, FMAS, STORES) is the body.
#define FTOKS8 \
	VFMADD231PS (DI), Y1, Y8 \
	VFMADD231PS (DI)(R8*1), Y1, Y9 \
	VFMADD231PS (DI)(R8*2), Y1, Y10 \
	VFMADD231PS (DI)(R9*1), Y1, Y11 \
	VFMADD231PS (R14), Y1, Y12 \
	VFMADD231PS (R14)(R8*1), Y1, Y13 \
	VFMADD231PS (R14)(R8*2), Y1, Y14 \
	VFMADD231PS (R14)(R9*1), Y1, Y15

#define FTOKS4 \
	VFMADD231PS (DI), Y1, Y8 \
	VFMADD231PS (DI)(R8*1), Y1, Y9 \
	VFMADD231PS (DI)(R8*2), Y1, Y10 \
	VFMADD231PS (DI)(R9*1), Y1, Y11

#define FTOKS2 \
	VFMADD231PS (DI), Y1, Y8 \
	VFMADD231PS (DI)(R8*1), Y1, Y9

// FSTORE(y, x) stores one token's dot product at AX and moves AX to the next token's.
#define FSTORE(y, x) \
	HSUM(y, x) \
	VMOVSS x, (AX) \
	ADDQ   BX, AX

#define FSTORES8 \
	FSTORE(Y8, X8) \
	FSTORE(Y9, X9) \
	FSTORE(Y10, X10) \
	FSTORE(Y11, X11) \
	FSTORE(Y12, X12) \
	FSTORE(Y13, X13) \
	FSTORE(Y14, X14) \
	FSTORE(Y15, X15)

#define FSTORES4 \
	FSTORE(Y8, X8) \
	FSTORE(Y9, X9) \
	FSTORE(Y10, X10) \
	FSTORE(Y11, X11)

#define FSTORES2 \
	FSTORE(Y8, X8) \
	FSTORE(Y9, X9)

#define FDOTN(W, wb, FMAS, STORES) \
	MOVQ w+0(FP), R12 \
	XORQ R13, R13 \
	MOVQ xstride+32(FP), R8 \
	SHLQ $2, R8 \
	LEAQ (R8)(R8*2), R9 \
	MOVQ outStride+56(FP), BX \
	SHLQ $2, BX \
row: \
	MOVQ   R12, SI \
	MOVQ   x+24(FP), DI \
	LEAQ   (DI)(R8*4), R14 \
	MOVQ   n+40(FP), CX \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	VXORPS Y12, Y12, Y12 \
	VXORPS Y13, Y13, Y13 \
	VXORPS Y14, Y14, Y14 \
	VXORPS Y15, Y15, Y15 \
chunk: \
	PREFETCHT0 4096(SI) \
	W(0, SI, Y1) \
	FMAS \
	ADDQ $wb, SI \
	ADDQ $32, DI \
	ADDQ $32, R14 \
	SUBQ $8, CX \
	JNE  chunk \
	MOVQ out+48(FP), AX \
	LEAQ (AX)(R13*4), AX \
	STORES \
	ADDQ stride+8(FP), R12 \
	INCQ R13 \
	CMPQ R13, rows+16(FP) \
	JLT  row \
	VZEROUPPER \
	RET
