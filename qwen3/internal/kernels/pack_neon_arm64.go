package kernels

// The prototypes of pack_neon_arm64.s.

//go:noescape
func widenNibblesNEON(lo, hi *int16, src *byte, n, bias int)

//go:noescape
func widenBytesNEON(dst *int16, src *byte, n int)

//go:noescape
func widenQ6NEON(dst *int16, ql, qh *byte)
