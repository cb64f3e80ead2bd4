package kernels

// The prototypes of pack_avx2_amd64.s.

//go:noescape
func widenNibblesAVX2(lo, hi *int16, src *byte, n, bias int)

//go:noescape
func widenBytesAVX2(dst *int16, src *byte, n int)

//go:noescape
func widenQ6AVX2(dst *int16, ql, qh *byte)
