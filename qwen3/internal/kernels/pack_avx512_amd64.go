package kernels

// The AVX-512 packers of QPack.Pack (pack_avx512_amd64.s): 16 rows of one type decoded straight
// into TileQ's layout, scales included; packQAVX512 calls one twice for a pack's 32 rows.

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

// packQAVX512 is QPack.Pack's form at AVX512 for 32 rows: kernel on rows 0-15, then 16-31, each
// call writing TileQ's layout directly (the values decodeQRow and the pairing give, bit for bit).
func packQAVX512(kernel func(q *int16, s *float32, raw *byte, rowBytes, nb int, f16 *[65536]float32)) packQKernel {
	return func(p *QPack, k int, raw []byte, rowBytes int) {
		nb := k / p.Kind.blockSize()
		for h := 0; h < TileRows; h += 16 { // rows h..h+15: words 2h.. of each column pair, S from h
			kernel(&p.Q[2*h], &p.S[h], &raw[h*rowBytes], rowBytes, nb, &f16Table)
		}
	}
}

// packBF16AVX512x2 is PackBF16's form at AVX512: the first n columns (a multiple of 16) of rows
// 0-15, then 16-31 (lanes h.. of each column).
func packBF16AVX512x2(pack []float32, w []uint16, k, n int) {
	for h := 0; h < TileRows; h += 16 {
		packBF16AVX512(&pack[h], &w[h*k], 2*k, n)
	}
}
