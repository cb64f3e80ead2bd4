// Macros shared by the quantized dot kernels of one token (quant_amd64.s) and of several tokens
// (multi_amd64.s). Both kinds build every token's result with these same macros, so that they
// do the same float operations on every lane in the same order: a batch of tokens gets, bit for
// bit, what each token gets alone.
//
// The float formula of a row, the same for every type (they differ only in what a block is and
// in its scale c):
//
//	acc = fma(float(P_b), c_b, acc)   for the blocks b of the row in order, lane by lane;
//	                                  P_b: eight int32 lanes of block b's integer products
//	                                  (exact), c_b = d_b·s_b: the weights' scale times the
//	                                  activations' (Q4_K: d·scale_j·s_j, Q6_K per 16 values)
//	dot = HSUM(acc)                   at the end of the row
//
// (Q4_K also subtracts its minimums' term once per super-block.) A block's eight lanes are
// scaled as they are, without first being summed into one integer: horizontal adds (VPHADDD)
// cost two cycles each on this machine, more than the multiply-adds. The chain of fused
// multiply-adds on one accumulator has the FMA's latency per block, so one token's kernel works
// on four rows at a time (four chains), and the batched kernels on several tokens.

// GATHERD8(stride, p) gathers the float16 scales of eight blocks stride bytes apart from p into
// X3 and converts them to eight floats in Y3; AX is clobbered.
#define GATHERD8(stride, p) \
	MOVWLZX   (p), AX \
	VMOVQ      AX, X3 \
	VPINSRW   $1, stride(p), X3, X3 \
	VPINSRW   $2, 2*stride(p), X3, X3 \
	VPINSRW   $3, 3*stride(p), X3, X3 \
	VPINSRW   $4, 4*stride(p), X3, X3 \
	VPINSRW   $5, 5*stride(p), X3, X3 \
	VPINSRW   $6, 6*stride(p), X3, X3 \
	VPINSRW   $7, 7*stride(p), X3, X3 \
	VCVTPH2PS X3, Y3

// HSUM(y, x) sums the eight float lanes of y into the low lane of x (the same register); X1 is
// clobbered.
#define HSUM(y, x) \
	VEXTRACTF128 $1, y, X1 \
	VADDPS       X1, x, x \
	VHADDPS      x, x, x \
	VHADDPS      x, x, x

// QFMA(cs, acc) finishes a 32-value block whose products, summed in pairs by VPMADDWD, are in Y5
// and Y6: their eight int32 lane sums converted to float, times the block's scale c (broadcast
// from cs), added to acc. Y6 is clobbered.
#define QFMA(cs, acc) \
	VPADDD       Y6, Y5, Y5 \
	VCVTDQ2PS    Y5, Y5 \
	VBROADCASTSS cs, Y6 \
	VFMADD231PS  Y6, Y5, acc

// QTOK(x0, x1, cs, acc) is one token's share of a 32-value block whose weights, widened to int16,
// are in Y1 (values 0-15) and Y2 (16-31): the products with the token's activations at x0 and
// x1, then QFMA.
#define QTOK(x0, x1, cs, acc) \
	VPMADDWD x0, Y1, Y5 \
	VPMADDWD x1, Y2, Y6 \
	QFMA(cs, acc)

// Q8W(off) widens the 32 int8 quants of the Q8_0 block at byte off of SI into Y1 and Y2.
#define Q8W(off) \
	VPMOVSXBW off+2(SI), Y1 \
	VPMOVSXBW off+18(SI), Y2

// Q8ROW(off, p, cs, acc) is one row's share of a block for one token whose activations are in Y1
// and Y2: the row's Q8_0 block at byte off of p widened into Y5 and Y6, multiplied, then QFMA.
#define Q8ROW(off, p, cs, acc) \
	VPMOVSXBW off+2(p), Y5 \
	VPMOVSXBW off+18(p), Y6 \
	VPMADDWD  Y1, Y5, Y5 \
	VPMADDWD  Y2, Y6, Y6 \
	QFMA(cs, acc)

// The one-token kernels (quant_amd64.s), func dotXActAVX2(w *byte, stride, rows int, q *int16,
// scale, sum *float32, n int, out *float32), work on four rows at a time, then one by one. Their
// registers: R12 the first row, R10 the row stride, R13 the first row's index; SI, R14, BX and
// R9 the four rows' blocks; DI the activations, DX their scales, CX the groups left; Y8..Y11 the
// four rows' sums; the frame holds each row's block scales c for a group (32 bytes per row).

// R4START begins four rows from R12 (R10 bytes apart): their blocks at SI, R14, BX and R9, the
// activation pointers at their starts, the group counter from n, the four sums Y8..Y11 cleared.
#define R4START \
	MOVQ   R12, SI \
	LEAQ   (R12)(R10*1), R14 \
	LEAQ   (R14)(R10*1), BX \
	LEAQ   (BX)(R10*1), R9 \
	MOVQ   q+24(FP), DI \
	MOVQ   scale+32(FP), DX \
	MOVQ   n+48(FP), CX \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// R4END stores the four rows' sums in out[R13..R13+3] and moves R12, R13 to the next four rows.
#define R4END \
	MOVQ   out+56(FP), AX \
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
	ADDQ   $4, R13

// R4ADVANCE moves the four rows' block pointers on by bytes.
#define R4ADVANCE(bytes) \
	ADDQ $bytes, SI \
	ADDQ $bytes, R14 \
	ADDQ $bytes, BX \
	ADDQ $bytes, R9

// R4LEFT jumps to one if fewer than four rows are left, and to done if none is.
#define R4LEFT(one, done) \
	MOVQ rows+16(FP), AX \
	SUBQ R13, AX \
	JEQ  done \
	CMPQ AX, $4 \
	JLT  one

// R1START and R1END: the same for one row (sum in Y8).
#define R1START \
	MOVQ   R12, SI \
	MOVQ   q+24(FP), DI \
	MOVQ   scale+32(FP), DX \
	MOVQ   n+48(FP), CX \
	VXORPS Y8, Y8, Y8

#define R1END \
	MOVQ   out+56(FP), AX \
	HSUM(Y8, X8) \
	VMOVSS X8, (AX)(R13*4) \
	ADDQ   R10, R12 \
	INCQ   R13

// SCALE4(stride) gathers the block scales d of the group of each of the four rows, multiplies
// them by the activations' scales and keeps the products c in the frame (32 bytes per row).
#define SCALE4(stride) \
	GATHERD8(stride, SI) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, (SP) \
	GATHERD8(stride, R14) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, 32(SP) \
	GATHERD8(stride, BX) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, 64(SP) \
	GATHERD8(stride, R9) \
	VMULPS  (DX), Y3, Y3 \
	VMOVUPS Y3, 96(SP)

// Q8R4(off, xoff, coff): block b (byte off of each row, activations at byte xoff, scale at byte
// coff of each row's 32 in the frame) of the four rows.
#define Q8R4(off, xoff, coff) \
	VMOVDQU xoff(DI), Y1 \
	VMOVDQU xoff+32(DI), Y2 \
	Q8ROW(off, SI, coff(SP), Y8) \
	Q8ROW(off, R14, coff+32(SP), Y9) \
	Q8ROW(off, BX, coff+64(SP), Y10) \
	Q8ROW(off, R9, coff+96(SP), Y11)

// PREFETCH4(off) asks for the line off bytes ahead of each of the four rows.
#define PREFETCH4(off) \
	PREFETCHT0 off(SI) \
	PREFETCHT0 off(R14) \
	PREFETCHT0 off(BX) \
	PREFETCHT0 off(R9)

