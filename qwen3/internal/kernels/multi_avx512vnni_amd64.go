package kernels

import (
	"sync"
	"unsafe"
)

// The batched dots in 512-bit registers (multi_avx512vnni_amd64.s), for the AVX512 level with VNNI:
// two tokens to a register, each token's lanes doing the one-token AVX2 kernel's operations in
// its order, so that they give the AVX2 batched kernels' (and the one-token kernels') bits. The
// kernels read the activations from a copy in the order they want them (the pair layout of
// multi_avx512vnni_amd64.s), made once per call and read by every row of the call.

// The pair layout (pairActVNNI) per group of eight blocks (or super-block) and pair of tokens:
// eight blocks of A and B (128 bytes each), the eight blocks' scales [s_t | s_u] and their sums
// [Sum_t | Sum_u] (64 bytes each). The Q6 pair layout (q6PairActVNNI) per super-block and pair of
// tokens: two halves, each eight 64-byte chunks of activations, [32·Sum16_t | 32·Sum16_u] and
// the scales (64 bytes each). Between passes over pieces of the columns each row's accumulators
// (four 512-bit registers) wait in 1<<accRowShift bytes. The assembly reads these sizes from
// go_asm.h, the Go constants exported to it, so that they are written down once.
const (
	pairScales   = 8 * 128
	pairSums     = pairScales + 64
	pairBytes    = pairSums + 64 // 1152
	q6HalfSums   = 8 * 64
	q6HalfScales = q6HalfSums + 64
	q6HalfBytes  = q6HalfScales + 64
	q6PairBytes  = 2 * q6HalfBytes // 1280

	accRowShift = 8
	accRowBytes = 1 << accRowShift
)

// vnniScratch holds the buffers the activations are copied into, one per concurrent call.
var vnniScratch = sync.Pool{New: func() any { return new(scratchBuf) }}

type scratchBuf struct{ b []byte }

// get returns n bytes of the buffer, 64-byte aligned (a 512-bit load never straddles two lines).
func (s *scratchBuf) get(n int) *byte {
	if testScratch != nil {
		return &testScratch(n)[0]
	}
	if len(s.b) < n+64 {
		s.b = make([]byte, n+64)
	}
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(s.b))) & 63)
	return &s.b[off]
}

// vnniChunk is how many bytes of the buffer one pass over the rows reads: rows wider than that
// (the down projection's 3072 values: 55 KB for eight tokens) are done in passes over pieces of
// their columns, each pass reading its piece of the buffer once per row from L1. (A whole
// 3072-value row's buffer does not fit in the 48 KB L1 with the weights streaming past: every row
// read it again from L2, and the kernels ran at a third of their speed.) Between passes each
// row's accumulators wait in acc (accRowBytes per row, vnniRowBlock rows at a time), so each lane
// still adds its blocks in order: the bits do not change.
//
// The kernels prefetch the weights pf bytes ahead: a whole number of rows, so that in passes over
// pieces of the rows each prefetch lands in the piece a later row of the same pass reads, about
// prefetchAhead bytes of weights ahead of the one being read. (A fixed distance, as in the AVX2
// kernels, mostly fetched other pieces, evicted before their pass: Q6_K's 3072-value rows then
// streamed at half the speed of 1024-value ones.)
const (
	vnniChunk     = 20 << 10
	vnniRowBlock  = 64
	prefetchAhead = 4096
)

