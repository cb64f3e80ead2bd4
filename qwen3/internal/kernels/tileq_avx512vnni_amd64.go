package kernels

// The prototypes of tileq_avx512vnni_amd64.s.

//go:noescape
func tileQ32x12VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x12NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x8VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x8NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

// tileQVNNI is TileQ's (or TileQPart's, for the 8-token kernels) form at AVX512VNNI: the whole
// tile in one call.
func tileQVNNI(kernel func(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)) tileQKernel {
	return func(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) {
		kernel(&p.Q[0], &x[0], k, nb, p.Kind.halves(), &p.S[0], &xs[0], &xsum[0], nb, &out[0])
	}
}

var (
	tileQNoMinVNNI  = tileQVNNI(tileQ32x12NoMinVNNI)
	tileQMinVNNI    = tileQVNNI(tileQ32x12VNNI)
	tileQ8NoMinVNNI = tileQVNNI(tileQ32x8NoMinVNNI)
	tileQ8MinVNNI   = tileQVNNI(tileQ32x8VNNI)
)
