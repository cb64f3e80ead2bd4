package kernels

// The 8-token VNNI TileQ kernels (tileq_vnni_amd64.s): a chunk's last, short tile.

//go:noescape
func tileQ32x8VNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)

//go:noescape
func tileQ32x8NoMinVNNI(pack, x *int16, xstride, nb, halves int, s, xs, xsum *float32, xsStride int, out *float32)