// vnniKernelN is a 512-bit batched kernel for eight, four or two tokens.
type vnniKernelN = func(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

// actRowsNVNNI is the batched form of one type at the AVX512VNNI level: tokens t..t+nt-1 (nt 8,
// 4 or 2) copied into the pair layout (q6: the Q6 pair layout), then the rows, in one call or in
// passes over pieces of their columns (vnniChunk). group: blocks per group of a row.
func actRowsNVNNI(k8, k4, k2 vnniKernelN, kind actKind) actRowsNKernel {
	op, q6, group, per := actRowsNNames[kind], kind == q6_K, actKinds[kind].group, pairBytes
	if q6 {
		per = q6PairBytes
	}
	return func(w *byte, rowBytes, rows int, a *Act, nb, cols, t, nt int, out []float32, outStride int) {
		kn, pairs := k2, nt/2
		switch nt {
		case 8:
			kn = k8
		case 4:
			kn = k4
		}
		n := nb / group
		s := vnniScratch.Get().(*scratchBuf)
		size := n * pairs * per
		x := s.get(size + vnniRowBlock*accRowBytes)
		acc := (*float32)(unsafe.Add(unsafe.Pointer(x), size))
		b := t * cols / ActBlock
		if q6 {
			q6PairActVNNI(x, &a.Q[t*cols], &a.Scale[b], &a.Sum16[t*cols/16], n, pairs, cols)
		} else {
			pairActVNNI(x, &a.Q[t*cols], &a.Scale[b], &a.Sum[b], n, pairs, cols)
		}
		o := out[t*outStride:]
		chunk, gb := max(1, vnniChunk/(pairs*per)), rowBytes/n // groups per pass, a group's bytes in a row
		pf := (prefetchAhead + chunk*gb - 1) / (chunk * gb) * rowBytes
		if n <= chunk {
			traceSub(op, vnniOnePass)
			kn(w, rowBytes, rows, x, n, &o[0], outStride, acc, 0, pf)
		} else {
			traceSub(op, vnniPasses)
			for r0 := 0; r0 < rows; r0 += vnniRowBlock {
				rb := min(vnniRowBlock, rows-r0)
				for c := 0; c < n; c += chunk {
					flags := 0 // bit 0: take the sums from acc, bit 1: leave them there
					if c > 0 {
						flags |= 1
					}
					if c+chunk < n {
						flags |= 2
					}
					xc := (*byte)(unsafe.Add(unsafe.Pointer(x), c*pairs*per))
					kn((*byte)(unsafe.Add(unsafe.Pointer(w), r0*rowBytes+c*gb)), rowBytes, rb, xc, min(chunk, n-c), &o[r0], outStride, acc, flags, pf)
				}
			}
		}
		vnniScratch.Put(s)
	}
}

// The branches of actRowsNVNNI.
const (
	vnniOnePass = "one pass"
	vnniPasses  = "passes over column pieces"
)

var (
	dotQ8_0ActRowsNVNNI = actRowsNVNNI(dotQ8_0ActN8VNNI, dotQ8_0ActN4VNNI, dotQ8_0ActN2VNNI, q8_0)
	dotQ4_0ActRowsNVNNI = actRowsNVNNI(dotQ4_0ActN8VNNI, dotQ4_0ActN4VNNI, dotQ4_0ActN2VNNI, q4_0)
	dotQ4_KActRowsNVNNI = actRowsNVNNI(dotQ4_KActN8VNNI, dotQ4_KActN4VNNI, dotQ4_KActN2VNNI, q4_K)
	dotQ6_KActRowsNVNNI = actRowsNVNNI(dotQ6_KActN8VNNI, dotQ6_KActN4VNNI, dotQ6_KActN2VNNI, q6_K)
)

// The kernels of multi_avx512vnni_amd64.s.

//go:noescape
func pairActVNNI(dst *byte, q *int16, scale, sum *float32, groups, pairs, cols int)

//go:noescape
func dotQ8_0ActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ8_0ActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ8_0ActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ4_KActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ4_KActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ4_KActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func q6PairActVNNI(dst *byte, q *int16, scale *float32, sum16 *int32, sbs, pairs, cols int)

//go:noescape
func dotQ6_KActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ6_KActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ6_KActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ4_0ActN8VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ4_0ActN4VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)

//go:noescape
func dotQ4_0ActN2VNNI(w *byte, stride, rows int, x *byte, n int, out *float32, outStride int, acc *float32, flags, pf int)
