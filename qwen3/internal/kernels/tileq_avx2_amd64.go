package kernels

// The prototypes of tileq_avx2_amd64.s.

//go:noescape
func tileQ16x6AVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

//go:noescape
func tileQ16x6NoMinAVX2(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)

// tileQAVX2 is TileQ's AVX2 form with kernel (with or without Q4_K's minimum terms): the 32 x 12
// tile in four 16-row, 6-token quarters.
func tileQAVX2(kernel func(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32, outStride int)) tileQKernel {
	return func(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) {
		h := p.Kind.halves()
		for _, q := range tileQuarters {
			kernel(&p.Q[2*q.row], &x[q.token*k], k, nb, h, &p.S[q.row], &xs[q.token*nb], &xsum[q.token*nb], nb, &out[q.token*TileRows+q.row], TileRows)
		}
	}
}

var (
	tileQNoMinAVX2 = tileQAVX2(tileQ16x6NoMinAVX2)
	tileQMinAVX2   = tileQAVX2(tileQ16x6AVX2)
)
