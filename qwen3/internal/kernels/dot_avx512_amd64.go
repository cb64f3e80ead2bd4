package kernels

// The prototypes of dot_avx512_amd64.s.

//go:noescape
func dotBF16AVX512(w *uint16, stride, rows int, x *float32, n int, out *float32)

//go:noescape
func dotQ8_0AVX512(w *byte, x *float32, nblocks int, f16 *[65536]float32) float32
