package kernels

// The prototypes of multi_avx512_amd64.s.

//go:noescape
func dotF32N8AVX512(w *float32, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N4AVX512(w *float32, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N2AVX512(w *float32, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N8AVX512(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N4AVX512(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N2AVX512(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N8AVX512(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N4AVX512(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N2AVX512(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
