package kernels

import "fmt"

// Conversions for prompt processing: weight rows are decoded to float32 and transposed into the
// Tile kernel's packed order once per prompt chunk, so these run over every weight once per chunk.

// Transpose8 writes dst[j*dstStride+i] = src[i*srcStride+j] for i < 8 rows and j < k columns.
func Transpose8(dst []float32, dstStride int, src []float32, srcStride, k int) {
	if len(src) < 7*srcStride+k || len(dst) < (k-1)*dstStride+8 || k > srcStride || dstStride < 8 {
		panic(fmt.Sprintf("kernels: Transpose8 of %d values (stride %d, k %d) into %d (stride %d)", len(src), srcStride, k, len(dst), dstStride))
	}
	kern, j := transpose8Op.split(k)
	if j > 0 {
		kern(noEscape(&dst[0]), dstStride, noEscape(&src[0]), srcStride, j)
	}
	if j == k {
		return
	}
	// The plain Go form: the 8 source rows as slices of k values, then one 8-value output row per
	// column, written in order.
	var r [8][]float32
	for i := range r {
		r[i] = src[i*srcStride : i*srcStride+k]
	}
	for ; j < k; j++ {
		d := (*[8]float32)(dst[j*dstStride:])
		d[0], d[1], d[2], d[3] = r[0][j], r[1][j], r[2][j], r[3][j]
		d[4], d[5], d[6], d[7] = r[4][j], r[5][j], r[6][j], r[7][j]
	}
}

// WidenBF16 writes dst[i] = bf16(src[i]).
func WidenBF16(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	k, n := widenBF16Op.split(len(src))
	if n > 0 {
		k(noEscape(&dst[0]), noEscape(&src[0]), n)
	}
	for i := n; i < len(src); i++ {
		dst[i] = bf16(src[i])
	}
}

// WidenF16 writes dst[i] = f16(src[i]).
func WidenF16(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	k, n := widenF16Op.split(len(src))
	if n > 0 {
		k(noEscape(&dst[0]), noEscape(&src[0]), n)
	}
	for i := n; i < len(src); i++ {
		dst[i] = f16(src[i])
	}
}
