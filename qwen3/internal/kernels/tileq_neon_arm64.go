package kernels

// The prototypes of tileq_neon_arm64.s.

//go:noescape
func tileQ8x6NEON(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

// tileQNEON is TileQ's NEON form: the 32 x 12 tile in eight 8-row, 6-token parts (one kernel for
// every type: a pack's minimum terms are zero where the type has none).
func tileQNEON(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) {
	h := p.Kind.halves()
	for t := 0; t < TileTokens; t += 6 {
		for r := 0; r < TileRows; r += 8 {
			tileQ8x6NEON(&p.Q[2*r], &x[t*k], k, nb, h, &p.S[r], &xs[t*nb], &xsum[t*nb], nb, &out[t*TileRows+r], TileRows)
		}
	}
}
