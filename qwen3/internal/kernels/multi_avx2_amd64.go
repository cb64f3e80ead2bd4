package kernels

import "unsafe"

// The prototypes of multi_avx2_amd64.s.

//go:noescape
func dotQ8_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ8_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ8_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ6_KActNAVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols, tokens int)

//go:noescape
func dotF32N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N8AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N4AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N2AVX2(w unsafe.Pointer, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
