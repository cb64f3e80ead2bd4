package kernels

// The AVX-512 packers of QPack.Pack (pack_avx512_amd64.s): 16 rows of one type decoded straight
// into TileQ's layout, scales included; packQArch calls one twice for a pack's 32 rows.

//go:noescape
func packQ8_0AVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)

//go:noescape
func packQ4_0AVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)

//go:noescape
func packQ4_KAVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)

//go:noescape
func packQ6_KAVX512(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)

//go:noescape
func packBF16AVX512(pack *float32, w *uint16, rowBytes, n int)
