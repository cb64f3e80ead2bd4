package kernels

// The prototypes of dot_avx2_amd64.s.

//go:noescape
func dotF32AVX2(w *float32, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotBF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotF16AVX2(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotQ8_0AVX2(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32

//go:noescape
func axpyAVX2(y *float32, a float32, x *float32, n int)
